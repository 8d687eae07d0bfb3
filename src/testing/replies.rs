//! A scripted model server's answers as a test writes them (`Reply`: text, tool calls, errors,
//! a stream that hangs or is cut), the Anthropic SSE events or OpenAI chunks each becomes, and a
//! request as it was recorded.

use serde_json::{json, Value};

use crate::host_types::Millis;
use crate::llm::ContentBlock;

/// How a scripted response body ends.
#[derive(Debug, Clone, PartialEq)]
pub enum BodyEnd {
    /// Normally.
    Close,
    /// The connection breaks (a read error).
    Reset,
    /// It never ends.
    Hang,
    /// Its last chunk comes again and again, for ever (a server that never ends its answer).
    RepeatLast,
}

/// One scripted answer to an HTTP request.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// A model answer, rendered as SSE when the request streams and as JSON otherwise.
    Answer { blocks: Vec<ContentBlock>, stop_reason: String, delta_delay_ms: Millis },
    /// An HTTP error with an Anthropic error body.
    Error { status: u16, error_type: String, headers: Vec<(String, String)> },
    /// A streamed text answer that sends `deltas` deltas of `text` and then breaks.
    ResetAfter { text: String, deltas: usize },
    /// A stream whose body is exactly these chunks.
    Raw { status: u16, chunks: Vec<String>, end: BodyEnd },
    /// The request fails before any response (refused, DNS).
    NetworkError,
    /// The request is never answered.
    Hang,
    /// A redirect (`status` 301/302/307/308) to `location`, with no body.
    Redirect { status: u16, location: String },
    /// An HTTP error whose body is exactly `body` (a server echoing what it was sent).
    ErrorBody { status: u16, body: String },
}

impl Reply {
    /// A streamed text answer that never ends: `piece` again and again.
    pub fn endless(piece: &str) -> Self {
        let mut chunks = answer_events(&[ContentBlock::text(piece)], "end_turn");
        chunks.truncate(3);
        Reply::Raw { status: 200, chunks, end: BodyEnd::RepeatLast }
    }

    /// A text answer.
    pub fn text(text: &str) -> Self {
        Reply::Answer { blocks: vec![ContentBlock::text(text)], stop_reason: "end_turn".into(), delta_delay_ms: 0 }
    }

    /// A text answer streamed slowly: `delay_ms` before each delta.
    pub fn slow_text(text: &str, delay_ms: Millis) -> Self {
        Reply::Answer {
            blocks: vec![ContentBlock::text(text)],
            stop_reason: "end_turn".into(),
            delta_delay_ms: delay_ms,
        }
    }

    /// An answer that calls tools (`(id, name, input)`), optionally after some text.
    pub fn tools(text: &str, calls: &[(&str, &str, Value)]) -> Self {
        let mut blocks = Vec::new();
        if !text.is_empty() {
            blocks.push(ContentBlock::text(text));
        }
        for (id, name, input) in calls {
            blocks.push(ContentBlock::ToolUse { id: (*id).into(), name: (*name).into(), input: input.clone() });
        }
        Reply::Answer { blocks, stop_reason: "tool_use".into(), delta_delay_ms: 0 }
    }

    /// An answer with the given stop reason.
    pub fn with_stop(blocks: Vec<ContentBlock>, stop_reason: &str) -> Self {
        Reply::Answer { blocks, stop_reason: stop_reason.into(), delta_delay_ms: 0 }
    }

    /// A request that is never answered.
    pub fn hang() -> Self {
        Reply::Hang
    }

    /// An HTTP error.
    pub fn error(status: u16, error_type: &str) -> Self {
        Reply::Error { status, error_type: error_type.into(), headers: Vec::new() }
    }

    /// An HTTP error with headers (`retry-after`…).
    pub fn error_with(status: u16, error_type: &str, headers: &[(&str, &str)]) -> Self {
        Reply::Error {
            status,
            error_type: error_type.into(),
            headers: headers.iter().map(|(k, v)| ((*k).into(), (*v).into())).collect(),
        }
    }
}

/// The SSE text of one event.
pub fn sse(event: &str, data: &Value) -> String {
    format!("event: {event}\ndata: {data}\n\n")
}

/// Renders a scripted answer as the events of a stream.
pub(super) fn answer_events(blocks: &[ContentBlock], stop_reason: &str) -> Vec<String> {
    let mut events = vec![sse(
        "message_start",
        &json!({"type": "message_start", "message": {"id": "msg_fake", "type": "message", "role": "assistant", "content": [], "model": "fake"}}),
    )];
    for (index, block) in blocks.iter().enumerate() {
        match block {
            ContentBlock::Text { text } => {
                events.push(sse("content_block_start", &json!({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}})));
                let chars: Vec<char> = text.chars().collect();
                for piece in chars.chunks(5) {
                    let piece: String = piece.iter().collect();
                    events.push(sse("content_block_delta", &json!({"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": piece}})));
                }
            }
            ContentBlock::ToolUse { id, name, input } => {
                events.push(sse("content_block_start", &json!({"type": "content_block_start", "index": index, "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}})));
                let json_text = input.to_string();
                let mut half = json_text.len() / 2;
                while !json_text.is_char_boundary(half) {
                    half += 1;
                }
                let (a, b) = json_text.split_at(half);
                for piece in ["", a, b] {
                    events.push(sse("content_block_delta", &json!({"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": piece}})));
                }
            }
            ContentBlock::ToolResult { .. }
            | ContentBlock::Image { .. }
            | ContentBlock::Document { .. }
            | ContentBlock::Attachment { .. } => continue,
        }
        events.push(sse("content_block_stop", &json!({"type": "content_block_stop", "index": index})));
    }
    events.push(sse(
        "message_delta",
        &json!({"type": "message_delta", "delta": {"stop_reason": stop_reason}, "usage": {"output_tokens": 5}}),
    ));
    events.push(sse("message_stop", &json!({"type": "message_stop"})));
    events
}

/// Renders a scripted answer in the OpenAI Chat Completions format: streamed chunks ending in
/// `[DONE]` (text in pieces, each tool call's arguments in two), or one JSON body.
pub(super) fn chat_completion(blocks: &[ContentBlock], stop_reason: &str, stream: bool) -> Vec<String> {
    let finish = match stop_reason {
        "tool_use" => "tool_calls",
        "max_tokens" => "length",
        _ => "stop",
    };
    let text: String = blocks
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    let calls: Vec<(&str, &str, String)> = blocks
        .iter()
        .filter_map(|b| match b {
            ContentBlock::ToolUse { id, name, input } => Some((id.as_str(), name.as_str(), input.to_string())),
            _ => None,
        })
        .collect();
    let usage = json!({"prompt_tokens": 0, "completion_tokens": 5});
    if !stream {
        let tool_calls: Vec<Value> = calls
            .iter()
            .map(
                |(id, name, args)| json!({"id": id, "type": "function", "function": {"name": name, "arguments": args}}),
            )
            .collect();
        let mut message = json!({"role": "assistant", "content": text});
        if !tool_calls.is_empty() {
            message["tool_calls"] = Value::Array(tool_calls);
        }
        let body = json!({"id": "chatcmpl-fake", "object": "chat.completion", "choices": [{"index": 0, "message": message, "finish_reason": finish}], "usage": usage});
        return vec![body.to_string()];
    }
    let data = |chunk: Value| format!("data: {chunk}\n\n");
    let delta = |d: Value| {
        data(
            json!({"id": "chatcmpl-fake", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": d, "finish_reason": null}]}),
        )
    };
    let mut out = vec![delta(json!({"role": "assistant", "content": ""}))];
    let chars: Vec<char> = text.chars().collect();
    for piece in chars.chunks(5) {
        out.push(delta(json!({"content": piece.iter().collect::<String>()})));
    }
    for (index, (id, name, args)) in calls.iter().enumerate() {
        let mut half = args.len() / 2;
        while !args.is_char_boundary(half) {
            half += 1;
        }
        let (a, b) = args.split_at(half);
        out.push(delta(json!({"tool_calls": [{"index": index, "id": id, "type": "function", "function": {"name": name, "arguments": a}}]})));
        out.push(delta(json!({"tool_calls": [{"index": index, "function": {"arguments": b}}]})));
    }
    out.push(data(json!({"id": "chatcmpl-fake", "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})));
    out.push(data(json!({"id": "chatcmpl-fake", "choices": [], "usage": usage})));
    out.push("data: [DONE]\n\n".to_owned());
    out
}

/// A request the host received.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedRequest {
    pub at_ms: Millis,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Value,
}

impl RecordedRequest {
    /// A header value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// What the next embeddings request gets instead of vectors.
#[derive(Debug, Clone, PartialEq)]
pub enum EmbedFault {
    /// An error status with this body.
    Status(u16, String),
    /// Vectors holding NaN.
    Nan,
    /// Vectors of this many dimensions.
    Dims(usize),
    /// No answer: the connection is refused.
    Unreachable,
}

/// The scripted embedding server's state.
/// The scripted embedding server's state (its answers: embedder.rs).
#[derive(Debug, Default)]
pub(super) struct Embedder {
    pub(super) dims: usize,
    pub(super) faults: std::collections::VecDeque<EmbedFault>,
    /// Refuse every request (a phone with no endpoint reachable).
    pub(super) down: bool,
    pub(super) texts: Vec<String>,
    /// Virtual time each answer takes.
    pub(super) delay_ms: u64,
}
