//! Crashes at every point of the pipeline, then a restart: every message ends recorded exactly
//! once (or in failed/), the inbox ends empty, and no tool runs twice.

mod common;

use common::*;
use serde_json::json;
use smarthole_agent::testing::{FakeHost, Reply};
use smarthole_agent::MessageProcessor;
use smarthole_agent::{Event, Stage};

fn crash_at(host: &FakeHost, raw: serde_json::Value, at: impl Fn(&Event) -> bool + 'static) {
    let p = processor(host);
    let finished = host.run_until(p.process(raw), at);
    assert!(finished.is_none(), "the crash point was reached");
}

fn stage(s: Stage) -> impl Fn(&Event) -> bool {
    move |e| matches!(e, Event::Stage { stage, .. } if *stage == s)
}

/// A hub message "two steps" (id `j`) whose first model call runs `send_message`: the tool runs,
/// and the app dies as the next model call goes out.
fn crash_after_the_first_tool(host: &FakeHost) {
    host.script([Reply::tools("", &[("t1", "send_message", json!({"message": "first step done"}))])]);
    let model_requests = std::cell::Cell::new(0);
    crash_at(host, from_hub("j", "two steps"), move |e| {
        if matches!(e, Event::Stage { stage: Stage::ModelRequest, .. }) {
            model_requests.set(model_requests.get() + 1);
        }
        model_requests.get() == 2
    });
}

/// The inbox's message entries (without their turn journals).
fn entries(host: &FakeHost) -> Vec<String> {
    inbox(host).into_iter().filter(|f| f.ends_with(".json")).collect()
}

fn restart(host: &FakeHost) -> smarthole_agent::ReprocessSummary {
    let p = processor(host);
    host.run(p.reprocess_pending()).expect("reprocess")
}

#[test]
fn a_crash_at_any_point_ends_with_the_message_recorded_once_and_the_inbox_empty() {
    type Point = Box<dyn Fn(&Event) -> bool + 'static>;
    let points: [(&str, Point); 5] = [
        ("after the inbox write", Box::new(stage(Stage::InboxWritten))),
        ("after the ack", Box::new(stage(Stage::AckSent))),
        ("at the model request", Box::new(stage(Stage::ModelRequest))),
        ("mid-stream", Box::new(|e: &Event| matches!(e, Event::TextDelta { .. }))),
        ("after recording, before cleanup", Box::new(stage(Stage::HistoryRecorded))),
    ];
    for (name, point) in points {
        let host = FakeHost::new();
        host.script([Reply::slow_text("the answer", 10), Reply::text("the answer")]);
        crash_at(&host, from_hub("m1", "remember milk"), point);
        assert_eq!(entries(&host), ["inbox/m1.json"], "{name}: the message is in the inbox");
        let summary = restart(&host);
        assert_eq!(summary.results.len(), 1, "{name}");
        assert!(summary.results[0].success, "{name}: {:?}", summary.results[0]);
        assert_eq!(summary.results[0].response.as_deref(), Some("the answer"), "{name}");
        assert_eq!(recorded_count(&host, "m1"), 1, "{name}: recorded exactly once");
        assert!(inbox(&host).is_empty(), "{name}: inbox empty");
        // Requests made before the crash, plus the restart's (none when it was already recorded).
        let expected_requests = match name {
            "mid-stream" => 2,
            _ => 1,
        };
        assert_eq!(host.requests().len(), expected_requests, "{name}");
    }
}

/// The hub keys answers by client name and message id, not by connection: a message saved to
/// the inbox but not acked when the app died is still waiting for its ack after the restart, and
/// the answer may not come before it. The restarted app cannot know whether its ack left before
/// it died, so it acks every hub message it resumes — on the new connection, before the answer,
/// whether that connection registers before the inbox is reprocessed or only after (the ack then
/// waits for the registration with the notification). A killed headless host hit this in the
/// crash torture: its inbox write's folder flush left a window between the file and the ack.
#[test]
fn after_a_restart_a_resumed_hub_message_is_acked_before_its_notification() {
    for point in [Stage::InboxWritten, Stage::AckSent] {
        for registered_before_reprocess in [true, false] {
            let case = format!("crash at {point:?}, hub registered before reprocess: {registered_before_reprocess}");
            let host = FakeHost::new();
            host.script([Reply::text("the answer")]);
            crash_at(&host, from_hub("m1", "remember milk"), stage(point));
            assert_eq!(inbox(&host), ["inbox/m1.json"], "{case}");
            host.clear_records();
            // The restart, in the order the hosts use: start, reprocess the inbox; the hub
            // connection registers whenever its socket opens.
            let p = MessageProcessor::new(host.clone(), settings()).expect("valid settings");
            host.run(p.initialize()).expect("initialize");
            if registered_before_reprocess {
                connect_hub(&host, &p);
            }
            let summary = host.run(p.reprocess_pending()).expect("reprocess");
            assert!(summary.results[0].success, "{case}: {:?}", summary.results[0]);
            if !registered_before_reprocess {
                connect_hub(&host, &p);
            }
            let sent: Vec<String> = host
                .hub_frames()
                .iter()
                .filter(|f| f["payload"]["messageId"] == "m1")
                .map(|f| f["payload"]["type"].as_str().unwrap_or("?").to_owned())
                .collect();
            assert_eq!(sent, ["ack", "notification"], "{case}");
            assert_eq!(recorded_count(&host, "m1"), 1, "{case}");
        }
    }
}

#[test]
fn restart_finishes_left_over_messages_in_arrival_order() {
    let host = FakeHost::new();
    host.script([Reply::hang()]);
    let p = processor(&host);
    // Three messages arrive while the first waits for the model; then the app dies.
    let all = async {
        futures::join!(p.process(direct("1", "one")), p.process(direct("2", "two")), p.process(direct("3", "three")))
    };
    let mut received = 0;
    let crashed = host.run_until(all, move |e| {
        received += usize::from(matches!(e, Event::MessageReceived { .. }));
        received == 3
    });
    assert!(crashed.is_none());
    assert_eq!(host.requests().len(), 1);
    drop(p);
    assert_eq!(entries(&host).len(), 3);
    host.script([Reply::text("a1"), Reply::text("a2"), Reply::text("a3")]);
    let summary = restart(&host);
    let ids: Vec<&str> = summary.results.iter().map(|r| r.message_id.as_str()).collect();
    assert_eq!(ids, ["1", "2", "3"]);
    let responses: Vec<&str> = summary.results.iter().map(|r| r.response.as_deref().unwrap()).collect();
    assert_eq!(responses, ["a1", "a2", "a3"]);
    assert!(inbox(&host).is_empty());
}

#[test]
fn after_five_failed_attempts_a_message_moves_to_failed_and_the_user_is_told() {
    let host = FakeHost::new();
    host.script([Reply::error(401, "authentication_error")]);
    let p = processor(&host);
    let first = host.run(p.process(direct("bad", "hello")));
    assert_eq!(first.error_code.as_deref(), Some("auth_error"));
    drop(p);
    for attempt in 2..=5 {
        host.script([Reply::error(401, "authentication_error")]);
        let summary = restart(&host);
        assert_eq!(summary.results[0].error_code.as_deref(), Some("auth_error"), "attempt {attempt}");
    }
    assert!(inbox(&host).is_empty());
    let failed = host.file("failed/bad.json").expect("moved to failed/");
    let record: serde_json::Value = serde_json::from_str(&failed).unwrap();
    assert_eq!(record["entry"]["attempts"], 5);
    assert_eq!(record["entry"]["message"]["text"], "hello");
    assert!(record["error"].as_str().unwrap().contains("auth_error"));
    assert_eq!(host.requests().len(), 5);
    let notice = host.events().into_iter().find_map(|e| match e {
        Event::Notice { text, .. } => Some(text),
        _ => None,
    });
    assert!(notice.unwrap().contains("failed 5 times"));
    // Nothing left to do at the next start.
    assert!(restart(&host).results.is_empty());
}

/// The app dies while the answer to a message streams in.
fn mid_answer(e: &Event) -> bool {
    matches!(e, Event::TextDelta { .. })
}

#[test]
fn a_message_whose_run_took_the_app_down_twice_is_set_aside_and_the_user_told() {
    let host = FakeHost::new();
    host.script([Reply::slow_text("a long answer", 100)]);
    crash_at(&host, direct("poison", "boom"), mid_answer);
    // The second start runs it again, into the same crash.
    let p = processor(&host);
    host.script([Reply::slow_text("a long answer", 100)]);
    assert!(host.run_until(p.reprocess_pending(), mid_answer).is_none());
    drop(p);
    let requests = host.requests().len();
    // The third start does not: it would crash again, and at every start after.
    let summary = restart(&host);
    assert_eq!(host.requests().len(), requests, "no third run");
    assert_eq!(summary.results[0].error_code.as_deref(), Some("moved_to_failed"));
    let failed: serde_json::Value = serde_json::from_str(&host.file("failed/poison.json").expect("set aside")).unwrap();
    assert!(failed["error"].as_str().unwrap().contains("2 times before it finished"), "{failed}");
    assert!(inbox(&host).is_empty(), "entry and journal gone: {:?}", inbox(&host));
    let told = host
        .events()
        .into_iter()
        .any(|e| matches!(e, Event::Notice { text, .. } if text.contains("boom") && text.contains("2 times")));
    assert!(told, "the user is told");
}

#[test]
fn runs_that_failed_waited_in_line_or_died_before_an_answer_began_are_not_counted_as_crashes() {
    // Two runs failed on a server error (recorded), then one run crashed: still tried again.
    let host = FakeHost::new();
    let errors = || std::array::from_fn::<_, 4, _>(|_| Reply::error(500, "api_error"));
    host.script(errors());
    let p = processor(&host);
    let first = host.run(p.process(direct("flaky", "hello")));
    assert_eq!(first.error_code.as_deref(), Some("server_error"));
    drop(p);
    host.script(errors());
    assert_eq!(restart(&host).results[0].error_code.as_deref(), Some("server_error"));
    host.script([Reply::slow_text("a long answer", 100)]);
    let p = processor(&host);
    assert!(host.run_until(p.reprocess_pending(), mid_answer).is_none());
    drop(p);
    host.script([Reply::text("fine")]);
    let summary = restart(&host);
    assert!(summary.results[0].success, "{:?}", summary.results[0]);

    // The app closed twice as the request went out (no answer begun): not the message's doing.
    let host = FakeHost::new();
    crash_at(&host, direct("early", "hello"), stage(Stage::ModelRequest));
    let p = processor(&host);
    assert!(host.run_until(p.reprocess_pending(), stage(Stage::ModelRequest)).is_none());
    drop(p);
    host.script([Reply::text("answered")]);
    assert!(restart(&host).results[0].success);

    // A message queued behind one that took the app down twice is still answered; that one is
    // set aside.
    let host = FakeHost::new();
    host.script([Reply::slow_text("a long answer", 100)]);
    let p = processor(&host);
    let both = async { futures::join!(p.process(direct("hung", "a")), p.process(direct("queued", "b"))) };
    let (mut received, mut streaming) = (0, false);
    let both_in = move |e: &Event| {
        received += usize::from(matches!(e, Event::MessageReceived { .. }));
        streaming |= mid_answer(e);
        received == 2 && streaming
    };
    assert!(host.run_until(both, both_in).is_none());
    assert_eq!(entries(&host).len(), 2, "both in the inbox when the app dies");
    drop(p);
    host.script([Reply::slow_text("a long answer", 100)]);
    let p = processor(&host);
    assert!(host.run_until(p.reprocess_pending(), mid_answer).is_none());
    drop(p);
    host.script([Reply::text("answered")]);
    let summary = restart(&host);
    let code =
        |id: &str| summary.results.iter().find(|r| r.message_id == id).map(|r| (r.success, r.error_code.clone()));
    assert_eq!(code("hung"), Some((false, Some("moved_to_failed".to_owned()))));
    assert_eq!(code("queued"), Some((true, None)));
}

#[test]
fn a_corrupt_inbox_file_goes_to_failed_while_the_others_are_processed() {
    let host = FakeHost::new();
    host.put_file("inbox/broken.json", "{\"message\": {\"id\": ");
    host.put_file("inbox/.stale.json.tmp-1", "half a write");
    host.put_file(
        "inbox/good.json",
        &json!({"message": {"id": "good", "text": "hi", "timestamp": "t", "source": "direct"}, "attempts": 1, "receivedAt": 1}).to_string(),
    );
    host.script([Reply::text("hello")]);
    let summary = restart(&host);
    assert_eq!(summary.moved_to_failed, ["failed/broken.json"]);
    assert_eq!(summary.results.len(), 1);
    assert!(summary.results[0].success);
    let record: serde_json::Value = serde_json::from_str(&host.file("failed/broken.json").unwrap()).unwrap();
    assert!(record["error"].as_str().unwrap().contains("unreadable inbox file"));
    assert_eq!(record["raw"], "{\"message\": {\"id\": ");
    assert!(inbox(&host).is_empty(), "{:?}", inbox(&host));
}

#[test]
fn a_turn_resumed_after_a_crash_never_runs_a_finished_tool_again() {
    let host = FakeHost::new();
    crash_after_the_first_tool(&host);
    assert_eq!(agent_messages(&host).len(), 1);
    host.clear_records();
    host.script([Reply::text("second step done")]);
    let summary = restart(&host);
    assert_eq!(summary.results[0].response.as_deref(), Some("second step done"));
    assert!(agent_messages(&host).is_empty(), "the finished tool did not run again");
    let body = &host.requests()[0].body;
    assert_eq!(body["messages"][2]["content"][0]["content"], "Message delivered to the user.");
    assert_eq!(recorded_count(&host, "j"), 1);
    assert!(inbox(&host).is_empty());
}

#[test]
fn a_tool_interrupted_mid_run_is_reported_not_repeated() {
    let host = FakeHost::new();
    host.script([Reply::tools("", &[("t1", "send_message", json!({"message": "side effect"}))])]);
    let p = processor(&host);
    // Crash while the tool runs: its effect happened, its result was never journaled.
    assert!(host.run_until(p.process(direct("i", "go")), |e| matches!(e, Event::AgentMessage { .. })).is_none());
    drop(p);
    assert_eq!(agent_messages(&host).len(), 1);
    let journal = host.file("inbox/i.turn.jsonl").unwrap();
    assert!(journal.contains("tool_started") && !journal.contains("tool_done"), "{journal}");
    host.clear_records();
    host.script([Reply::text("I will check whether that went through.")]);
    let summary = restart(&host);
    assert!(summary.results[0].success);
    assert!(agent_messages(&host).is_empty(), "not run a second time");
    let result = &host.requests()[0].body["messages"][2]["content"][0];
    assert_eq!(result["is_error"], true);
    assert!(result["content"].as_str().unwrap().contains("interrupted"));
}

#[test]
fn a_crash_between_recording_an_ending_turn_and_updating_the_index_still_ends_the_conversation() {
    let host = FakeHost::new();
    host.script([Reply::tools("Bye", &[("e", "end_conversation", json!({}))]), Reply::text("Goodbye.")]);
    let p = processor(&host);
    let first = host.run(p.process(direct("a", "hi")));
    assert!(first.success);
    drop(p);
    let index: serde_json::Value = serde_json::from_str(&host.file("conversations/index.json").unwrap()).unwrap();
    assert!(index["current"].is_null(), "ended normally");
    // Now simulate the lost index update: put the ended conversation back as active.
    let mut lost = index.clone();
    lost["current"] = lost["conversations"][0]["id"].clone();
    lost["conversations"][0]["status"] = json!("active");
    lost["conversations"][0].as_object_mut().unwrap().remove("endedAt");
    host.put_file("conversations/index.json", &lost.to_string());
    let _p = processor(&host);
    let healed: serde_json::Value = serde_json::from_str(&host.file("conversations/index.json").unwrap()).unwrap();
    assert!(healed["current"].is_null(), "the recorded end_conversation was applied at start-up");
    assert!(healed["conversations"][0]["endedAt"].is_string());
    assert_eq!(healed["conversations"][0]["status"], "archived");
    // An index naming an archived conversation as current does not stop start-up either.
    let mut odd = healed.clone();
    odd["current"] = odd["conversations"][0]["id"].clone();
    host.put_file("conversations/index.json", &odd.to_string());
    let _p = processor(&host);
    let fixed: serde_json::Value = serde_json::from_str(&host.file("conversations/index.json").unwrap()).unwrap();
    assert!(fixed["current"].is_null());
}

/// Issue 17: a turn resumed after a crash sends the message context its first run journaled, so
/// its requests repeat the earlier ones byte for byte up to where they ended (a prompt-cache
/// read), an hour later too; the recorded user line keeps that same context.
#[test]
fn a_resumed_turn_repeats_the_message_context_of_its_first_run() {
    let host = FakeHost::new();
    crash_after_the_first_tool(&host);
    let first = host.requests()[0].body.clone();
    let context = message_context(&first);
    assert!(context.starts_with("<context>") && context.contains("Current time"), "{context}");
    host.clear_records();
    host.advance(3_600_000);
    host.script([Reply::text("second step done")]);
    restart(&host);
    let resumed = host.requests()[0].body.clone();
    assert_eq!(message_context(&resumed), context, "the same context, not a new time");
    // Everything the first request sent is the start of the resumed one, marks aside.
    assert_eq!(sent_messages(&resumed)[0], sent_messages(&first)[0]);
    assert_eq!(resumed["system"], first["system"]);
    let user = history(&host).into_iter().find(|l| l.message_id == "j").unwrap();
    assert_eq!(user.context.as_deref(), Some(context.as_str()));
    assert_eq!(user.content, vec![smarthole_agent::ContentBlock::text("two steps")], "what the user wrote, alone");
}
