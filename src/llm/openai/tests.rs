//! The Chat Completions format's tests: requests translated, answers and streams read back.

use serde_json::{json, Value};

use super::answer::{parse_response, ChunkAccumulator};
use super::request::{request_body, translate_message};
use crate::llm::error::ErrorKind;
use crate::llm::request::CacheTtl;
use crate::llm::request::ModelCall;
use crate::llm::sse::SseEvent;
use crate::llm::types::TruncatedToolUse;
use crate::llm::types::{ContentBlock, StopReason};
use crate::llm::{ApiMessage, MessagesJson, Role, SystemPart};

fn chunk(data: Value) -> SseEvent {
    SseEvent { event: "message".into(), data: data.to_string() }
}

#[test]
fn an_image_goes_as_an_image_url_part_with_the_same_bytes() {
    let message = serde_json::to_value(ApiMessage {
        role: crate::llm::Role::User,
        content: vec![ContentBlock::image("image/png", "iVBORw0KGgo="), ContentBlock::text("What is this?")],
    })
    .unwrap();
    let mut out = Vec::new();
    translate_message(&message, &mut out);
    assert_eq!(
        out,
        vec![json!({"role": "user", "content": [
            {"type": "text", "text": "What is this?"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
        ]})]
    );
}

#[test]
fn a_pdf_from_an_earlier_turn_is_named_never_dropped_in_silence() {
    let message = serde_json::to_value(ApiMessage {
        role: crate::llm::Role::User,
        content: vec![ContentBlock::document("application/pdf", "JVBERi0=", "paper.pdf"), ContentBlock::text("Sum up")],
    })
    .unwrap();
    let mut out = Vec::new();
    translate_message(&message, &mut out);
    let text = out[0]["content"].as_str().unwrap_or_default();
    assert!(text.starts_with("Sum up\n\n[paper.pdf was attached here"), "{text}");
    assert!(!text.contains("JVBERi0="));
}

#[test]
fn the_conversation_is_translated_with_tool_calls_and_results_in_order() {
    let mut history = MessagesJson::new();
    history.push(&ApiMessage::user_text("what is on my list?"));
    history.push(&ApiMessage {
        role: Role::Assistant,
        content: vec![
            ContentBlock::text("Let me look."),
            ContentBlock::ToolUse { id: "t1".into(), name: "read_file".into(), input: json!({"path": "List.md"}) },
        ],
    });
    let messages = [
        ApiMessage {
            role: Role::User,
            content: vec![
                ContentBlock::ToolResult { tool_use_id: "t1".into(), content: "- milk".into(), is_error: false },
                ContentBlock::ToolResult { tool_use_id: "t2".into(), content: "gone".into(), is_error: true },
            ],
        },
        ApiMessage::user_text("and eggs"),
    ];
    let system = [SystemPart { text: "You help.".into(), cache: true }];
    let tools = r#"[{"name":"read_file","description":"Reads","input_schema":{"type":"object"}}]"#;
    let call = ModelCall { system: &system, history: &history, messages: &messages, tools, ttl: CacheTtl::default() };
    let body: Value = serde_json::from_str(&request_body("m", 100, call, true)).unwrap();
    assert_eq!(
        body["messages"],
        json!([
            {"role": "system", "content": "You help."},
            {"role": "user", "content": "what is on my list?"},
            {"role": "assistant", "content": "Let me look.", "tool_calls": [
                {"id": "t1", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\":\"List.md\"}"}}
            ]},
            {"role": "tool", "tool_call_id": "t1", "content": "- milk"},
            {"role": "tool", "tool_call_id": "t2", "content": "Error: gone"},
            {"role": "user", "content": "and eggs"},
        ])
    );
    assert_eq!(
        body["tools"][0],
        json!({"type": "function", "function": {"name": "read_file", "description": "Reads", "parameters": {"type": "object"}}})
    );
    assert_eq!(body["stream_options"], json!({"include_usage": true}));
    assert!(!body.to_string().contains("cache_control"), "no cache marks in this format");
}

#[test]
fn a_stream_of_text_and_tool_call_deltas_becomes_the_same_answer() {
    let mut acc = ChunkAccumulator::default();
    let mut text = String::new();
    for c in [
        json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}),
        json!({"choices": [{"index": 0, "delta": {"content": "Hel"}}]}),
        json!({"choices": [{"index": 0, "delta": {"content": "lo"}}]}),
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "c1", "type": "function", "function": {"name": "read_file", "arguments": ""}}]}}]}),
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "{\"path\":"}}]}}]}),
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "\"a.md\"}"}}]}}]}),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
        json!({"choices": [], "usage": {"prompt_tokens": 100, "completion_tokens": 7, "prompt_tokens_details": {"cached_tokens": 60}}}),
    ] {
        if let Some(t) = acc.apply(&chunk(c)).unwrap() {
            text.push_str(&t);
        }
    }
    acc.apply(&SseEvent { event: "message".into(), data: "[DONE]".into() }).unwrap();
    assert!(acc.is_finished());
    let r = acc.finish().unwrap();
    assert_eq!(text, "Hello");
    assert_eq!(
        r.content,
        vec![
            ContentBlock::text("Hello"),
            ContentBlock::ToolUse { id: "c1".into(), name: "read_file".into(), input: json!({"path": "a.md"}) }
        ]
    );
    assert_eq!(r.stop_reason, StopReason::ToolUse);
    assert_eq!((r.usage.input_tokens, r.usage.cache_read_input_tokens, r.usage.output_tokens), (40, 60, 7));
}

#[test]
fn cut_streams_errors_and_cut_tool_calls_are_told_apart() {
    let mut cut = ChunkAccumulator::default();
    cut.apply(&chunk(json!({"choices": [{"index": 0, "delta": {"content": "Hi"}}]}))).unwrap();
    assert_eq!(cut.finish().unwrap_err().kind, ErrorKind::Network, "no finish reason and no [DONE]: cut");
    let mut failing = ChunkAccumulator::default();
    let error = failing.apply(&chunk(json!({"error": {"type": "overloaded_error", "message": "busy"}}))).unwrap_err();
    assert!(error.to_string().contains("busy"));
    let long = json!({"choices": [{"message": {"content": "x", "tool_calls": [
        {"id": "c", "type": "function", "function": {"name": "write_file", "arguments": "{\"path\": \"a"}}
    ]}, "finish_reason": "length"}]});
    let r = parse_response(&long).unwrap();
    assert_eq!(r.truncated_tools, vec![TruncatedToolUse { id: "c".into(), name: "write_file".into() }]);
    assert!(parse_response(&json!({"choices": []})).is_err());
    assert!(parse_response(&json!({"error": {"message": "no"}})).is_err());
}
