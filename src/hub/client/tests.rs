//! The state machine's tests: backoff, reconnects, refusals, the outbox, our own lingering name.

use super::actions::{HubAction, HubStatus, ResponseKind};
use super::machine::{HubClient, Phase};
use super::policy::{
    reconnect_delay, BACKOFF_MAX_MS, CLOSE_WAIT_MS, CONNECT_TIMEOUT_MS, NAME_RETRY_MAX_MS, OUTBOX_LIMIT,
    OWN_NAME_GRACE_MS, REGISTRATION_TIMEOUT_MS,
};
use crate::host_types::{LogLevel, Millis};
use crate::hub::config::HubConfig;
use crate::hub::config::DEFAULT_HUB_URL;

fn config(name: &str) -> HubConfig {
    HubConfig {
        url: DEFAULT_HUB_URL.into(),
        client_name: name.into(),
        description: "notes".into(),
        version: "1".into(),
    }
}

const OK: &str = r#"{"type":"registration_response","payload":{"success":true,"clientId":"c1"}}"#;

fn refused(code: &str) -> String {
    format!(r#"{{"type":"registration_response","payload":{{"success":false,"code":"{code}","message":"no"}}}}"#)
}

fn sockets(actions: &[HubAction]) -> Vec<u64> {
    actions
        .iter()
        .filter_map(|a| if let HubAction::Connect { socket, .. } = a { Some(*socket) } else { None })
        .collect()
}

fn wake(actions: &[HubAction]) -> Option<Millis> {
    actions.iter().find_map(|a| if let HubAction::Wake { at_ms } = a { Some(*at_ms) } else { None })
}

/// Connects and registers; returns the socket.
fn registered(client: &mut HubClient, now: Millis) -> u64 {
    let s = sockets(&client.configure(Some(config("obsidian")), 0))[0];
    client.on_open(s, now);
    client.on_frame(s, OK, now, 0.5);
    assert_eq!(client.status().0, HubStatus::Connected);
    s
}

#[test]
fn backoff_doubles_to_thirty_seconds_within_the_jitter() {
    for (failures, base) in [(1, 1_000), (2, 2_000), (3, 4_000), (4, 8_000), (5, 16_000), (6, 30_000), (40, 30_000)] {
        assert_eq!(reconnect_delay(failures, 0.5), base, "{failures}");
        let low = reconnect_delay(failures, 0.0);
        let high = reconnect_delay(failures, 1.0);
        assert_eq!(low, base * 4 / 5);
        assert_eq!(high, (base * 6 / 5).min(BACKOFF_MAX_MS));
    }
}

#[test]
fn a_dropped_connection_reconnects_with_backoff_reset_by_registration() {
    let mut c = HubClient::new();
    let mut now = 0;
    let s = registered(&mut c, now);
    // Dropped: wait 1 s, then a failing hub: 2 s, 4 s…
    let mut socket = s;
    for expected in [1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000] {
        let out = c.on_close(socket, now, 0.5, "connection lost");
        assert_eq!(c.status().0, HubStatus::Disconnected);
        let at = wake(&out).expect("a wake-up");
        assert_eq!(at - now, expected);
        assert!(c.on_timer(at - 1, at - 1, 0.5).is_empty(), "not before its time");
        now = at;
        let out = c.on_timer(now, now, 0.5);
        socket = sockets(&out)[0];
        assert_eq!(c.status().0, HubStatus::Connecting);
    }
    // A successful registration resets the backoff.
    c.on_open(socket, now);
    c.on_frame(socket, OK, now, 0.5);
    let out = c.on_close(socket, now, 0.5, "lost");
    assert_eq!(wake(&out).unwrap() - now, 1_000);
}

#[test]
fn a_wake_that_comes_a_moment_early_wakes_again_and_a_stale_one_is_spent() {
    // The soak once stalled for good here: Node fired the reconnect timer a millisecond
    // before `Date.now()` reached it, and nothing woke the client again.
    let mut c = HubClient::new();
    let s = registered(&mut c, 0);
    let at = wake(&c.on_close(s, 0, 0.5, "connection lost")).expect("a wake-up");
    let early = c.on_timer(at - 1, at, 0.5);
    assert_eq!(early, vec![HubAction::Wake { at_ms: at }], "woken early: wake again, nothing else");
    assert!(c.on_timer(at - 1, at / 2, 0.5).is_empty(), "a wake for an earlier phase is spent");
    let s2 = sockets(&c.on_timer(at, at, 0.5))[0];
    assert_ne!(s, s2);
    assert_eq!(c.status().0, HubStatus::Connecting);
    // The same holds for the connection's own deadline.
    let deadline = at + CONNECT_TIMEOUT_MS;
    assert_eq!(c.on_timer(deadline - 1, deadline, 0.5), vec![HubAction::Wake { at_ms: deadline }]);
    assert!(c.on_timer(deadline, deadline, 0.5).contains(&HubAction::Close { socket: s2 }));
}

#[test]
fn permanent_refusals_stop_retrying_and_say_what_to_change() {
    for code in ["INVALID_NAME", "INVALID_DESCRIPTION", "DUPLICATE_NAME"] {
        let mut c = HubClient::new();
        let s = sockets(&c.configure(Some(config("obsidian")), 0))[0];
        c.on_open(s, 0);
        let out = c.on_frame(s, &refused(code), 0, 0.5);
        assert!(out.contains(&HubAction::Close { socket: s }), "{code}");
        assert!(wake(&out).is_none(), "{code}: no retry");
        let (status, detail) = c.status();
        assert_eq!(status, HubStatus::Error);
        assert!(detail.unwrap().contains("Settings"), "{code}");
        assert!(out.iter().any(|a| matches!(a, HubAction::Notice(_))));
        assert!(c.on_timer(1_000_000, 1_000_000, 0.5).is_empty());
        // Changing the name registers again.
        let out = c.configure(Some(config("obsidian2")), 0);
        assert_eq!(sockets(&out).len(), 1, "{code}");
    }
    for code in ["ALREADY_REGISTERED", "VALIDATION_ERROR"] {
        let mut c = HubClient::new();
        let s = sockets(&c.configure(Some(config("obsidian")), 0))[0];
        c.on_open(s, 0);
        let out = c.on_frame(s, &refused(code), 0, 0.5);
        assert_eq!(wake(&out), Some(1_000), "{code} is retried");
    }
}

#[test]
fn invalid_settings_never_reach_the_hub() {
    let mut c = HubClient::new();
    let out = c.configure(Some(config("9lives")), 0);
    assert!(sockets(&out).is_empty());
    assert_eq!(c.status().0, HubStatus::Error);
    assert!(c.status().1.unwrap().contains("must start with a letter"));
}

#[test]
fn changing_name_or_description_registers_again_and_disabling_closes() {
    let mut c = HubClient::new();
    let s = registered(&mut c, 0);
    assert!(c.configure(Some(config("obsidian")), 0).is_empty(), "same settings: nothing to do");
    let mut changed = config("obsidian");
    changed.description = "different".into();
    let out = c.configure(Some(changed), 0);
    assert_eq!(out[0], HubAction::Close { socket: s });
    let s2 = sockets(&out)[0];
    // Issue 16: the registration waits for the old socket's close (the hub frees the name then).
    assert!(frames(&c.on_open(s2, 0)).is_empty(), "not registered before the old socket closed");
    let out = c.on_close(s, 0, 0.5, "closed");
    assert!(matches!(&out[0], HubAction::Send { frame, .. } if frame.contains("different")));
    let out = c.configure(None, 0);
    assert!(out.contains(&HubAction::Close { socket: s2 }));
    assert_eq!(c.status().0, HubStatus::Disabled);
    assert!(c.on_close(s2, 0, 0.5, "closed").is_empty(), "a closed socket's events are ignored");
    // A message already on its way on the closing socket is refused, with a reason.
    let out = c.on_frame(s2, r#"{"type":"message","payload":{"id":"late","text":"hi"}}"#, 0, 0.5);
    assert!(
        matches!(&out[..], [HubAction::Send { socket, frame }] if *socket == s2 && frame.contains("\"reject\"") && frame.contains("turned off"))
    );
}

#[test]
fn an_unanswered_registration_is_abandoned_and_retried() {
    let mut c = HubClient::new();
    let s = sockets(&c.configure(Some(config("obsidian")), 0))[0];
    let out = c.on_open(s, 0);
    assert_eq!(wake(&out), Some(REGISTRATION_TIMEOUT_MS));
    let out = c.on_timer(REGISTRATION_TIMEOUT_MS, REGISTRATION_TIMEOUT_MS, 0.5);
    assert!(out.contains(&HubAction::Close { socket: s }));
    assert_eq!(wake(&out), Some(REGISTRATION_TIMEOUT_MS + 1_000));
}

#[test]
fn a_socket_that_never_opens_is_given_up_and_retried() {
    let mut c = HubClient::new();
    let out = c.configure(Some(config("obsidian")), 0);
    let s = sockets(&out)[0];
    assert_eq!(wake(&out), Some(CONNECT_TIMEOUT_MS));
    assert!(c.on_timer(CONNECT_TIMEOUT_MS - 1, CONNECT_TIMEOUT_MS - 1, 0.5).is_empty(), "still within its time");
    let out = c.on_timer(CONNECT_TIMEOUT_MS, CONNECT_TIMEOUT_MS, 0.5);
    assert!(out.contains(&HubAction::Close { socket: s }));
    assert_eq!(wake(&out), Some(CONNECT_TIMEOUT_MS + 1_000));
    let retry = c.on_timer(CONNECT_TIMEOUT_MS + 1_000, CONNECT_TIMEOUT_MS + 1_000, 0.5);
    assert_eq!(sockets(&retry), [s + 1]);
    assert!(c.on_open(s, CONNECT_TIMEOUT_MS + 1_001).is_empty(), "the abandoned socket opening late changes nothing");
}

#[test]
fn stale_sockets_and_bad_frames_are_ignored() {
    let mut c = HubClient::new();
    let s = registered(&mut c, 0);
    assert!(c.on_frame(s + 7, r#"{"type":"message","payload":{"id":"x","text":"y"}}"#, 0, 0.5).is_empty());
    for bad in ["not json", r#"{"type":"message","payload":"x"}"#, r#"{"type":"mystery","payload":{}}"#] {
        let out = c.on_frame(s, bad, 0, 0.5);
        assert!(matches!(&out[..], [HubAction::Log(LogLevel::Warn, _)]), "{bad}");
    }
    assert_eq!(c.status().0, HubStatus::Connected, "still connected");
    let out = c.on_frame(s, r#"{"type":"message","payload":{"id":"m1","text":"hi"}}"#, 0, 0.5);
    assert!(matches!(&out[..], [HubAction::Deliver(p)] if p["id"] == "m1"));
}

#[test]
fn responses_wait_for_the_next_registration_in_order_if_still_recent() {
    let mut c = HubClient::new();
    let s = registered(&mut c, 0);
    c.on_close(s, 0, 0.5, "lost");
    assert!(c.respond("old", ResponseKind::Ack, "a-old".into(), 0).is_empty());
    assert!(c.respond("old", ResponseKind::Notification, "n-old".into(), 0).is_empty());
    assert!(c.respond("new", ResponseKind::Ack, "a-new".into(), 9 * 60_000).is_empty());
    assert!(c.respond("new", ResponseKind::Notification, "n-new".into(), 9 * 60_000).is_empty());
    assert_eq!(c.queued_responses(), 4);
    let now = 11 * 60_000;
    let s2 = sockets(&c.on_timer(now, now, 0.5))[0];
    c.on_open(s2, now);
    let out = c.on_frame(s2, OK, now, 0.5);
    let sent: Vec<&str> = out
        .iter()
        .filter_map(|a| if let HubAction::Send { frame, .. } = a { Some(frame.as_str()) } else { None })
        .collect();
    assert_eq!(sent, ["a-new", "n-new"], "the ack first; the 11-minute-old message's responses are dropped");
    assert!(out.iter().any(|a| matches!(a, HubAction::Log(_, l) if l.contains("too old"))));
    assert_eq!(c.queued_responses(), 0);
    assert_eq!(
        c.respond("x", ResponseKind::Ack, "ack".into(), now),
        [HubAction::Send { socket: s2, frame: "ack".into() }]
    );
    // Off, nothing is kept.
    c.configure(None, now);
    assert!(matches!(&c.respond("y", ResponseKind::Ack, "ack".into(), now)[..], [HubAction::Log(..)]));
    assert_eq!(c.queued_responses(), 0);
}

fn frames(actions: &[HubAction]) -> Vec<&str> {
    actions
        .iter()
        .filter_map(|a| if let HubAction::Send { frame, .. } = a { Some(frame.as_str()) } else { None })
        .collect()
}

/// Disconnected with a full outbox, then registered again: what waited is sent.
fn fill_then_drop_an_ack(c: &mut HubClient) {
    let s = registered(c, 0);
    c.on_close(s, 0, 0.5, "lost");
    for i in 0..OUTBOX_LIMIT {
        c.respond(&format!("m{i}"), ResponseKind::Ack, format!("a-m{i}"), 0);
    }
    let out = c.respond("late", ResponseKind::Ack, "a-late".into(), 0);
    assert!(matches!(&out[..], [HubAction::Log(LogLevel::Warn, l)] if l.contains("late")));
    // Its answer, still with no room: dropped too, and the ack is still owed.
    let out = c.respond("late", ResponseKind::Notification, "n-late-full".into(), 0);
    assert!(frames(&out).is_empty());
    let s2 = sockets(&c.on_timer(60_000, 60_000, 0.5))[0];
    c.on_open(s2, 60_000);
    let flushed = c.on_frame(s2, OK, 60_000, 0.5);
    assert_eq!(frames(&flushed).len(), OUTBOX_LIMIT);
    assert!(!frames(&flushed).iter().any(|f| f.contains("late")));
}

#[test]
fn an_ack_a_full_outbox_dropped_goes_ahead_of_its_answer_sent_live() {
    let mut c = HubClient::new();
    fill_then_drop_an_ack(&mut c);
    let out = c.respond("late", ResponseKind::Notification, "n-late".into(), 60_000);
    assert_eq!(frames(&out), ["a-late", "n-late"]);
    let out = c.respond("late", ResponseKind::Notification, "n-again".into(), 60_000);
    assert_eq!(frames(&out), ["n-again"], "owed once");
}

#[test]
fn an_ack_a_full_outbox_dropped_waits_ahead_of_its_answer_in_the_next_outbox() {
    let mut c = HubClient::new();
    fill_then_drop_an_ack(&mut c);
    let s = sockets(&c.on_timer(60_000, 60_000, 0.5)).first().copied();
    assert!(s.is_none(), "registered: no new socket");
    let socket = match c.phase {
        Phase::Registered { socket } => socket,
        ref other => panic!("not registered: {other:?}"),
    };
    c.on_close(socket, 60_000, 0.5, "lost again");
    assert!(c.respond("late", ResponseKind::Notification, "n-late".into(), 60_000).is_empty());
    assert_eq!(c.queued_responses(), 2);
    let s3 = sockets(&c.on_timer(120_000, 120_000, 0.5))[0];
    c.on_open(s3, 120_000);
    assert_eq!(frames(&c.on_frame(s3, OK, 120_000, 0.5)), ["a-late", "n-late"]);
}

#[test]
fn a_full_outbox_keeps_what_waits_and_drops_the_newcomer() {
    let mut c = HubClient::new();
    let s = registered(&mut c, 0);
    c.on_close(s, 0, 0.5, "lost");
    c.respond("first", ResponseKind::Ack, "a-first".into(), 0);
    for i in 1..OUTBOX_LIMIT {
        c.respond(&format!("m{i}"), ResponseKind::Ack, format!("a-m{i}"), 0);
    }
    // Full: the queued ack of "first" stays; the newcomers go, ack and notification alike.
    let out = c.respond("first", ResponseKind::Notification, "n-first".into(), 0);
    assert!(matches!(&out[..], [HubAction::Log(LogLevel::Warn, l)] if l.contains("first")));
    c.respond("last", ResponseKind::Ack, "a-last".into(), 0);
    c.respond("last", ResponseKind::Notification, "n-last".into(), 0);
    assert_eq!(c.queued_responses(), OUTBOX_LIMIT);
    let s2 = sockets(&c.on_timer(60_000, 60_000, 0.5))[0];
    c.on_open(s2, 60_000);
    let out = c.on_frame(s2, OK, 60_000, 0.5);
    let sent: Vec<&str> = out
        .iter()
        .filter_map(|a| if let HubAction::Send { frame, .. } = a { Some(frame.as_str()) } else { None })
        .collect();
    assert_eq!(sent.len(), OUTBOX_LIMIT);
    assert_eq!(sent.first(), Some(&"a-first"));
    assert_eq!(sent.last().copied(), Some(format!("a-m{}", OUTBOX_LIMIT - 1).as_str()));
}

#[test]
fn a_new_registration_waits_for_the_old_sockets_close_or_two_seconds() {
    let mut c = HubClient::new();
    let s = registered(&mut c, 0);
    let mut changed = config("obsidian");
    changed.description = "new words".into();
    let s2 = sockets(&c.configure(Some(changed), 0))[0];
    let out = c.on_open(s2, 10);
    assert!(frames(&out).is_empty());
    assert_eq!(wake(&out), Some(10 + CLOSE_WAIT_MS));
    assert!(frames(&c.on_timer(10 + CLOSE_WAIT_MS - 1, 10 + CLOSE_WAIT_MS - 1, 0.5)).is_empty());
    let out = c.on_timer(10 + CLOSE_WAIT_MS, 10 + CLOSE_WAIT_MS, 0.5);
    assert!(matches!(frames(&out)[..], [f] if f.contains("new words")), "registered anyway: {out:?}");
    // The old socket's close, reported late, changes nothing.
    assert!(c.on_close(s, 3_000, 0.5, "closed").is_empty());
    c.on_frame(s2, OK, 3_000, 0.5);
    assert_eq!(c.status().0, HubStatus::Connected);
}

#[test]
fn duplicate_name_for_our_own_previous_connection_is_retried_then_permanent() {
    let mut c = HubClient::new();
    let s = registered(&mut c, 0);
    let mut changed = config("obsidian");
    changed.description = "again".into();
    let s2 = sockets(&c.configure(Some(changed), 0))[0];
    c.on_close(s, 0, 0.5, "closed");
    c.on_open(s2, 0);
    // The hub has not handled the old close yet: our own name is "taken".
    let mut now = 5;
    let mut socket = s2;
    let mut delays = Vec::new();
    loop {
        let out = c.on_frame(socket, &refused("DUPLICATE_NAME"), now, 0.5);
        if c.status().0 == HubStatus::Error {
            assert!(out.iter().any(|a| matches!(a, HubAction::Notice(t) if t.contains("Another app"))));
            break;
        }
        assert_eq!(c.status().0, HubStatus::Connecting, "not an error while it may be ourselves");
        let at = wake(&out).expect("a retry");
        delays.push(at - now);
        now = at;
        socket = sockets(&c.on_timer(now, now, 0.5))[0];
        assert!(!frames(&c.on_open(socket, now)).is_empty(), "registers at once: nothing to wait for");
    }
    assert_eq!(&delays[..5], [250, 500, 1_000, 2_000, 2_000]);
    assert!(
        now > OWN_NAME_GRACE_MS && now <= OWN_NAME_GRACE_MS + NAME_RETRY_MAX_MS + 5,
        "gave up after the grace: {now}"
    );
    // Once the hub lets go, it registers.
    let mut c = HubClient::new();
    let s = registered(&mut c, 0);
    c.on_close(s, 100, 0.5, "connection lost");
    let s2 = sockets(&c.on_timer(1_100, 1_100, 0.5))[0];
    c.on_open(s2, 1_100);
    let out = c.on_frame(s2, &refused("DUPLICATE_NAME"), 1_100, 0.5);
    let s3 = sockets(&c.on_timer(wake(&out).unwrap(), wake(&out).unwrap(), 0.5))[0];
    c.on_open(s3, 1_400);
    c.on_frame(s3, OK, 1_400, 0.5);
    assert_eq!(c.status().0, HubStatus::Connected);
}

#[test]
fn only_a_live_connection_waits_for_identity_changes_to_settle() {
    let mut c = HubClient::new();
    let mut other = config("obsidian");
    other.description = "x".into();
    assert!(!c.is_identity_change(&Some(other.clone())), "off: apply at once");
    registered(&mut c, 0);
    assert!(c.is_identity_change(&Some(other.clone())));
    assert!(!c.is_identity_change(&Some(config("obsidian"))), "unchanged");
    let mut moved = other.clone();
    moved.url = "ws://127.0.0.1:1".into();
    assert!(!c.is_identity_change(&Some(moved)), "a new address is not debounced");
    assert!(!c.is_identity_change(&None), "turning off is not debounced");
}
