//! The OpenAI Chat Completions format, the second wire format (issue 24): OpenAI, Gemini's and
//! many gateways' endpoints, and local servers (llama.cpp, Ollama, LM Studio) speak it. The same
//! internal conversation is sent — the Anthropic-shaped messages are translated here, tool calls
//! into `tool_calls` and tool results into `tool` messages — and the answer is read back into the
//! same [`ModelResponse`], so the agent loop, the history and the retry rules do not know which
//! format carried a call. What the format cannot carry is dropped knowingly: prompt-cache marks
//! (it has none to send; a server's own caching is reported as cache reads).

use serde_json::{json, Value};

use super::error::{ErrorKind, LlmError};
use super::request::ModelCall;
use super::sse::SseEvent;
use super::stream::{finish_tool_use, unreadable};
use super::types::{ContentBlock, ModelResponse, StopReason, Usage};

/// One Anthropic-shaped message as Chat Completions messages: an assistant message carries its
/// text and `tool_calls`; a user message's tool results become `tool` messages, first, then its
/// text as one user message.
fn translate_message(message: &Value, out: &mut Vec<Value>) {
    let role = message.get("role").and_then(Value::as_str).unwrap_or("user");
    let blocks = message.get("content").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
    let mut text = Vec::new();
    let mut calls = Vec::new();
    let mut images = Vec::new();
    let mut notes = Vec::new();
    for block in blocks {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => text.push(block.get("text").and_then(Value::as_str).unwrap_or("")),
            // The format's own image part: the same bytes as a data URL.
            Some("image") => {
                let source = block.get("source");
                let field = |name| source.and_then(|s| s.get(name)).and_then(Value::as_str).unwrap_or("");
                let url = format!("data:{};base64,{}", field("media_type"), field("data"));
                images.push(json!({"type": "image_url", "image_url": {"url": url}}));
            }
            // The format has no PDF part (attaching one is refused while it is chosen); one from
            // an earlier turn under the Messages format is named, never dropped in silence.
            Some("document") => {
                let title = block.get("title").and_then(Value::as_str).unwrap_or("a PDF");
                notes.push(format!("[{title} was attached here, but this server's format (Chat Completions) cannot take PDFs, so it was not sent.]"));
            }
            Some("tool_use") => calls.push(json!({
                "id": block.get("id").cloned().unwrap_or(Value::Null),
                "type": "function",
                "function": {
                    "name": block.get("name").cloned().unwrap_or(Value::Null),
                    "arguments": block.get("input").map(Value::to_string).unwrap_or_else(|| "{}".to_owned()),
                },
            })),
            Some("tool_result") => {
                let content = block.get("content").and_then(Value::as_str).unwrap_or("");
                let is_error = block.get("is_error").and_then(Value::as_bool).unwrap_or(false);
                out.push(json!({
                    "role": "tool",
                    "tool_call_id": block.get("tool_use_id").cloned().unwrap_or(Value::Null),
                    "content": if is_error { format!("Error: {content}") } else { content.to_owned() },
                }));
            }
            _ => {}
        }
    }
    text.extend(notes.iter().map(String::as_str));
    let text = text.join("\n\n");
    if role == "assistant" {
        let mut m =
            json!({"role": "assistant", "content": if text.is_empty() { Value::Null } else { Value::String(text) }});
        if !calls.is_empty() {
            m["tool_calls"] = Value::Array(calls);
        }
        out.push(m);
    } else if !images.is_empty() {
        let mut parts = vec![json!({"type": "text", "text": text})];
        parts.extend(images);
        out.push(json!({"role": "user", "content": parts}));
    } else if !text.is_empty() {
        out.push(json!({"role": "user", "content": text}));
    }
}

/// The Anthropic tool definitions (`[{name, description, input_schema}]`) as functions.
fn translate_tools(tools: &str) -> Option<Value> {
    let tools: Vec<Value> = serde_json::from_str(tools).ok()?;
    let functions: Vec<Value> = tools
        .iter()
        .map(|t| {
            json!({"type": "function", "function": {
                "name": t.get("name").cloned().unwrap_or(Value::Null),
                "description": t.get("description").cloned().unwrap_or(Value::Null),
                "parameters": t.get("input_schema").cloned().unwrap_or_else(|| json!({"type": "object"})),
            }})
        })
        .collect();
    (!functions.is_empty()).then_some(Value::Array(functions))
}

/// The JSON body of a Chat Completions request for the same call the Messages API would get.
pub(crate) fn request_body(model: &str, max_tokens: u32, call: ModelCall<'_>, stream: bool) -> String {
    let mut messages = Vec::new();
    let system: Vec<&str> = call.system.iter().map(|p| p.text.as_str()).collect();
    if !system.is_empty() {
        messages.push(json!({"role": "system", "content": system.join("\n\n")}));
    }
    let mut anthropic = String::new();
    call.history.write_with(call.messages, &mut anthropic);
    if let Ok(Value::Array(list)) = serde_json::from_str::<Value>(&anthropic) {
        for message in &list {
            translate_message(message, &mut messages);
        }
    }
    let mut body = json!({"model": model, "max_tokens": max_tokens, "messages": messages});
    if let Some(tools) = (!call.tools.is_empty()).then(|| translate_tools(call.tools)).flatten() {
        body["tools"] = tools;
    }
    if stream {
        body["stream"] = Value::Bool(true);
        body["stream_options"] = json!({"include_usage": true});
    }
    body.to_string()
}

/// The format's finish reasons in the Messages API's words.
fn stop_reason(finish: Option<&str>) -> StopReason {
    match finish {
        Some("tool_calls" | "function_call") => StopReason::ToolUse,
        Some("length") => StopReason::MaxTokens,
        Some("content_filter") => StopReason::Refusal,
        _ => StopReason::EndTurn,
    }
}

/// Reads a `usage` object: the server's cached prompt tokens count as cache reads.
fn read_usage(usage: &Value, into: &mut Usage) {
    let prompt = usage.get("prompt_tokens").and_then(Value::as_u64).unwrap_or(0);
    let cached = usage.pointer("/prompt_tokens_details/cached_tokens").and_then(Value::as_u64).unwrap_or(0).min(prompt);
    into.input_tokens = prompt - cached;
    into.cache_read_input_tokens = cached;
    into.output_tokens = usage.get("completion_tokens").and_then(Value::as_u64).unwrap_or(0);
}

/// A tool call being assembled from deltas.
#[derive(Debug, Default)]
struct PartialCall {
    id: String,
    name: String,
    arguments: String,
}

/// The content of an answer: its text, then its tool calls in order. Arguments that do not parse
/// are a truncated call when the answer hit its token limit, an error otherwise.
fn assemble(text: String, calls: Vec<PartialCall>, stop: StopReason, usage: Usage) -> Result<ModelResponse, LlmError> {
    let mut content = Vec::new();
    if !text.is_empty() {
        content.push(ContentBlock::Text { text });
    }
    let mut truncated_tools = Vec::new();
    let has_calls = !calls.is_empty();
    for (n, call) in calls.into_iter().enumerate() {
        // Some servers leave the id out; the history needs one to pair the result with.
        let id = if call.id.is_empty() { format!("call_{n}") } else { call.id };
        finish_tool_use((id, call.name, &call.arguments), &stop, &mut content, &mut truncated_tools)?;
    }
    // A server that calls tools but says "stop" (some do) still asked for them.
    let stop_reason = if has_calls && stop == StopReason::EndTurn { StopReason::ToolUse } else { stop };
    Ok(ModelResponse { content, stop_reason, truncated_tools, usage })
}

/// Reads a whole (not streamed) Chat Completions answer.
pub(crate) fn parse_response(body: &Value) -> Result<ModelResponse, LlmError> {
    let choice = body.pointer("/choices/0").ok_or_else(|| unreadable("the answer has no choices"))?;
    let message = choice.get("message").ok_or_else(|| unreadable("the answer's choice has no message"))?;
    let text = message.get("content").and_then(Value::as_str).unwrap_or("").to_owned();
    let calls = message
        .get("tool_calls")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
        .iter()
        .map(|c| PartialCall {
            id: c.get("id").and_then(Value::as_str).unwrap_or("").to_owned(),
            name: c.pointer("/function/name").and_then(Value::as_str).unwrap_or("").to_owned(),
            arguments: c.pointer("/function/arguments").and_then(Value::as_str).unwrap_or("").to_owned(),
        })
        .collect();
    let mut usage = Usage::default();
    if let Some(u) = body.get("usage") {
        read_usage(u, &mut usage);
    }
    assemble(text, calls, stop_reason(choice.get("finish_reason").and_then(Value::as_str)), usage)
}

/// State of one streamed Chat Completions answer (`data:` chunks, then `data: [DONE]`).
#[derive(Debug, Default)]
pub(crate) struct ChunkAccumulator {
    text: String,
    calls: Vec<PartialCall>,
    finish: Option<String>,
    usage: Usage,
    started: bool,
    done: bool,
}

impl ChunkAccumulator {
    /// True once `[DONE]` arrived.
    pub(crate) fn is_finished(&self) -> bool {
        self.done
    }

    /// Applies one chunk; returns the text it adds, if any.
    pub(crate) fn apply(&mut self, event: &SseEvent) -> Result<Option<String>, LlmError> {
        let data = event.data.trim();
        if data.is_empty() {
            return Ok(None);
        }
        if data == "[DONE]" {
            self.done = true;
            return Ok(None);
        }
        let chunk: Value =
            serde_json::from_str(data).map_err(|e| unreadable(format!("a chunk carries invalid JSON: {e}")))?;
        if let Some(error) = chunk.get("error") {
            let ty = error.get("type").and_then(Value::as_str).unwrap_or("api_error");
            let message = error.get("message").and_then(Value::as_str).unwrap_or("");
            return Err(LlmError::from_stream_error(ty, message));
        }
        self.started = true;
        if let Some(usage) = chunk.get("usage").filter(|u| u.is_object()) {
            read_usage(usage, &mut self.usage);
        }
        let Some(choice) = chunk.pointer("/choices/0") else { return Ok(None) };
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            self.finish = Some(reason.to_owned());
        }
        let Some(delta) = choice.get("delta") else { return Ok(None) };
        for call in delta.get("tool_calls").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]) {
            let index = call.get("index").and_then(Value::as_u64).unwrap_or(self.calls.len() as u64) as usize;
            if index > self.calls.len() + 64 {
                return Err(unreadable(format!("a tool call delta for index {index}")));
            }
            while self.calls.len() <= index {
                self.calls.push(PartialCall::default());
            }
            let partial = &mut self.calls[index];
            if let Some(id) = call.get("id").and_then(Value::as_str) {
                partial.id = id.to_owned();
            }
            if let Some(name) = call.pointer("/function/name").and_then(Value::as_str) {
                partial.name.push_str(name);
            }
            if let Some(arguments) = call.pointer("/function/arguments").and_then(Value::as_str) {
                partial.arguments.push_str(arguments);
            }
        }
        match delta.get("content").and_then(Value::as_str) {
            Some(piece) if !piece.is_empty() => {
                self.text.push_str(piece);
                Ok(Some(piece.to_owned()))
            }
            _ => Ok(None),
        }
    }

    /// Ends the answer where it is, as if the token limit cut it (see `StreamAccumulator`).
    pub(crate) fn cut_short(&mut self) {
        self.finish = Some("length".to_owned());
        self.done = true;
    }

    /// The finished answer. A stream that ends without `[DONE]` but with a finish reason is
    /// whole (some servers close instead); one with neither was cut.
    pub(crate) fn finish(self) -> Result<ModelResponse, LlmError> {
        if !self.done && self.finish.is_none() {
            let what = if self.started {
                "the stream ended before its last chunk"
            } else {
                "the stream ended before it began"
            };
            return Err(LlmError::new(ErrorKind::Network, what));
        }
        assemble(self.text, self.calls, stop_reason(self.finish.as_deref()), self.usage)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::request::CacheTtl;
    use crate::llm::types::TruncatedToolUse;
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
            content: vec![
                ContentBlock::document("application/pdf", "JVBERi0=", "paper.pdf"),
                ContentBlock::text("Sum up"),
            ],
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
        let call =
            ModelCall { system: &system, history: &history, messages: &messages, tools, ttl: CacheTtl::default() };
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
        let error =
            failing.apply(&chunk(json!({"error": {"type": "overloaded_error", "message": "busy"}}))).unwrap_err();
        assert!(error.to_string().contains("busy"));
        let long = json!({"choices": [{"message": {"content": "x", "tool_calls": [
            {"id": "c", "type": "function", "function": {"name": "write_file", "arguments": "{\"path\": \"a"}}
        ]}, "finish_reason": "length"}]});
        let r = parse_response(&long).unwrap();
        assert_eq!(r.truncated_tools, vec![TruncatedToolUse { id: "c".into(), name: "write_file".into() }]);
        assert!(parse_response(&json!({"choices": []})).is_err());
        assert!(parse_response(&json!({"error": {"message": "no"}})).is_err());
    }
}
