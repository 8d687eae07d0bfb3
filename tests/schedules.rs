//! Schedules and the worker, in virtual time: cron runs across daylight-saving changes, no
//! double run when a run outlasts the tick, missed runs at start-up run once, a worker run never
//! overlaps a chat turn, pause after 3 failures. A job over its life is `schedule_jobs.rs`.

mod common;

use common::schedules::*;
use common::*;
use serde_json::json;
use smarthole_agent::testing::{FakeHost, Reply};
use smarthole_agent::ConversationStatus;
use smarthole_agent::Event;
use smarthole_agent::Host;
use smarthole_agent::ScheduleChange;

#[test]
fn cron_runs_follow_croner_across_both_daylight_saving_changes() {
    let host = host_at("2026-03-26T12:00:00Z", "Europe/Paris");
    let p = processor(&host);
    let (told, is_error) =
        create(&host, &p, "a", json!({"type": "cron", "expression": "30 2 * * *", "task": "water the plants"}));
    assert!(!is_error, "{told}");
    assert!(told.contains("first run at 2026-03-27T01:30:00.000Z"), "{told}");
    host.run_for(5 * DAY);
    // 02:30 does not exist on 29 March in Paris: croner runs it at 03:00 (01:00 UTC).
    assert_eq!(
        due_times(&host),
        [
            "2026-03-27T01:30:00.000Z",
            "2026-03-28T01:30:00.000Z",
            "2026-03-29T01:00:00.000Z",
            "2026-03-30T00:30:00.000Z",
            "2026-03-31T00:30:00.000Z"
        ]
    );
    for (at, (_, due, ok)) in run_requests(&host).iter().zip(runs(&host)) {
        assert!(ok);
        assert!(*at >= due && *at < due + 30_000, "run at its time, within a tick");
    }

    let host = host_at("2026-10-22T12:00:00Z", "Europe/Paris");
    let p = processor(&host);
    create(&host, &p, "a", json!({"type": "cron", "expression": "30 2 * * *", "task": "water the plants"}));
    host.run_for(5 * DAY);
    // 02:30 happens twice on 25 October: one run.
    assert_eq!(
        due_times(&host),
        [
            "2026-10-23T00:30:00.000Z",
            "2026-10-24T00:30:00.000Z",
            "2026-10-25T00:30:00.000Z",
            "2026-10-26T01:30:00.000Z",
            "2026-10-27T01:30:00.000Z"
        ]
    );
}

#[test]
fn a_run_that_outlasts_the_tick_runs_once() {
    let host = FakeHost::new();
    let p = processor(&host);
    create(&host, &p, "a", json!({"type": "immediate", "task": "write a long report"}));
    // 300 chunks, one a second: the run takes five minutes, ten ticks.
    host.script_matching("Scheduled run (", Reply::slow_text(&"word ".repeat(300), 1_000));
    host.run_for(20 * MINUTE);
    assert_eq!(run_requests(&host).len(), 1, "one model call for the run");
    assert_eq!(runs(&host).len(), 1);
    let conversation = host.run(p.conversations()).unwrap().pop().unwrap();
    assert_eq!(conversation.schedule, None, "a one-time run clears its schedule");
    assert_eq!(conversation.status, ConversationStatus::Active);
}

#[test]
fn runs_missed_while_the_app_was_closed_run_once_at_start_up() {
    let host = host_at("2026-02-05T10:10:00Z", "UTC");
    let p = processor(&host);
    create(&host, &p, "a", json!({"type": "cron", "expression": "0 * * * *", "task": "check the inbox note"}));
    p.dispose();
    drop(p);
    // Closed for five hours: 11:00 … 15:00 are missed.
    host.advance(5 * HOUR);
    let p = processor(&host);
    host.run_for(MINUTE);
    assert_eq!(due_times(&host), ["2026-02-05T11:00:00.000Z"], "one run for all the missed times");
    let schedule = scheduled_conversation(&host, &p).schedule.unwrap();
    assert_eq!(schedule.next_run_at.as_deref(), Some("2026-02-05T16:00:00.000Z"), "then the next time after now");
    assert_eq!(schedule.runs, 1);
    host.run_for(HOUR);
    assert_eq!(due_times(&host).len(), 2);
}

#[test]
fn a_scheduled_run_waits_for_the_chat_turn_in_flight() {
    let host = host_at("2026-02-05T10:58:00Z", "UTC");
    let p = processor(&host);
    create(&host, &p, "a", json!({"type": "cron", "expression": "0 * * * *", "task": "tidy up"}));
    // A chat answer that takes five minutes is under way when the 11:00 run comes due.
    host.script([Reply::slow_text(&"long ".repeat(300), 1_000)]);
    let chat = p.process(direct("b", "tell me a long story"));
    let (result, ()) = host.run(futures::future::join(chat, host.sleep(10 * MINUTE)));
    assert!(result.success);
    let chat_request = host.requests_matching("tell me a long story")[0].at_ms;
    let run = run_requests(&host)[0];
    assert!(
        run >= chat_request + 300_000,
        "the run's model call ({run}) came after the chat answer finished ({chat_request} + 5 min)"
    );
    let order: Vec<String> = host
        .events()
        .into_iter()
        .filter_map(|e| match e {
            Event::Response { result, .. } => Some(result.message_id),
            _ => None,
        })
        .collect();
    let chat_done = order.iter().position(|id| id == "b").unwrap();
    let run_done = order.iter().position(|id| id.starts_with("worker-")).unwrap();
    assert!(chat_done < run_done);
}

#[test]
fn three_failed_runs_in_a_row_pause_the_job_until_resumed() {
    let host = host_at("2026-02-05T10:00:30Z", "UTC");
    let p = processor(&host);
    create(&host, &p, "a", json!({"type": "cron", "expression": "*/10 * * * *", "task": "sync"}));
    for _ in 0..3 {
        host.script_matching("Scheduled run (", Reply::error(400, "invalid_request_error"));
    }
    host.run_for(HOUR);
    let attempts: Vec<bool> = runs(&host).into_iter().map(|(_, _, ok)| ok).collect();
    assert_eq!(attempts, [false, false, false], "no run after the third failure");
    let conversation = scheduled_conversation(&host, &p);
    let schedule = conversation.schedule.clone().unwrap();
    assert!(schedule.paused);
    assert_eq!(schedule.failures, 3);
    assert!(schedule.last_error.is_some());
    let paused_notice =
        host.events().into_iter().any(|e| matches!(e, Event::Notice { text, .. } if text.contains("paused")));
    assert!(paused_notice, "the user is told");
    assert!(
        inbox(&host).is_empty() && host.paths_under("failed").is_empty(),
        "failed runs are not retried from the inbox"
    );

    host.run(p.change_schedule(&conversation.id, ScheduleChange::Resume)).unwrap();
    host.run_for(10 * MINUTE);
    assert!(runs(&host).last().unwrap().2, "runs again once resumed");
    assert_eq!(scheduled_conversation(&host, &p).schedule.unwrap().failures, 0);
}
