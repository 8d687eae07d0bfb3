//! The hub connection through the processor, in virtual time: a routed message answered with an
//! ack and one notification, the hub going away mid-message, refusals, bad frames, re-deliveries,
//! settings changes.

mod common;

use common::*;
use serde_json::json;
use smarthole_agent::testing::{FakeHost, Reply};
use smarthole_agent::Event;
use smarthole_agent::HubStatus;
use smarthole_agent::{Host, Settings};

fn routed(id: &str, text: &str) -> String {
    json!({"type": "message", "payload": {"id": id, "text": text, "timestamp": smarthole_agent::testing::internals::format_iso(smarthole_agent::testing::START_MS),
        "metadata": {"inputMethod": "voice", "directRouted": true}}})
    .to_string()
}

fn refused(code: &str) -> String {
    json!({"type": "registration_response", "payload": {"success": false, "code": code, "message": "no"}}).to_string()
}

/// Lets virtual time pass until the processor asks for a new socket; returns it.
fn next_socket(host: &FakeHost, after: u64) -> u64 {
    for _ in 0..400 {
        if let Some(s) = host.last_hub_socket().filter(|s| *s > after) {
            return s;
        }
        host.run_for(100);
    }
    panic!("no reconnect");
}

#[test]
fn a_routed_message_is_acked_answered_recorded_and_notified_once() {
    let host = FakeHost::new();
    host.script([Reply::slow_text("Added **oat milk** to [[Shopping]].", 10)]);
    let p = processor(&host);
    let socket = host.last_hub_socket().unwrap();
    p.hub_frame(socket, &routed("msg-1", "add oat milk to my shopping list"));
    host.run_for(5_000);
    let frames = host.hub_frames();
    assert_eq!(
        frames.iter().map(|f| f["payload"]["type"].as_str().unwrap()).collect::<Vec<_>>(),
        ["ack", "notification"]
    );
    assert_eq!(frames[0]["payload"]["payload"], json!({}));
    assert_eq!(
        frames[1]["payload"]["payload"],
        json!({"title": "Obsidian", "body": "Added oat milk to Shopping.", "priority": "normal"})
    );
    let lines = history(&host);
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0].source, smarthole_agent::MessageSource::Websocket);
    assert!(inbox(&host).is_empty());
}

#[test]
fn the_hub_going_away_mid_message_loses_nothing_and_the_notification_follows_the_reconnect() {
    let host = FakeHost::new();
    host.script([Reply::slow_text("a long answer, slowly", 200)]);
    let p = processor(&host);
    let first = host.last_hub_socket().unwrap();
    p.hub_frame(first, &routed("msg-2", "summarise my week"));
    host.run_for(300);
    assert_eq!(host.hub_responses("ack").len(), 1);
    // The hub restarts: the connection drops without a close frame.
    p.hub_closed(first, "connection lost (1006)");
    assert_eq!(p.hub_status().0, HubStatus::Disconnected);
    host.run_for(5_000);
    // The answer finished while disconnected; nothing was sent, nothing lost.
    assert!(history(&host).iter().any(|l| l.message_id == "msg-2"));
    assert!(host.hub_responses("notification").is_empty());
    // Reconnect (backoff ~1 s) and register again: the notification arrives.
    let second = next_socket(&host, first);
    p.hub_opened(second);
    p.hub_frame(second, REGISTERED);
    let notes = host.hub_responses("notification");
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0]["payload"]["messageId"], "msg-2");
    // The hub re-delivers the message it lost track of: acked, not processed again.
    p.hub_frame(second, &routed("msg-2", "summarise my week"));
    host.run_for(1_000);
    assert_eq!(host.hub_responses("ack").len(), 2);
    assert_eq!(host.requests().len(), 1, "one model call in all");
    assert_eq!(recorded_count(&host, "msg-2"), 1);
}

#[test]
fn a_notification_too_old_for_the_hub_is_dropped_with_a_log_line() {
    let host = FakeHost::new();
    host.script([Reply::text("done")]);
    let p = processor(&host);
    let first = host.last_hub_socket().unwrap();
    p.hub_closed(first, "hub gone");
    // Processed while the hub is away (a typed message would not notify; this one came earlier).
    host.run(p.process(from_hub("old-msg", "hello")));
    // The hub stays unreachable for 11 minutes: every attempt fails at once.
    let mut socket = first;
    let until = host.now() + 11 * 60_000;
    while host.now() < until {
        socket = next_socket(&host, socket);
        p.hub_closed(socket, "refused");
    }
    socket = next_socket(&host, socket);
    p.hub_opened(socket);
    p.hub_frame(socket, REGISTERED);
    assert!(host.hub_responses("notification").is_empty());
    assert!(host.logs().iter().any(|(_, l)| l.contains("too old to send")));
}

#[test]
fn reconnects_back_off_from_one_to_thirty_seconds() {
    let host = FakeHost::new();
    let p = processor(&host);
    let mut socket = host.last_hub_socket().unwrap();
    p.hub_closed(socket, "lost");
    let mut last = host.now();
    let mut gaps = Vec::new();
    for _ in 0..8 {
        socket = next_socket(&host, socket);
        gaps.push(host.now() - last);
        last = host.now();
        p.hub_closed(socket, "refused");
    }
    for (gap, base) in gaps.iter().zip([1_000u64, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]) {
        assert!(
            *gap >= base * 8 / 10 && *gap <= (base * 12 / 10).min(30_000) + 100,
            "gap {gap} for base {base}: {gaps:?}"
        );
    }
}

#[test]
fn each_permanent_refusal_stops_retrying_and_tells_the_user() {
    for (code, hint) in [
        ("INVALID_NAME", "client name"),
        ("INVALID_DESCRIPTION", "routing description"),
        ("DUPLICATE_NAME", "Another app"),
    ] {
        let host = FakeHost::new();
        let p = processor_with(&host, Settings { hub_enabled: false, ..settings() });
        p.update_settings(settings()).unwrap();
        let socket = host.last_hub_socket().unwrap();
        p.hub_opened(socket);
        p.hub_frame(socket, &refused(code));
        let (status, detail) = p.hub_status();
        assert_eq!(status, HubStatus::Error, "{code}");
        assert!(detail.as_deref().unwrap().contains(hint), "{code}: {detail:?}");
        assert!(host.events().iter().any(|e| matches!(e, Event::Notice { text, .. } if text.contains(hint))));
        assert!(!host.hub_sockets().last().unwrap().2, "{code}: the socket was closed");
        host.run_for(5 * 60_000);
        assert_eq!(host.last_hub_socket(), Some(socket), "{code}: no retry");
        // A new name registers again.
        p.update_settings(Settings { hub_client_name: "obsidian-laptop".into(), ..settings() }).unwrap();
        let again = host.last_hub_socket().unwrap();
        assert!(again > socket);
        p.hub_opened(again);
        assert_eq!(host.hub_registrations().last().unwrap()["payload"]["name"], "obsidian-laptop");
    }
}

#[test]
fn an_invalid_name_in_settings_is_a_clear_error_before_anything_is_sent() {
    let host = FakeHost::new();
    let p = smarthole_agent::MessageProcessor::new(
        host.clone(),
        Settings { hub_client_name: "my notes".into(), ..settings() },
    )
    .unwrap();
    host.run(p.initialize()).unwrap();
    assert!(host.hub_sockets().is_empty());
    let (status, detail) = p.hub_status();
    assert_eq!(status, HubStatus::Error);
    assert!(detail.unwrap().contains("must start with a letter"));
}

#[test]
fn malformed_unknown_and_oversized_frames_are_dropped_and_the_connection_goes_on() {
    let host = FakeHost::new();
    host.script([Reply::text("fine")]);
    let p = processor(&host);
    let socket = host.last_hub_socket().unwrap();
    let oversized = json!({"type": "message", "payload": {"id": "big", "text": "x".repeat(1024 * 1024)}}).to_string();
    for bad in ["{oops", "[]", r#"{"type":"message","payload":"hi"}"#, r#"{"type":"dance","payload":{}}"#, &oversized] {
        p.hub_frame(socket, bad);
    }
    assert_eq!(host.logs().iter().filter(|(_, l)| l.starts_with("dropped a frame from the hub")).count(), 5);
    assert_eq!(p.hub_status().0, HubStatus::Connected);
    // Issue 16: only the oversized message is answered — refused by its id (the hub never
    // re-delivers, so dropping it silently would lose it).
    let frames = host.hub_frames();
    assert_eq!(frames.len(), 1, "{frames:?}");
    assert_eq!(frames[0]["payload"]["type"], "reject");
    assert_eq!(frames[0]["payload"]["messageId"], "big");
    assert!(frames[0]["payload"]["payload"]["reason"].as_str().unwrap().contains("1 MB"));
    // A message with a bad payload is refused with a reason.
    p.hub_frame(socket, r#"{"type":"message","payload":{"id":"bad-1","text":42}}"#);
    let rejects = host.hub_responses("reject");
    assert_eq!(rejects.len(), 2);
    assert!(rejects[1]["payload"]["payload"]["reason"].as_str().unwrap().contains("text must be a string"));
    // Still works.
    p.hub_frame(socket, &routed("good", "hi"));
    host.run_for(1_000);
    assert_eq!(host.hub_responses("notification").len(), 1);
}

#[test]
fn turning_the_hub_off_closes_it_and_a_message_racing_in_is_rejected() {
    let host = FakeHost::new();
    let p = processor(&host);
    let socket = host.last_hub_socket().unwrap();
    p.update_settings(Settings { hub_enabled: false, ..settings() }).unwrap();
    assert_eq!(p.hub_status().0, HubStatus::Disabled);
    assert!(!host.hub_sockets().last().unwrap().2, "closed");
    host.run_for(60_000);
    assert_eq!(host.hub_sockets().len(), 1, "no reconnect when off");
    // FakeHost drops frames on closed sockets, so look at what the processor tried to send.
    p.hub_frame(socket, &routed("late", "hi"));
    assert!(host.logs().iter().any(|(_, l)| l.contains("frame on closed hub socket")), "a reject was attempted");
    assert!(host.requests().is_empty(), "not processed");
    p.update_settings(settings()).unwrap();
    assert_eq!(p.hub_status().0, HubStatus::Connecting);
}

#[test]
fn typed_messages_never_go_to_the_hub() {
    let host = FakeHost::new();
    host.script([Reply::text("ok")]);
    let p = processor(&host);
    host.run(p.process(direct("d", "hi")));
    assert!(host.hub_frames().is_empty());
    let _ = host.now_ms();
}

#[test]
fn typing_a_description_registers_once_after_a_pause_and_never_ends_in_error() {
    let host = FakeHost::new();
    let p = processor(&host);
    let first = host.last_hub_socket().unwrap();
    let registrations = host.hub_registrations().len();
    let mut description = String::from("Notes");
    // Twenty keystrokes, ten a second.
    for c in "and my shopping list".chars() {
        description.push(c);
        p.update_settings(Settings { hub_description: description.clone(), ..settings() }).unwrap();
        host.run_for(100);
        assert_eq!(host.last_hub_socket(), Some(first), "no reconnect while typing");
        assert_ne!(p.hub_status().0, HubStatus::Error);
    }
    host.run_for(1_000);
    let second = host.last_hub_socket().unwrap();
    assert!(second > first, "one reconnect once typing paused");
    assert!(!host.hub_sockets().iter().find(|(s, _, _)| *s == first).unwrap().2, "the old socket closed");
    p.hub_opened(second);
    assert_eq!(host.hub_registrations().len(), registrations, "no registration before the old socket's close");
    p.hub_closed(first, "closed (1000)");
    assert_eq!(host.hub_registrations().len(), registrations + 1);
    assert_eq!(host.hub_registrations().last().unwrap()["payload"]["description"], description.as_str());
    // The hub has not handled the close yet on its side: our own name is refused once.
    p.hub_frame(second, &refused("DUPLICATE_NAME"));
    assert_eq!(p.hub_status().0, HubStatus::Connecting);
    assert!(!host.events().iter().any(|e| matches!(e, Event::Notice { text, .. } if text.contains("Another app"))));
    let third = next_socket(&host, second);
    p.hub_opened(third);
    p.hub_frame(third, REGISTERED);
    assert_eq!(p.hub_status().0, HubStatus::Connected);
    assert_eq!(host.hub_sockets().len(), 3);
}

/// Runs virtual time until `done`, at most `limit_ms`.
fn run_until(host: &FakeHost, limit_ms: u64, done: impl Fn() -> bool) {
    let until = host.now() + limit_ms;
    while !done() && host.now() < until {
        host.run_for(500);
    }
}

fn bodies(host: &FakeHost) -> Vec<String> {
    host.hub_responses("notification")
        .iter()
        .map(|n| n["payload"]["payload"]["body"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// Issue 32, point 12: the hub routes 110 messages before the first is answered, and remembers
/// only its last 100 deliveries: m0 to m9 are forgotten before their answers are ready.
#[test]
fn a_hundred_and_ten_messages_routed_at_once_are_all_named_under_ids_the_hub_still_knows() {
    let host = FakeHost::new();
    let p = processor(&host);
    let socket = host.last_hub_socket().unwrap();
    for i in 0..110 {
        host.script_matching(&format!("remember item {i}\""), Reply::text(&format!("Noted item {i}.")));
    }
    for i in 0..110 {
        p.hub_frame(socket, &routed(&format!("m{i}"), &format!("remember item {i}")));
    }
    let all_named = || (0..110).all(|i| bodies(&host).iter().any(|b| b.contains(&format!("Noted item {i}."))));
    run_until(&host, 10 * 60_000, all_named);
    let notes = host.hub_responses("notification");
    let ids: Vec<&str> = notes.iter().map(|n| n["payload"]["messageId"].as_str().unwrap()).collect();
    let known = |id: &str| id[1..].parse::<usize>().is_ok_and(|n| n >= 10);
    assert!(ids.iter().all(|id| known(id)), "every notification under an id the hub knows: {ids:?}");
    for i in 0..110 {
        assert!(
            bodies(&host).iter().any(|b| b.contains(&format!("Noted item {i}."))),
            "answer {i} named: {:?}",
            bodies(&host)
        );
    }
    assert!(bodies(&host).iter().all(|b| !b.contains("more")), "no answer left as a count");
}

/// Issue 32, point 13: the hub restarted (the connection was lost) and the answer was ready only
/// after registering again: the new hub never routed that id.
#[test]
fn an_answer_ready_after_reconnecting_to_a_restarted_hub_is_shown_in_obsidian_logged_and_still_sent() {
    let host = FakeHost::new();
    host.script([Reply::slow_text("Your week: three meetings.", 1_000)]);
    let p = processor(&host);
    let first = host.last_hub_socket().unwrap();
    p.hub_frame(first, &routed("msg-r", "summarise my week"));
    host.run_for(200);
    p.hub_closed(first, "connection lost (1006)");
    let second = next_socket(&host, first);
    p.hub_opened(second);
    p.hub_frame(second, REGISTERED);
    assert!(history(&host).is_empty(), "answered only after registering again");
    run_until(&host, 60_000, || !history(&host).is_empty());
    host.run_for(1_000);
    assert!(host.events().iter().any(|e| matches!(e, Event::Notice { text, .. }
        if text == "SmartHole hub unavailable. Answer to “summarise my week”: Your week: three meetings.")));
    assert!(host.logs().iter().any(|(_, l)| l.starts_with("the hub may not know msg-r")), "{:?}", host.logs());
    let notes = host.hub_responses("notification");
    assert_eq!(notes.len(), 1, "still sent");
    assert_eq!(notes[0]["payload"]["messageId"], "msg-r");
    // A message routed on the new connection is known to the hub: its answer needs no notice.
    let notices = host.events().iter().filter(|e| matches!(e, Event::Notice { .. })).count();
    host.script([Reply::text("Fine.")]);
    p.hub_frame(second, &routed("msg-new", "hello"));
    run_until(&host, 60_000, || host.hub_responses("notification").len() == 2);
    assert_eq!(host.events().iter().filter(|e| matches!(e, Event::Notice { .. })).count(), notices);
}

/// Issue 32, point 14: eight 500s in a row — two attempts' worth. The hub says what the chat says
/// while the plugin waits to try again, never "Please try again later", and then the answer.
#[test]
fn eight_server_errors_tell_the_hub_the_waits_then_the_answer_never_to_try_again() {
    let host = FakeHost::new();
    host.script((0..8).map(|_| Reply::error(500, "api_error")));
    host.script([Reply::text("Added milk.")]);
    let p = processor(&host);
    let socket = host.last_hub_socket().unwrap();
    p.hub_frame(socket, &routed("msg-500", "add milk to my list"));
    run_until(&host, 10 * 60_000, || bodies(&host).iter().any(|b| b == "Added milk."));
    assert_eq!(
        bodies(&host),
        [
            "Waiting to try again in 1 min (attempt 2 of 5).",
            "Waiting to try again in 2 min (attempt 3 of 5).",
            "Added milk."
        ]
    );
    assert_eq!(host.hub_responses("ack").len(), 1);
}

#[test]
fn a_wait_to_try_again_while_the_hub_is_away_is_not_sent_late() {
    let host = FakeHost::new();
    host.script((0..4).map(|_| Reply::error(500, "api_error")));
    host.script([Reply::text("Added milk.")]);
    let p = processor(&host);
    let first = host.last_hub_socket().unwrap();
    p.hub_frame(first, &routed("msg-away", "add milk to my list"));
    host.run_for(100);
    p.hub_closed(first, "connection lost (1006)");
    run_until(&host, 30_000, || {
        host.events().iter().any(|e| matches!(e, Event::Notice { text, .. } if text.starts_with("Waiting")))
    });
    let second = next_socket(&host, first);
    p.hub_opened(second);
    p.hub_frame(second, REGISTERED);
    run_until(&host, 5 * 60_000, || !bodies(&host).is_empty());
    assert_eq!(bodies(&host), ["Added milk."]);
}

#[test]
fn a_failure_that_is_not_tried_again_still_tells_the_hub_the_error() {
    let host = FakeHost::new();
    host.script([Reply::error(401, "authentication_error")]);
    let p = processor(&host);
    let socket = host.last_hub_socket().unwrap();
    p.hub_frame(socket, &routed("msg-401", "add milk"));
    run_until(&host, 60_000, || !bodies(&host).is_empty());
    assert_eq!(bodies(&host), ["Error: API key is missing or invalid"]);
    assert_eq!(host.hub_responses("notification")[0]["payload"]["payload"]["priority"], "high");
}
