//! Random interleavings, hunting for lost or doubled messages. Each case runs a few sessions
//! of the processor on one FakeHost; in a session, messages (hub and direct, with plain,
//! streamed, failing-then-retried and tool-calling answers) arrive at random times, while a
//! Stop, a hub drop, worker timer ticks and a crash may strike at random moments. A last session restarts and
//! finishes the inbox. Then:
//! - every message that reached the inbox is recorded exactly once, or is in `failed/`, or was
//!   stopped (and then is recorded nowhere);
//! - nothing is sent to the hub for a stopped message;
//! - no tool runs twice;
//! - every history file loads without a corrupt line.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use common::*;
use futures::future::join_all;
use proptest::prelude::*;
use serde_json::json;
use smarthole_agent::testing::internals::parse_log;
use smarthole_agent::testing::{FakeHost, Reply};
use smarthole_agent::Host;
use smarthole_agent::MessageProcessor;
use smarthole_agent::{Event, Stage};

#[derive(Debug, Clone)]
struct Arrival {
    at_ms: u64,
    from_hub: bool,
    answer: Answer,
}

/// How the scripted model answers a message.
#[derive(Debug, Clone, Copy)]
enum Answer {
    /// Plain text.
    Text,
    /// Text streamed slowly.
    SlowText,
    /// Overloaded (529), then retried.
    Overloaded,
    /// Calls `send_message`.
    SendsMessage,
    /// Calls `create_schedule` for a task the worker runs at once.
    SchedulesTask,
}

/// Every kind of answer, equally likely.
fn answer() -> impl Strategy<Value = Answer> {
    prop_oneof![
        Just(Answer::Text),
        Just(Answer::SlowText),
        Just(Answer::Overloaded),
        Just(Answer::SendsMessage),
        Just(Answer::SchedulesTask),
    ]
}

#[derive(Debug, Clone)]
struct Session {
    arrivals: Vec<Arrival>,
    stop_at_ms: Option<u64>,
    hub_drop_at_ms: Option<u64>,
    /// Crash when the host has emitted this many more events.
    crash_after_events: Option<usize>,
    /// Worker timer ticks (a schedule check through the same queue).
    ticks_at_ms: Vec<u64>,
}

fn session() -> impl Strategy<Value = Session> {
    let arrival = (0u64..3_000, any::<bool>(), answer()).prop_map(|(at_ms, from_hub, answer)| Arrival {
        at_ms,
        from_hub,
        answer,
    });
    (
        prop::collection::vec(arrival, 1..5),
        prop::option::of(0u64..4_000),
        prop::option::of(0u64..4_000),
        prop::option::of(1usize..60),
        prop::collection::vec(0u64..4_000, 0..3),
    )
        .prop_map(|(arrivals, stop_at_ms, hub_drop_at_ms, crash_after_events, ticks_at_ms)| Session {
            arrivals,
            stop_at_ms,
            hub_drop_at_ms,
            crash_after_events,
            ticks_at_ms,
        })
}

/// What a case observed, by message id.
#[derive(Default)]
struct Ledger {
    sent: Vec<String>,
    /// Stopped messages, with how many hub frames had been sent when Stop was pressed.
    stopped: BTreeMap<String, usize>,
}

fn run_session(host: &FakeHost, ledger: &Rc<RefCell<Ledger>>, n: usize, s: &Session) {
    let p = processor(host);
    let socket = host.last_hub_socket();
    let _ = host.run(p.reprocess_pending());
    let mut work = Vec::new();
    for (i, arrival) in s.arrivals.iter().enumerate() {
        let id = format!("s{n}-m{i}");
        let text = format!("token-{id}");
        let tool_id = format!("tool-{id}");
        match arrival.answer {
            Answer::Text => host.script_matching(&text, Reply::text(&format!("answer to {id}"))),
            Answer::SlowText => {
                host.script_matching(&text, Reply::slow_text(&format!("slow answer to {id} in several words"), 300))
            }
            Answer::Overloaded => host.script_matching(&text, Reply::error(529, "overloaded_error")),
            // Tools: asked for until the model sees the tool's result, so a retry or a restart
            // that forgot the tool already ran would run it again.
            Answer::SendsMessage => host.script_until(
                &text,
                &tool_id,
                Reply::tools("", &[(&tool_id, "send_message", json!({"message": format!("note for {id}")}))]),
            ),
            Answer::SchedulesTask => host.script_until(
                &text,
                &tool_id,
                Reply::tools(
                    "",
                    &[(
                        &tool_id,
                        "create_schedule",
                        json!({"type": "immediate", "task": format!("tidy up after {id}")}),
                    )],
                ),
            ),
        }
        ledger.borrow_mut().sent.push(id.clone());
        let raw = if arrival.from_hub { from_hub(&id, &text) } else { direct(&id, &text) };
        let (h, p2) = (host.clone(), p.clone());
        let at = arrival.at_ms;
        work.push(Box::pin(async move {
            h.sleep(at).await;
            p2.process(raw).await;
        }) as std::pin::Pin<Box<dyn std::future::Future<Output = ()>>>);
    }
    if let Some(at) = s.stop_at_ms {
        let (h, p2, ledger) = (host.clone(), p.clone(), Rc::clone(ledger));
        work.push(Box::pin(async move {
            h.sleep(at).await;
            // After a crash point nothing the user does reaches the (dead) process.
            if h.is_frozen() {
                return;
            }
            if let Some(id) = p2.current_message_id() {
                let frames = h.hub_frames().len();
                if p2.cancel_current_processing() {
                    ledger.borrow_mut().stopped.insert(id, frames);
                }
            }
        }));
    }
    for &at in &s.ticks_at_ms {
        let (h, p2) = (host.clone(), p.clone());
        work.push(Box::pin(async move {
            h.sleep(at).await;
            p2.worker_tick().await;
        }));
    }
    if let (Some(at), Some(socket)) = (s.hub_drop_at_ms, socket) {
        let (h, p2) = (host.clone(), p.clone());
        work.push(Box::pin(async move {
            h.sleep(at).await;
            p2.hub_closed(socket, "the hub went away");
        }));
    }
    match s.crash_after_events {
        Some(k) => {
            let mut count = 0;
            let _ = host.run_until(join_all(work), move |_| {
                count += 1;
                count >= k
            });
        }
        None => {
            host.run(join_all(work));
        }
    }
    p.dispose();
}

fn check(host: &FakeHost, ledger: &Ledger) -> Result<(), TestCaseError> {
    let events = host.events();
    let reached_inbox: BTreeSet<String> = events
        .iter()
        .filter_map(|e| match e {
            Event::Stage { message_id, stage: Stage::InboxWritten, .. } => Some(message_id.clone()),
            _ => None,
        })
        .collect();
    let failed: BTreeSet<String> = host
        .paths_under("failed")
        .iter()
        .filter_map(|p| p.strip_prefix("failed/")?.strip_suffix(".json"))
        .map(str::to_owned)
        .collect();
    for id in &ledger.sent {
        let recorded = recorded_count(host, id);
        prop_assert!(recorded <= 1, "{id} recorded {recorded} times");
        if let Some(&frames_at_stop) = ledger.stopped.get(id) {
            prop_assert_eq!(recorded, 0, "{} was stopped yet recorded", id);
            let notified = host.hub_frames()[frames_at_stop..].iter().any(|f| {
                f["type"] == "response"
                    && f["payload"]["type"] == "notification"
                    && f["payload"]["messageId"] == id.as_str()
            });
            prop_assert!(!notified, "a notification went out for the stopped {}", id);
        } else if reached_inbox.contains(id) {
            prop_assert!(recorded == 1 || failed.contains(id), "{id} reached the inbox but ended nowhere");
        }
    }
    prop_assert!(inbox(host).is_empty(), "the inbox is empty at the end: {:?}", inbox(host));
    // Worker runs (and everything else) are recorded at most once too.
    let mut turns: BTreeMap<String, usize> = BTreeMap::new();
    for line in history(host).iter().filter(|l| l.id.ends_with("#0")) {
        *turns.entry(line.message_id.clone()).or_default() += 1;
    }
    for (id, times) in turns {
        prop_assert!(times == 1, "{id} opens {times} turns");
    }
    // No tool ran twice: each send_message call showed its note at most once.
    let mut shown: BTreeMap<String, usize> = BTreeMap::new();
    for e in &events {
        if let Event::AgentMessage { content, .. } = e {
            *shown.entry(content.clone()).or_default() += 1;
        }
    }
    for (note, times) in shown {
        prop_assert!(times <= 1, "{note:?} shown {times} times");
    }
    for path in
        host.paths_under("conversations").iter().filter(|p| p.ends_with(".jsonl") && !p.ends_with("archive.jsonl"))
    {
        let loaded = parse_log(&host.file(path).unwrap_or_default());
        prop_assert!(loaded.warnings.is_empty(), "{path}: {:?}", loaded.warnings);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(64),
        ..ProptestConfig::default()
    })]

    #[test]
    fn no_message_is_lost_doubled_or_answered_after_a_stop(sessions in prop::collection::vec(session(), 1..4)) {
        let host = FakeHost::new();
        let ledger = Rc::new(RefCell::new(Ledger::default()));
        for (n, s) in sessions.iter().enumerate() {
            run_session(&host, &ledger, n, s);
        }
        // The last start: nothing strikes; it finishes what the others left.
        let p: MessageProcessor<FakeHost> = processor(&host);
        let _ = host.run(p.reprocess_pending());
        host.run_for(60_000);
        check(&host, &ledger.borrow())?;
    }
}
