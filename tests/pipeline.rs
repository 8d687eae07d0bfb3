//! The message pipeline end to end on the FakeHost: inbox, ack, model, notify, record, clean up.

mod common;

use common::*;
use serde_json::json;
use smarthole_agent::testing::{BodyEnd, FakeHost, FileOp, Reply};
use smarthole_agent::ContentBlock;
use smarthole_agent::LineRole;
use smarthole_agent::Settings;
use smarthole_agent::{Event, Stage};

#[test]
fn direct_message_is_answered_recorded_and_cleaned_up() {
    let host = FakeHost::new();
    host.script([Reply::text("Hello there, how can I help?")]);
    let p = processor(&host);
    let result = host.run(p.process(direct("m1", "hi")));
    assert!(result.success, "{result:?}");
    assert_eq!(result.response.as_deref(), Some("Hello there, how can I help?"));
    assert_eq!(result.tools_used, Some(vec![]));
    assert_eq!(result.is_waiting_for_response, Some(false));
    assert_eq!(streamed_text(&host, "m1"), "Hello there, how can I help?");
    assert_eq!(
        stages(&host, "m1"),
        [Stage::InboxWritten, Stage::ModelRequest, Stage::HistoryRecorded, Stage::InboxCleaned]
    );
    let lines = history(&host);
    assert_eq!(lines.len(), 2);
    assert_eq!((lines[0].role, lines[0].content.clone()), (LineRole::User, vec![ContentBlock::text("hi")]));
    assert_eq!(lines[1].role, LineRole::Assistant);
    assert!(lines[1].turn.is_some() && lines[0].turn.is_none());
    assert!(inbox(&host).is_empty());
    assert!(host.hub_frames().is_empty(), "direct messages send nothing to the hub");
    // The request is a valid Messages request with our headers.
    let req = &host.requests()[0];
    assert_eq!(req.url, "http://model.test/v1/messages");
    assert_eq!(req.header("x-api-key"), Some("test-key"));
    assert_eq!(req.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(req.header("anthropic-dangerous-direct-browser-access"), Some("true"));
    assert_eq!(req.body["model"], "test-model");
    assert_eq!(req.body["stream"], true);
    assert_eq!(sent_messages(&req.body), json!([{"role": "user", "content": [{"type": "text", "text": "hi"}]}]));
    assert_eq!(req.body["system"][0]["cache_control"]["type"], "ephemeral");
    let received: Vec<_> = host.events().into_iter().filter(|e| matches!(e, Event::MessageReceived { .. })).collect();
    assert_eq!(received.len(), 1);
    assert!(host.events().iter().any(|e| matches!(e, Event::Response { result, .. } if result.message_id == "m1")));
}

#[test]
fn hub_message_is_acked_before_the_model_and_notified_once() {
    let host = FakeHost::new();
    host.script([Reply::text("Added **milk** to your [[Shopping]] list.")]);
    let p = processor(&host);
    let result = host.run(p.process(from_hub("msg-7", "add milk to shopping")));
    assert!(result.success);
    assert_eq!(
        stages(&host, "msg-7"),
        [Stage::InboxWritten, Stage::AckSent, Stage::ModelRequest, Stage::HistoryRecorded, Stage::InboxCleaned]
    );
    let frames = host.hub_frames();
    assert_eq!(frames.len(), 2, "{frames:?}");
    assert_eq!(frames[0], json!({"type": "response", "payload": {"messageId": "msg-7", "type": "ack", "payload": {}}}));
    assert_eq!(frames[1]["payload"]["type"], "notification");
    assert_eq!(
        frames[1]["payload"]["payload"],
        json!({"title": "Obsidian", "body": "Added milk to your Shopping list.", "priority": "normal"})
    );
    assert_eq!(history(&host)[0].source, smarthole_agent::MessageSource::Websocket);
}

#[test]
fn second_message_sees_the_first_turn_as_context() {
    let host = FakeHost::new();
    host.script([Reply::text("Noted: your cat is Miso."), Reply::text("Miso.")]);
    let p = processor(&host);
    host.run(p.process(direct("a", "my cat is Miso")));
    host.run(p.process(direct("b", "what is my cat called?")));
    let body = &host.requests()[1].body;
    assert_eq!(
        sent_messages(body),
        json!([
            {"role": "user", "content": [{"type": "text", "text": "my cat is Miso"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "Noted: your cat is Miso."}]},
            {"role": "user", "content": [{"type": "text", "text": "what is my cat called?"}]}
        ])
    );
}

#[test]
fn non_streaming_path_gives_the_same_result() {
    let host = FakeHost::new();
    host.script([Reply::text("whole answer")]);
    let p = processor_with(&host, Settings { streaming: false, ..settings() });
    let result = host.run(p.process(direct("m", "hi")));
    assert_eq!(result.response.as_deref(), Some("whole answer"));
    assert!(host.requests()[0].body.get("stream").is_none());
    assert_eq!(streamed_text(&host, "m"), "");
}

#[test]
fn messages_run_one_at_a_time_in_arrival_order() {
    let host = FakeHost::new();
    host.script([Reply::slow_text("first answer", 100), Reply::slow_text("second", 10), Reply::text("third")]);
    let p = processor(&host);
    let (a, b, c) = host.run(async {
        futures::join!(p.process(direct("1", "one")), p.process(from_hub("2", "two")), p.process(direct("3", "three")))
    });
    assert!(a.success && b.success && c.success);
    assert_eq!(
        [a.response.unwrap(), b.response.unwrap(), c.response.unwrap()],
        ["first answer".to_owned(), "second".to_owned(), "third".to_owned()]
    );
    // Each request starts only after the previous message was recorded.
    let order: Vec<(String, Stage)> = host
        .events()
        .into_iter()
        .filter_map(|e| match e {
            Event::Stage { message_id, stage: stage @ (Stage::ModelRequest | Stage::HistoryRecorded), .. } => {
                Some((message_id, stage))
            }
            _ => None,
        })
        .collect();
    let expected: Vec<(String, Stage)> = ["1", "2", "3"]
        .iter()
        .flat_map(|id| [(id.to_string(), Stage::ModelRequest), (id.to_string(), Stage::HistoryRecorded)])
        .collect();
    assert_eq!(order, expected);
    // The hub message was acked at arrival, long before its turn came.
    let ack_at = host.events().iter().position(|e| matches!(e, Event::Stage { stage: Stage::AckSent, .. })).unwrap();
    let first_done = host
        .events()
        .iter()
        .position(|e| matches!(e, Event::Stage { message_id, stage: Stage::HistoryRecorded, .. } if message_id == "1"))
        .unwrap();
    assert!(ack_at < first_done);
    let users: Vec<String> =
        history(&host).iter().filter(|l| l.role == LineRole::User).map(|l| l.message_id.clone()).collect();
    assert_eq!(users, ["1", "2", "3"]);
}

#[test]
fn invalid_messages_get_a_clear_error_and_never_reach_the_inbox() {
    let host = FakeHost::new();
    let p = processor(&host);
    let cases = [
        (json!({"text": "no id"}), "has no id"),
        (json!({"id": "x1"}), "has no text"),
        (json!({"id": "x2", "text": 42}), "must be a string"),
        (json!({"id": "x3", "text": "a".repeat(100_001)}), "100001 characters"),
        (json!({"id": "x4", "text": "   "}), "empty"),
        (json!(null), "not a JSON object"),
        (json!({"id": "x5", "text": "hi", "source": "websocket", "metadata": "voice"}), "metadata"),
    ];
    for (raw, expected) in cases {
        let result = host.run(p.process(raw.clone()));
        assert!(!result.success, "{raw}");
        assert_eq!(result.error_code.as_deref(), Some("invalid_message"));
        assert!(!result.retryable, "the same input would be refused again: no Retry");
        assert!(result.error.as_deref().unwrap_or("").contains(expected), "{raw} → {:?}", result.error);
    }
    assert!(inbox(&host).is_empty());
    assert!(host.requests().is_empty());
    // A hub message with an id is rejected so the hub can route it elsewhere.
    let rejects = host.hub_responses("reject");
    assert_eq!(rejects.len(), 1);
    assert_eq!(rejects[0]["payload"]["messageId"], "x5");
    assert!(rejects[0]["payload"]["payload"]["reason"].as_str().unwrap().contains("metadata"));
    // And the processor still works.
    host.script([Reply::text("fine")]);
    assert!(host.run(p.process(direct("ok", "hello"))).success);
}

#[test]
fn typed_messages_get_their_id_and_time_from_the_core() {
    let host = FakeHost::new();
    let p = processor(&host);
    let (a, b) = (p.new_message("hello"), p.new_message("hello"));
    assert!(a.id.starts_with("direct-") && a.id.len() == "direct-".len() + 16, "{}", a.id);
    assert_ne!(a.id, b.id);
    assert_eq!(serde_json::to_value(&a).unwrap()["source"], "direct");
    assert_eq!(a.timestamp, smarthole_agent::testing::internals::format_iso(host.now()));
    host.script([Reply::text("hi")]);
    let result = host.run(p.process(serde_json::to_value(&a).unwrap()));
    assert!(result.success && result.message_id == a.id, "{result:?}");
}

#[test]
fn message_ids_that_are_not_file_names_stay_inside_the_inbox() {
    let host = FakeHost::new();
    host.script([Reply::hang()]);
    let p = processor(&host);
    let seen = host.run_until(p.process(direct("../../etc/passwd", "hi")), |e| {
        matches!(e, Event::Stage { stage: Stage::ModelRequest, .. })
    });
    assert!(seen.is_none());
    let files = inbox(&host);
    assert_eq!(files, ["inbox/~2E~2E~2F~2E~2E~2Fetc~2Fpasswd.json"]);
    assert!(host.paths().iter().all(|p| !p.contains("..")));
}

#[test]
fn an_unwritable_inbox_refuses_the_message_without_calling_the_model() {
    let host = FakeHost::new();
    let p = processor(&host);
    host.fail_files(FileOp::WriteAtomic, "inbox/");
    let result = host.run(p.process(from_hub("h1", "hello")));
    assert!(!result.success);
    assert_eq!(result.error_code.as_deref(), Some("storage_error"));
    assert!(result.error.unwrap().contains("writable"));
    assert!(host.requests().is_empty());
    assert_eq!(host.hub_responses("reject").len(), 1);
    assert!(host.hub_responses("ack").is_empty());
}

#[test]
fn a_message_redelivered_while_in_flight_is_acked_and_processed_once() {
    let host = FakeHost::new();
    host.script([Reply::slow_text("only once", 50)]);
    let p = processor(&host);
    let (a, b) = host.run(async { futures::join!(p.process(from_hub("dup", "hi")), p.process(from_hub("dup", "hi"))) });
    assert_eq!(a, b);
    assert_eq!(host.requests().len(), 1);
    assert_eq!(host.hub_responses("ack").len(), 2);
    assert_eq!(host.hub_responses("notification").len(), 1);
    assert_eq!(recorded_count(&host, "dup"), 1);
}

#[test]
fn a_message_redelivered_after_it_finished_returns_the_recorded_answer() {
    let host = FakeHost::new();
    host.script([Reply::text("recorded answer")]);
    let p = processor(&host);
    let first = host.run(p.process(from_hub("again", "hi")));
    let second = host.run(p.process(from_hub("again", "hi")));
    assert_eq!(first.response, second.response);
    assert_eq!(host.requests().len(), 1, "no second model call");
    assert_eq!(recorded_count(&host, "again"), 1);
    assert!(inbox(&host).is_empty());
}

#[test]
fn unknown_stream_events_and_blocks_are_ignored() {
    let host = FakeHost::new();
    let chunks = vec![
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\n".to_owned(),
        ": keepalive\n\nevent: future_thing\ndata: {\"type\":\"future_thing\"}\n\n".to_owned(),
        "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}\n\n".to_owned(),
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"hmm\"}}\n\n".to_owned(),
        "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n".to_owned(),
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"vis\"}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"ible\"}}\n\n".to_owned(),
        "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n".to_owned(),
    ];
    host.script([Reply::Raw { status: 200, chunks, end: BodyEnd::Close }]);
    let p = processor(&host);
    let result = host.run(p.process(direct("u", "hi")));
    assert_eq!(result.response.as_deref(), Some("visible"));
    assert_eq!(history(&host)[1].content, vec![ContentBlock::text("visible")]);
}

#[test]
fn a_torn_history_line_is_skipped_and_the_file_repaired_before_appending() {
    let host = FakeHost::new();
    host.script([Reply::text("one")]);
    let p = processor(&host);
    host.run(p.process(direct("a", "first")));
    let index: serde_json::Value = serde_json::from_str(&host.file("conversations/index.json").unwrap()).unwrap();
    let path = format!("conversations/{}.jsonl", index["current"].as_str().unwrap());
    let before = host.file(&path).unwrap();
    host.put_file(&path, &format!("{before}{{\"id\":\"b#0\",\"messageId\":\"b\",\"ro"));
    drop(p);
    host.script([Reply::text("two")]);
    let p = processor(&host);
    assert!(host.logs().iter().any(|(_, l)| l.contains("torn last line")));
    assert_eq!(host.file(&path).unwrap(), before, "cut back to the last complete turn");
    host.run(p.process(direct("c", "second")));
    let lines = history(&host);
    assert_eq!(lines.iter().map(|l| l.message_id.as_str()).collect::<Vec<_>>(), ["a", "a", "c", "c"]);
}

#[test]
fn a_corrupt_history_line_in_the_middle_is_reported_and_skipped() {
    let host = FakeHost::new();
    host.script([Reply::text("one"), Reply::text("two"), Reply::text("three")]);
    let p = processor(&host);
    host.run(p.process(direct("a", "first")));
    host.run(p.process(direct("b", "second")));
    let index: serde_json::Value = serde_json::from_str(&host.file("conversations/index.json").unwrap()).unwrap();
    let path = format!("conversations/{}.jsonl", index["current"].as_str().unwrap());
    let text = host.file(&path).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines[1] = "{garbage";
    host.put_file(&path, &(lines.join("\n") + "\n"));
    drop(p);
    let p = processor(&host);
    assert!(host.logs().iter().any(|(_, l)| l.contains("line 2: unreadable line skipped")));
    host.run(p.process(direct("c", "third")));
    let sent = sent_messages(&host.requests().last().unwrap().body);
    // Turn a lost its closing line, so only b's turn and c are sent.
    assert_eq!(sent[0]["content"][0]["text"], "second");
}
