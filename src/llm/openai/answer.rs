//! A Chat Completions answer read back into the same [`ModelResponse`] the Messages API gives:
//! whole, or streamed as `data:` chunks (text and tool-call deltas assembled, `[DONE]` ending
//! it); finish reasons in the Messages API's words, cached prompt tokens as cache reads.

use serde_json::Value;

use crate::llm::error::{ErrorKind, LlmError};
use crate::llm::sse::SseEvent;
use crate::llm::stream::{finish_tool_use, unreadable};
use crate::llm::types::{ContentBlock, ModelResponse, StopReason, Usage};

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
