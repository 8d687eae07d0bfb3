//! The tool loop: pairing, questions, input validation, end_conversation, the iteration cap,
//! and answers whose tools must not run (max_tokens, refusal).

mod common;

use common::*;
use serde_json::json;
use smarthole_agent::testing::internals::ConversationIndex;
use smarthole_agent::testing::{BodyEnd, FakeHost, Reply};
use smarthole_agent::ContentBlock;
use smarthole_agent::Settings;

fn tool_results(body: &serde_json::Value) -> Vec<serde_json::Value> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .filter(|b| b["type"] == "tool_result")
        .collect()
}

#[test]
fn a_question_ends_the_turn_and_the_reply_continues_it() {
    let host = FakeHost::new();
    host.script([
        Reply::tools(
            "",
            &[("q1", "send_message", json!({"message": "Which list, **work** or home?", "is_question": true}))],
        ),
        Reply::text("Added to the work list."),
    ]);
    let p = processor(&host);
    let result = host.run(p.process(from_hub("a", "add call Bob to my list")));
    assert!(result.success);
    assert_eq!(result.is_waiting_for_response, Some(true));
    assert_eq!(host.requests().len(), 1, "no model call after the question");
    assert_eq!(agent_messages(&host), [("Which list, **work** or home?".to_owned(), true)]);
    let notes = host.hub_responses("notification");
    assert_eq!(notes.len(), 1, "the question is the only notification: {notes:?}");
    assert_eq!(notes[0]["payload"]["payload"]["priority"], "high");
    assert_eq!(notes[0]["payload"]["payload"]["body"], "Which list, work or home?");
    let lines = history(&host);
    assert!(lines.last().unwrap().turn.as_ref().unwrap().waiting);

    let answer = host.run(p.process(from_hub("b", "work")));
    assert_eq!(answer.response.as_deref(), Some("Added to the work list."));
    let messages = sent_messages(&host.requests()[1].body);
    assert_eq!(messages.as_array().unwrap().len(), 3);
    assert_eq!(messages[2]["content"][0]["type"], "tool_result", "the question's result comes first");
    assert_eq!(messages[2]["content"][1], json!({"type": "text", "text": "work"}));
}

#[test]
fn a_progress_message_does_not_end_the_turn() {
    let host = FakeHost::new();
    host.script([
        Reply::tools("", &[("p1", "send_message", json!({"message": "Halfway there"}))]),
        Reply::text("Finished."),
    ]);
    let p = processor(&host);
    let result = host.run(p.process(direct("a", "long task")));
    assert_eq!(result.is_waiting_for_response, Some(false));
    assert_eq!(result.response.as_deref(), Some("Finished."));
    assert_eq!(agent_messages(&host), [("Halfway there".to_owned(), false)]);
    assert!(host.hub_frames().is_empty(), "typed messages never reach the hub");
    assert_eq!(tool_results(&host.requests()[1].body)[0]["content"], "Message delivered to the user.");
}

#[test]
fn bad_tool_input_and_unknown_tools_become_error_results_the_model_reads() {
    let host = FakeHost::new();
    host.script([
        Reply::tools(
            "",
            &[
                ("b1", "send_message", json!({"text": "wrong field"})),
                ("b2", "send_message", json!({"message": 7})),
                ("b3", "send_message", json!({"message": "  "})),
                ("b4", "delete_everything", json!({})),
                ("b5", "end_conversation", json!({"reason": 3})),
            ],
        ),
        Reply::text("Sorry, let me fix that."),
    ]);
    let p = processor(&host);
    let result = host.run(p.process(direct("a", "go")));
    assert!(result.success);
    assert!(agent_messages(&host).is_empty());
    let results = tool_results(&host.requests()[1].body);
    assert_eq!(results.len(), 5, "one result per call, in order");
    let texts: Vec<&str> = results.iter().map(|r| r["content"].as_str().unwrap()).collect();
    assert!(results.iter().all(|r| r["is_error"] == true));
    assert!(texts[0].contains("unknown field `text`"), "{}", texts[0]);
    assert_eq!(texts[1], "Invalid input for send_message: `message` must be a string, got integer 7.");
    assert!(texts[2].contains("message is empty"));
    assert!(texts[3].contains("Unknown tool \"delete_everything\""));
    assert!(texts[4].contains("Invalid input for end_conversation"));
    let ids: Vec<&str> = results.iter().map(|r| r["tool_use_id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["b1", "b2", "b3", "b4", "b5"]);
}

#[test]
fn end_conversation_keeps_the_turn_in_the_ended_conversation() {
    let host = FakeHost::new();
    host.script([
        Reply::tools("Bye!", &[("e1", "end_conversation", json!({"reason": "user said goodbye"}))]),
        Reply::text("Goodbye."),
        Reply::text("Fresh start."),
    ]);
    host.script_matching("You title and summarise", Reply::text("{\"title\": \"Goodbye\", \"summary\": \"s\"}"));
    let p = processor(&host);
    host.run(p.process(direct("a", "thanks, bye")));
    host.run(p.process(direct("b", "new topic")));
    let index: ConversationIndex = serde_json::from_str(&host.file("conversations/index.json").unwrap()).unwrap();
    assert_eq!(index.conversations.len(), 2);
    let first = &index.conversations[0];
    assert_eq!(first.end_reason.as_deref(), Some("user said goodbye"));
    assert_eq!(index.current.as_deref(), Some(index.conversations[1].id.as_str()));
    let old = host.file(&format!("conversations/{}.jsonl", first.id)).unwrap();
    assert!(old.contains("thanks, bye") && old.contains("Goodbye.") && !old.contains("new topic"));
    // The new conversation starts without the old history.
    let sent = sent_messages(&host.requests()[2].body);
    assert_eq!(sent, json!([{"role": "user", "content": [{"type": "text", "text": "new topic"}]}]));
}

#[test]
fn the_iteration_cap_stops_the_loop_and_says_so() {
    let host = FakeHost::new();
    host.script(
        (0..20)
            .map(|i| Reply::tools("", &[(&format!("t{i}"), "send_message", json!({"message": format!("step {i}")}))])),
    );
    let p = processor_with(&host, Settings { max_iterations: 10, ..settings() });
    let result = host.run(p.process(direct("a", "loop forever")));
    assert!(result.success);
    assert_eq!(host.requests().len(), 10);
    assert!(result.notice.as_deref().unwrap().contains("stopped after 10 model calls"));
    assert_eq!(agent_messages(&host).len(), 10);
    // History stays valid: every tool_use has its result.
    let lines = history(&host);
    let uses = lines.iter().flat_map(|l| &l.content).filter(|b| matches!(b, ContentBlock::ToolUse { .. })).count();
    let results =
        lines.iter().flat_map(|l| &l.content).filter(|b| matches!(b, ContentBlock::ToolResult { .. })).count();
    assert_eq!((uses, results), (10, 10));
}

#[test]
fn a_tool_call_cut_by_max_tokens_is_not_run() {
    let host = FakeHost::new();
    let cut_stream = vec![
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\n".to_owned(),
        "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n".to_owned(),
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Sending now\"}}\n\n".to_owned(),
        "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"cut\",\"name\":\"send_message\",\"input\":{}}}\n\n".to_owned(),
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"message\\\": \\\"hal\"}}\n\n".to_owned(),
        "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"max_tokens\"}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n".to_owned(),
    ];
    host.script([Reply::Raw { status: 200, chunks: cut_stream, end: BodyEnd::Close }]);
    let p = processor(&host);
    let result = host.run(p.process(direct("a", "send a long message")));
    assert!(result.success);
    assert!(agent_messages(&host).is_empty(), "the cut tool call did not run");
    assert_eq!(result.response.as_deref(), Some("Sending now"));
    assert!(result.notice.unwrap().contains("max tokens limit (4096)"));
    assert_eq!(host.requests().len(), 1);
    let lines = history(&host);
    assert_eq!(lines[1].content, vec![ContentBlock::text("Sending now")]);
}

#[test]
fn complete_tool_calls_in_a_max_tokens_or_refused_answer_are_not_run_either() {
    for stop in ["max_tokens", "refusal"] {
        let host = FakeHost::new();
        host.script([Reply::with_stop(
            vec![
                ContentBlock::text("Partial"),
                ContentBlock::ToolUse { id: "x".into(), name: "send_message".into(), input: json!({"message": "hi"}) },
            ],
            stop,
        )]);
        let p = processor(&host);
        let result = host.run(p.process(direct("a", "go")));
        assert!(agent_messages(&host).is_empty(), "{stop}");
        assert!(result.notice.is_some(), "{stop}");
        assert!(history(&host).iter().all(|l| l.content.iter().all(|b| !matches!(b, ContentBlock::ToolUse { .. }))));
    }
}

#[test]
fn pause_turn_sends_the_paused_answer_back_to_continue() {
    let host = FakeHost::new();
    host.script([Reply::with_stop(vec![ContentBlock::text("Let me think")], "pause_turn"), Reply::text(" — done.")]);
    let p = processor(&host);
    let result = host.run(p.process(direct("a", "hard question")));
    assert_eq!(host.requests().len(), 2);
    let messages = sent_messages(&host.requests()[1].body);
    assert_eq!(messages[1], json!({"role": "assistant", "content": [{"type": "text", "text": "Let me think"}]}));
    assert_eq!(result.response.as_deref(), Some("Let me think — done."));
}

#[test]
fn tools_after_a_question_in_the_same_answer_wait() {
    let host = FakeHost::new();
    host.script([Reply::tools(
        "",
        &[
            ("q", "send_message", json!({"message": "Sure?", "is_question": true})),
            ("later", "send_message", json!({"message": "doing it anyway"})),
        ],
    )]);
    let p = processor(&host);
    let result = host.run(p.process(direct("a", "delete it")));
    assert_eq!(result.is_waiting_for_response, Some(true));
    assert_eq!(agent_messages(&host), [("Sure?".to_owned(), true)]);
    let lines = history(&host);
    let last = lines.last().unwrap();
    assert!(
        matches!(&last.content[1], ContentBlock::ToolResult { is_error: true, content, .. } if content.contains("wait for the answer"))
    );
}

#[test]
fn needs_input_asks_a_structured_question_and_waits() {
    let host = FakeHost::new();
    host.script([
        Reply::tools(
            "",
            &[(
                "n1",
                "needs_input",
                json!({"type": "choice", "prompt": "Which **list**?", "options": ["Work", "Home"]}),
            )],
        ),
        Reply::text("Added to Home."),
    ]);
    let p = processor(&host);
    let asked = host.run(p.process(from_hub("q", "add call Bob")));
    assert_eq!(asked.is_waiting_for_response, Some(true));
    let card = host.events().into_iter().find_map(|e| match e {
        smarthole_agent::Event::AgentMessage { content, is_question: true, question_type, options, .. } => {
            Some((content, question_type, options))
        }
        _ => None,
    });
    assert_eq!(
        card,
        Some((
            "Which **list**?".to_owned(),
            Some(smarthole_agent::QuestionType::Choice),
            vec!["Work".to_owned(), "Home".to_owned()]
        ))
    );
    let notes = host.hub_responses("notification");
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0]["payload"]["payload"]["body"], "Which list? (Work / Home)");
    assert_eq!(notes[0]["payload"]["payload"]["priority"], "high");
    let index: ConversationIndex = serde_json::from_str(&host.file("conversations/index.json").unwrap()).unwrap();
    let q = index.conversations[0].state.pending_question.clone().unwrap();
    assert_eq!((q.kind, q.options.len()), (smarthole_agent::QuestionType::Choice, 2));
    host.run(p.process(from_hub("a", "Home")));
    let index: ConversationIndex = serde_json::from_str(&host.file("conversations/index.json").unwrap()).unwrap();
    assert!(index.conversations[0].state.pending_question.is_none());

    // Bad questions come back as errors the model can fix.
    let host = FakeHost::new();
    host.script([
        Reply::tools("", &[("n", "needs_input", json!({"type": "choice", "prompt": "Pick", "options": ["only one"]}))]),
        Reply::text("ok"),
    ]);
    let p = processor(&host);
    let result = host.run(p.process(direct("b", "x")));
    assert_eq!(result.is_waiting_for_response, Some(false));
    let err = &tool_results(&host.requests()[1].body)[0];
    assert_eq!(err["is_error"], true);
    assert!(err["content"].as_str().unwrap().contains("a choice needs 2 to 10 options"));
}

/// A search reads the notes it scans many to a host call (issue 37: one call a note cost a
/// search of 2,000 notes more than the reading), and finds what it found before.
#[test]
fn a_search_reads_its_notes_many_to_a_host_call() {
    let host = FakeHost::new();
    for n in 0..150 {
        host.put_note(&format!("n{n}.md"), if n % 7 == 0 { "a [[link|alias]] here\n" } else { "nothing [here]\n" });
    }
    let p = processor_with(&host, Settings { search_index_max_mb: 0, ..settings() });
    let input = json!({"query": r"\[\[[^\]|]+\|[^\]]+\]\]", "regex": true});
    let out = host.run(p.run_tool("search_files", &input)).0;
    assert!(out.starts_with("22 notes match"), "{out}");
    let (one_each, many_each) = host.byte_reads();
    assert_eq!(one_each, 0, "no note read alone");
    assert!((1..=3).contains(&many_each), "{many_each} calls for 150 notes");
}

/// A host that reads elsewhere (its answers come later) is asked several batches ahead, and the
/// search finds what it finds when each read is answered at once; one that answers at once is
/// asked one batch at a time (issue 37).
#[test]
fn a_search_asks_a_host_reading_elsewhere_ahead_and_finds_the_same() {
    let search = |elsewhere: bool| {
        let host = FakeHost::new();
        for n in 0..1500 {
            let text = if n % 7 == 0 {
                format!("note {n} a [[link|alias {n}]] here\n")
            } else {
                format!("nothing [here] {n}\n")
            };
            host.put_note(&format!("f{}/n{n}.md", n % 13), &text);
        }
        if elsewhere {
            host.read_elsewhere();
        }
        let p = processor_with(&host, Settings { search_index_max_mb: 0, ..settings() });
        let input = json!({"query": r"\[\[[^\]|]+\|[^\]]+\]\]", "regex": true});
        let out = host.run(p.run_tool("search_files", &input)).0;
        (out, host.byte_reads().1, host.most_reads_under_way())
    };
    let (at_once, calls, _) = search(false);
    let (ahead, calls_ahead, most) = search(true);
    assert!(at_once.starts_with("215 notes match"), "{at_once}");
    assert_eq!(ahead, at_once);
    assert_eq!(calls_ahead, calls, "each note read once");
    assert!(calls >= 20, "{calls} calls");
    assert!((2..=9).contains(&most), "{most} reads under way at once");
}
