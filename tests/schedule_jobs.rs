//! A scheduled job over its life (seed 001): a one-time run in its own conversation, bad schedules
//! explained to the model, state carried between runs, pausing and deleting from the chat view, a
//! question that holds the job, a crash during a run, the cache a run asks for, and a long job
//! going on in a new conversation.

mod common;

use common::schedules::*;
use common::*;
use serde_json::{json, Value};
use smarthole_agent::testing::{FakeHost, Reply};
use smarthole_agent::Event;
use smarthole_agent::Host;
use smarthole_agent::ScheduleChange;
use smarthole_agent::{ConversationStatus, LineRole};

#[test]
fn a_one_time_run_happens_at_its_time_in_its_own_conversation_then_the_schedule_goes() {
    let host = host_at("2026-02-05T10:00:00Z", "UTC");
    let p = processor(&host);
    let (told, _) = create(
        &host,
        &p,
        "a",
        json!({"type": "scheduled", "run_at": "2026-02-05T12:00:00+01:00", "task": "remind me to call Bob"}),
    );
    assert!(told.contains("first run at 2026-02-05T11:00:00.000Z"), "{told}");
    let background = scheduled_conversation(&host, &p);
    assert_eq!(background.status, ConversationStatus::Background);
    // The user starts another chat meanwhile.
    host.run(p.new_conversation()).unwrap();
    host.script([Reply::text("Hi!")]);
    host.run(p.process(direct("b", "hello")));
    host.script_matching("Scheduled run (", Reply::text("Reminder: call Bob."));
    host.run_for(2 * HOUR);
    assert_eq!(due_times(&host), ["2026-02-05T11:00:00.000Z"]);
    let lines = host.run(p.conversation_lines(&background.id)).unwrap();
    let run_lines: Vec<&str> = lines.iter().map(|l| l.source.as_str()).collect();
    assert!(
        run_lines.ends_with(&["worker", "worker"]),
        "the run's lines are in the background conversation: {run_lines:?}"
    );
    let current = host.run(p.current_conversation()).unwrap();
    assert_ne!(current.id, background.id, "the user's chat is untouched");
    let after = host.run(p.conversations()).unwrap().into_iter().find(|c| c.id == background.id).unwrap();
    assert_eq!((after.schedule, after.status), (None, ConversationStatus::Active));
    let notified = host
        .events()
        .into_iter()
        .any(|e| matches!(e, Event::ScheduledRun { ok: true, text, .. } if text.contains("Reminder: call Bob.")));
    assert!(notified, "the chat view hears of the run");
    // The run's arrival names its conversation, so a view showing another one leaves it out;
    // the user's own message goes to whichever conversation is current.
    let received: Vec<(String, Option<String>)> = host
        .events()
        .into_iter()
        .filter_map(|e| match e {
            Event::MessageReceived { message, conversation_id } => Some((message.id, conversation_id)),
            _ => None,
        })
        .collect();
    assert!(received.iter().any(|(id, c)| id == "b" && c.is_none()), "{received:?}");
    assert!(received.iter().any(|(id, c)| id.starts_with("worker-") && c.as_deref() == Some(&background.id[..])));
    // And so does every other event about the run (stages, streamed text, tools, its response),
    // so the view needs to remember nothing; no event about the user's message names one.
    let mut about_run = 0;
    for event in host.events() {
        let json = serde_json::to_value(&event).unwrap();
        let id = json.get("messageId").or_else(|| json.pointer("/result/messageId")).and_then(|v| v.as_str());
        let named = json.get("conversationId").and_then(|v| v.as_str());
        match id {
            Some(id) if id.starts_with("worker-") => {
                about_run += 1;
                assert_eq!(named, Some(&background.id[..]), "{json}");
            }
            Some("b") => assert_eq!(named, None, "{json}"),
            _ => {}
        }
    }
    assert!(about_run >= 5, "stages, text and the response of the run: {about_run}");
}

#[test]
fn bad_schedules_are_explained_to_the_model_and_nothing_is_scheduled() {
    let host = FakeHost::new();
    let p = processor(&host);
    for (i, (input, expected)) in [
        (json!({"type": "cron", "expression": "0 8 * * * *", "task": "x"}), "has 6 fields"),
        (json!({"type": "cron", "expression": "61 8 * * *", "task": "x"}), "is not valid"),
        (json!({"type": "cron", "expression": " , *    4 * 2  ", "task": "x"}), "empty entry in its minute list"),
        (json!({"type": "cron", "expression": "0 8,,9 * * *", "task": "x"}), "empty entry in its hour list"),
        (
            json!({"type": "cron", "expression": "0 8 * * *", "time_zone": "Mars/Base", "task": "x"}),
            "unknown time zone",
        ),
        (json!({"type": "scheduled", "run_at": "2020-01-01T00:00:00Z", "task": "x"}), "is in the past"),
        (json!({"type": "scheduled", "run_at": "next friday", "task": "x"}), "ISO 8601"),
        (json!({"type": "weekly", "task": "x"}), "must be one of"),
        (json!({"type": "immediate"}), "missing field `task`"),
        (json!({"type": "immediate", "task": "x", "state": {"stage": 1}}), "unknown field `stage`"),
    ]
    .into_iter()
    .enumerate()
    {
        let (told, is_error) = create(&host, &p, &format!("m{i}"), input.clone());
        assert!(is_error && told.contains(expected), "{input}: {told}");
    }
    assert!(host.run(p.scheduled()).is_empty());
}

#[test]
fn state_updates_merge_and_the_next_run_sees_them() {
    let host = host_at("2026-02-05T10:00:00Z", "UTC");
    let p = processor(&host);
    create(
        &host,
        &p,
        "a",
        json!({"type": "cron", "expression": "0 * * * *", "task": "count new notes", "state": {"step": "start", "data": {"seen": 0}}}),
    );
    host.script_matching(
        "Scheduled run (",
        Reply::tools("", &[("u1", "state_update", json!({"step": "counting", "data": {"seen": 4, "last": "a.md"}}))]),
    );
    host.run_for(HOUR + MINUTE);
    let state = scheduled_conversation(&host, &p).state;
    assert_eq!(state.step.as_deref(), Some("counting"));
    assert_eq!(state.data.get("seen"), Some(&json!(4)));
    assert_eq!(state.data.len(), 2);
    host.run_for(HOUR);
    let second = message_context(&host.requests_matching("Scheduled run (").last().unwrap().body);
    assert!(second.contains(r#""step":"counting""#) && second.contains("count new notes"), "{second}");
}

#[test]
fn pausing_and_deleting_from_the_chat_view() {
    let host = host_at("2026-02-05T10:00:00Z", "UTC");
    let p = processor(&host);
    create(&host, &p, "a", json!({"type": "cron", "expression": "*/5 * * * *", "task": "poll"}));
    let id = scheduled_conversation(&host, &p).id;
    let paused = host.run(p.change_schedule(&id, ScheduleChange::Pause)).unwrap();
    assert!(paused.schedule.as_ref().unwrap().paused);
    host.run_for(HOUR);
    assert!(runs(&host).is_empty(), "a paused job does not run");
    let deleted = host.run(p.change_schedule(&id, ScheduleChange::Delete)).unwrap();
    assert_eq!((deleted.schedule, deleted.status), (None, ConversationStatus::Active));
    assert!(host.run(p.change_schedule(&id, ScheduleChange::Pause)).is_err(), "nothing left to pause");
}

#[test]
fn a_question_holds_the_job_and_the_answer_returns_it_to_the_background() {
    let host = host_at("2026-02-05T10:00:00Z", "UTC");
    let p = processor(&host);
    create(&host, &p, "a", json!({"type": "cron", "expression": "*/10 * * * *", "task": "report"}));
    host.script([Reply::tools(
        "",
        &[("q1", "needs_input", json!({"type": "choice", "prompt": "Which folder?", "options": ["Work", "Home"]}))],
    )]);
    host.run(p.process(direct("b", "change where the reports go")));
    let waiting = scheduled_conversation(&host, &p);
    assert_eq!(waiting.status, ConversationStatus::WaitingInput);
    host.run_for(30 * MINUTE);
    assert!(runs(&host).is_empty(), "the worker leaves a conversation waiting for the user");

    // Off-topic: the user asks something else; the question stays open.
    host.script([Reply::tools("It is 10:30.", &[("k1", "keep_question_open", json!({}))]), Reply::text("")]);
    host.run(p.process(direct("c", "what time is it?")));
    let still = scheduled_conversation(&host, &p);
    assert_eq!(still.status, ConversationStatus::WaitingInput);
    assert_eq!(still.state.pending_question.as_ref().unwrap().prompt, "Which folder?");

    host.script([Reply::text("Reports go to Work from now on.")]);
    host.run(p.process(direct("d", "Work")));
    let answered = scheduled_conversation(&host, &p);
    assert_eq!(answered.status, ConversationStatus::Background, "back to its background work");
    assert!(answered.state.pending_question.is_none());
    host.run_for(10 * MINUTE);
    assert_eq!(runs(&host).len(), 1);
}

#[test]
fn a_crash_during_a_run_is_finished_once_after_the_restart() {
    let host = host_at("2026-02-05T10:00:00Z", "UTC");
    let p = processor(&host);
    create(&host, &p, "a", json!({"type": "cron", "expression": "0 11 * * *", "task": "daily digest"}));
    host.script_matching("Scheduled run (", Reply::slow_text("The digest is", 1_000));
    let crashed = host.run_until(
        host.sleep(2 * HOUR),
        |e| matches!(e, Event::TextDelta { message_id, .. } if message_id.starts_with("worker-")),
    );
    assert!(crashed.is_none(), "the app died in the middle of the run");
    drop(p);
    let claimed = host.file("conversations/index.json").unwrap();
    assert!(claimed.contains("\"currentRun\":\"worker-"), "the run was claimed before it started");

    host.script_matching("Scheduled run (", Reply::text("Digest: 3 new notes."));
    let p = processor(&host);
    host.run(p.reprocess_pending()).unwrap();
    host.run_for(MINUTE);
    let finished: Vec<_> = runs(&host).into_iter().filter(|(_, _, ok)| *ok).collect();
    assert_eq!(finished.len(), 1, "the interrupted run is finished, and no second run is claimed");
    let conversation = scheduled_conversation(&host, &p);
    let schedule = conversation.schedule.unwrap();
    assert_eq!((schedule.runs, schedule.current_run), (1, None));
    assert_eq!(schedule.next_run_at.as_deref(), Some("2026-02-06T11:00:00.000Z"));
    let lines = host.run(p.conversation_lines(&conversation.id)).unwrap();
    assert_eq!(
        lines.iter().filter(|l| l.source.as_str() == "worker" && l.role == LineRole::User).count(),
        1,
        "recorded once"
    );
}

/// Issue 17: a run whose next run comes 5 to 55 minutes later asks for the one-hour cache TTL on
/// every breakpoint (so the next run reads its conversation instead of writing it again); an
/// hourly run, and every chat turn, keep the default five minutes.
#[test]
fn runs_a_quarter_hour_apart_ask_for_the_one_hour_cache_and_hourly_runs_do_not() {
    let ttls = |body: &Value| -> Vec<String> {
        let text = body.to_string();
        let marks: Vec<String> = text
            .match_indices("\"cache_control\":")
            .map(|(i, _)| text[i..].split('}').next().unwrap_or("").to_owned())
            .collect();
        assert!(!marks.is_empty() && marks.len() <= 4, "{marks:?}");
        marks
    };
    for (expression, one_hour) in [("*/15 * * * *", true), ("0 * * * *", false)] {
        let host = host_at("2026-02-05T10:00:00Z", "UTC");
        let p = processor(&host);
        create(&host, &p, "a", json!({"type": "cron", "expression": expression, "task": "check the inbox note"}));
        let chat = host.requests().last().unwrap().body.clone();
        assert!(ttls(&chat).iter().all(|m| !m.contains("1h")), "a chat turn keeps five minutes");
        host.script_matching("Scheduled run (", Reply::text("checked"));
        host.run_for(HOUR + MINUTE);
        let run = host.requests_matching("Scheduled run (").last().expect("a run").body.clone();
        let marks = ttls(&run);
        assert!(marks.iter().all(|m| m.contains("\"ttl\":\"1h\"") == one_hour), "{expression}: {marks:?}");
    }
}

#[test]
fn a_job_whose_history_grew_long_goes_on_in_a_new_conversation_that_says_what_it_continues() {
    let host = host_at("2026-02-05T10:10:00Z", "UTC");
    let p = processor(&host);
    create(&host, &p, "a", json!({"type": "cron", "expression": "0 * * * *", "task": "log the weather"}));
    host.run_for(HOUR);
    let first = scheduled_conversation(&host, &p);
    assert_eq!(first.schedule.as_ref().unwrap().runs, 1);
    // The chat it was made in is over; the job goes on (its usual life).
    host.run(p.new_conversation()).unwrap();
    // Years of hourly runs, as the disk reports them: past the size a job's history is kept to.
    let log = smarthole_agent::testing::internals::log_path(&first.id);
    let text = host.file(&log).unwrap();
    host.put_sized_file(&log, &text, 9 * 1024 * 1024);
    host.run_for(HOUR);
    let next = scheduled_conversation(&host, &p);
    assert_ne!(next.id, first.id, "the job went on in a new conversation");
    assert_eq!(next.continues.as_deref(), Some(first.id.as_str()));
    assert_eq!(next.title, first.title);
    let schedule = next.schedule.clone().unwrap();
    assert_eq!((schedule.runs, schedule.task.as_str()), (2, "log the weather"), "the same job, its count kept");
    let all = host.run(p.conversations()).unwrap();
    let old = all.iter().find(|c| c.id == first.id).unwrap();
    assert_eq!(old.schedule, None);
    assert_eq!(old.continued_in.as_deref(), Some(next.id.as_str()));
    assert_eq!(old.status, ConversationStatus::Archived, "ended, its runs kept");
    // The next run is recorded in the new conversation; the old history keeps its two runs.
    host.run_for(HOUR);
    let runs_in = |id: &str| {
        let lines = host.file(&smarthole_agent::testing::internals::log_path(id)).unwrap_or_default();
        lines.lines().filter(|l| l.contains("\"source\":\"worker\"") && l.contains("\"role\":\"user\"")).count()
    };
    assert_eq!(runs_in(&first.id), 2);
    assert_eq!(runs_in(&next.id), 1);
    assert_eq!(due_times(&host).len(), 3, "no run lost or doubled by the move");
}
