//! Builds a model answer from the Messages API event stream, handing out text deltas as they
//! arrive. Unknown events, unknown blocks and unknown delta types are ignored.

use serde_json::Value;

use super::error::{ErrorKind, LlmError};
use super::sse::SseEvent;
use super::types::{ContentBlock, ModelResponse, StopReason, TruncatedToolUse, Usage};

/// A content block being streamed.
#[derive(Debug)]
enum Partial {
    Text(String),
    ToolUse {
        id: String,
        name: String,
        json: String,
    },
    /// A block type we do not use; its deltas are dropped.
    Ignored,
}

/// State of one streamed answer.
#[derive(Debug, Default)]
pub(crate) struct StreamAccumulator {
    blocks: Vec<(u64, Partial)>,
    stop_reason: Option<String>,
    usage: Usage,
    started: bool,
    finished: bool,
}

/// An answer that cannot be read as the format says.
pub(crate) fn unreadable(what: impl Into<String>) -> LlmError {
    LlmError::new(ErrorKind::InvalidResponse, what)
}

/// A tool call's streamed input, whole: an empty input is `{}`; one that does not parse is a
/// call cut by the answer's token limit (kept aside in `truncated`) or, otherwise, an error. Both
/// wire formats end their tool calls here.
pub(crate) fn finish_tool_use(
    (id, name, json): (String, String, &str),
    stop_reason: &StopReason,
    content: &mut Vec<ContentBlock>,
    truncated: &mut Vec<TruncatedToolUse>,
) -> Result<(), LlmError> {
    let parsed =
        if json.trim().is_empty() { Ok(Value::Object(Default::default())) } else { serde_json::from_str(json) };
    match parsed {
        Ok(input) => content.push(ContentBlock::ToolUse { id, name, input }),
        Err(_) if *stop_reason == StopReason::MaxTokens => truncated.push(TruncatedToolUse { id, name }),
        Err(e) => return Err(unreadable(format!("tool {name} input is not JSON: {e}"))),
    }
    Ok(())
}

impl StreamAccumulator {
    /// An empty answer.
    pub(crate) fn new() -> Self {
        StreamAccumulator::default()
    }

    /// True once `message_stop` arrived.
    pub(crate) fn is_finished(&self) -> bool {
        self.finished
    }

    fn block_mut(&mut self, index: u64) -> Option<&mut Partial> {
        self.blocks.iter_mut().find(|(i, _)| *i == index).map(|(_, b)| b)
    }

    /// Applies one event; returns the text it adds, if any.
    pub(crate) fn apply(&mut self, event: &SseEvent) -> Result<Option<String>, LlmError> {
        if event.data.trim().is_empty() {
            return Ok(None);
        }
        let data: Value = serde_json::from_str(&event.data)
            .map_err(|e| unreadable(format!("event {:?} carries invalid JSON: {e}", event.event)))?;
        let kind = data.get("type").and_then(Value::as_str).unwrap_or(event.event.as_str());
        let index = data.get("index").and_then(Value::as_u64);
        match kind {
            "message_start" => {
                self.started = true;
                if let Some(usage) = data.pointer("/message/usage") {
                    self.usage.update_from(usage);
                }
            }
            "content_block_start" => {
                let index = index.ok_or_else(|| unreadable("content_block_start without index"))?;
                let block = data.get("content_block").ok_or_else(|| unreadable("content_block_start without block"))?;
                let partial = match block.get("type").and_then(Value::as_str) {
                    Some("text") => Partial::Text(block.get("text").and_then(Value::as_str).unwrap_or("").to_owned()),
                    Some("tool_use") => Partial::ToolUse {
                        id: block.get("id").and_then(Value::as_str).unwrap_or("").to_owned(),
                        name: block.get("name").and_then(Value::as_str).unwrap_or("").to_owned(),
                        json: String::new(),
                    },
                    _ => Partial::Ignored,
                };
                self.blocks.push((index, partial));
            }
            "content_block_delta" => {
                let index = index.ok_or_else(|| unreadable("content_block_delta without index"))?;
                let delta = data.get("delta").ok_or_else(|| unreadable("content_block_delta without delta"))?;
                let block =
                    self.block_mut(index).ok_or_else(|| unreadable(format!("delta for unknown block {index}")))?;
                match (block, delta.get("type").and_then(Value::as_str)) {
                    (Partial::Text(text), Some("text_delta")) => {
                        let piece = delta.get("text").and_then(Value::as_str).unwrap_or("");
                        text.push_str(piece);
                        if !piece.is_empty() {
                            return Ok(Some(piece.to_owned()));
                        }
                    }
                    (Partial::ToolUse { json, .. }, Some("input_json_delta")) => {
                        json.push_str(delta.get("partial_json").and_then(Value::as_str).unwrap_or(""));
                    }
                    _ => {}
                }
            }
            "message_delta" => {
                if let Some(reason) = data.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    self.stop_reason = Some(reason.to_owned());
                }
                if let Some(usage) = data.get("usage") {
                    self.usage.update_from(usage);
                }
            }
            "message_stop" => self.finished = true,
            "error" => {
                let ty = data.pointer("/error/type").and_then(Value::as_str).unwrap_or("api_error");
                let msg = data.pointer("/error/message").and_then(Value::as_str).unwrap_or("");
                return Err(LlmError::from_stream_error(ty, msg));
            }
            _ => {}
        }
        Ok(None)
    }

    /// Ends the answer where it is, as if the token limit cut it: its unfinished tool calls
    /// are dropped, not run.
    pub(crate) fn cut_short(&mut self) {
        self.stop_reason = Some("max_tokens".to_owned());
        self.finished = true;
    }

    /// The finished answer. Tool calls whose input does not parse are dropped into
    /// `truncated_tools` when the answer hit `max_tokens`, and are an error otherwise.
    pub(crate) fn finish(self) -> Result<ModelResponse, LlmError> {
        if !self.finished {
            let what =
                if self.started { "the stream ended before message_stop" } else { "the stream ended before it began" };
            return Err(LlmError::new(ErrorKind::Network, what));
        }
        let stop_reason = StopReason::parse(self.stop_reason.as_deref().unwrap_or("end_turn"));
        let mut blocks = self.blocks;
        crate::lean::sort_by_key(&mut blocks, |(i, _)| *i);
        let mut content = Vec::new();
        let mut truncated_tools = Vec::new();
        for (_, block) in blocks {
            match block {
                Partial::Text(text) => content.push(ContentBlock::Text { text }),
                Partial::ToolUse { id, name, json } => {
                    finish_tool_use((id, name, &json), &stop_reason, &mut content, &mut truncated_tools)?
                }
                Partial::Ignored => {}
            }
        }
        Ok(ModelResponse { content, stop_reason, truncated_tools, usage: self.usage })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ev(data: Value) -> SseEvent {
        SseEvent { event: data["type"].as_str().unwrap_or("message").to_owned(), data: data.to_string() }
    }

    fn run(events: &[Value]) -> (Result<ModelResponse, LlmError>, String) {
        let mut acc = StreamAccumulator::new();
        let mut text = String::new();
        for e in events {
            match acc.apply(&ev(e.clone())) {
                Ok(Some(t)) => text.push_str(&t),
                Ok(None) => {}
                Err(err) => return (Err(err), text),
            }
        }
        (acc.finish(), text)
    }

    fn start() -> Value {
        json!({"type": "message_start", "message": {"id": "m", "content": []}})
    }

    #[test]
    fn text_and_tool_use_are_assembled() {
        let (r, text) = run(&[
            start(),
            json!({"type": "ping"}),
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hel"}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "lo"}}),
            json!({"type": "content_block_stop", "index": 0}),
            json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "t1", "name": "send_message", "input": {}}}),
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": ""}}),
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"message\":"}}),
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "\"hi\"}"}}),
            json!({"type": "content_block_stop", "index": 1}),
            json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}}),
            json!({"type": "message_stop"}),
        ]);
        let r = r.unwrap();
        assert_eq!(text, "Hello");
        assert_eq!(r.stop_reason, StopReason::ToolUse);
        assert_eq!(
            r.content[1],
            ContentBlock::ToolUse { id: "t1".into(), name: "send_message".into(), input: json!({"message": "hi"}) }
        );
    }

    #[test]
    fn usage_comes_from_message_start_and_the_cumulative_message_delta() {
        let (r, _) = run(&[
            json!({"type": "message_start", "message": {"id": "m", "content": [], "usage": {
                "input_tokens": 12, "cache_creation_input_tokens": 300, "cache_read_input_tokens": 4000,
                "cache_creation": {"ephemeral_5m_input_tokens": 100, "ephemeral_1h_input_tokens": 200},
                "output_tokens": 1}}}),
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "ok"}}),
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"},
                "usage": {"output_tokens": 57, "input_tokens": null, "cache_read_input_tokens": 4001}}),
            json!({"type": "message_stop"}),
        ]);
        assert_eq!(
            r.unwrap().usage,
            Usage {
                input_tokens: 12,
                cache_creation_input_tokens: 300,
                cache_creation_1h_tokens: 200,
                cache_read_input_tokens: 4001,
                output_tokens: 57,
                ..Usage::default()
            }
        );
    }

    #[test]
    fn unknown_events_blocks_and_deltas_are_ignored() {
        let (r, text) = run(&[
            start(),
            json!({"type": "future_thing", "x": 1}),
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "hmm"}}),
            json!({"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}}),
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "citations_delta"}}),
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "ok"}}),
            json!({"type": "message_stop"}),
        ]);
        assert_eq!(text, "ok");
        assert_eq!(r.unwrap().content, vec![ContentBlock::text("ok")]);
    }

    #[test]
    fn cut_tool_input_is_dropped_only_at_max_tokens() {
        let events = |reason: &str| {
            vec![
                start(),
                json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "t", "name": "x", "input": {}}}),
                json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "{\"a\": \"unfin"}}),
                json!({"type": "message_delta", "delta": {"stop_reason": reason}}),
                json!({"type": "message_stop"}),
            ]
        };
        let r = run(&events("max_tokens")).0.unwrap();
        assert!(r.content.is_empty());
        assert_eq!(r.truncated_tools, vec![TruncatedToolUse { id: "t".into(), name: "x".into() }]);
        assert_eq!(run(&events("tool_use")).0.unwrap_err().kind, ErrorKind::InvalidResponse);
    }

    #[test]
    fn error_event_malformed_data_and_early_end_are_errors() {
        let (r, _) =
            run(&[start(), json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})]);
        assert_eq!(r.unwrap_err().kind, ErrorKind::Overloaded);
        let mut acc = StreamAccumulator::new();
        let bad = SseEvent { event: "content_block_delta".into(), data: "{\"type\":".into() };
        assert_eq!(acc.apply(&bad).unwrap_err().kind, ErrorKind::InvalidResponse);
        assert_eq!(run(&[start()]).0.unwrap_err().kind, ErrorKind::Network);
    }
}
