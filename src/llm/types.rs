//! Anthropic Messages API wire types: the messages and blocks we send and the parts of the answer
//! we use. Unknown block types in answers are skipped, never an error. The request body itself is
//! built in `request`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Who said a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    User,
    Assistant,
}

/// A content block we understand.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", try_from = "FlatBlock")]
pub enum ContentBlock {
    Text {
        text: String,
    },
    ToolUse {
        id: String,
        name: String,
        input: Value,
    },
    ToolResult {
        tool_use_id: String,
        content: String,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        is_error: bool,
    },
    /// An image, as the Messages API takes it: `source` is `{type: "base64", media_type, data}`.
    Image {
        source: Value,
    },
    /// A PDF, as the Messages API takes it (`source` as for an image), titled with its path.
    Document {
        source: Value,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        title: Option<String>,
    },
    /// What the user attached, by reference: kept so in the history and replaced by the blocks
    /// above (from the attachment's copy) just before a request goes out.
    Attachment {
        attachment: crate::attachment_ref::Attachment,
    },
}

/// A block as read: flat, every field optional. Reading tagged enums through one plain struct
/// spares the bundle serde's buffering machinery for internally tagged enums (~20 KB of wasm).
#[derive(Deserialize)]
struct FlatBlock {
    #[serde(rename = "type")]
    kind: String,
    text: Option<String>,
    id: Option<String>,
    name: Option<String>,
    input: Option<Value>,
    tool_use_id: Option<String>,
    content: Option<String>,
    #[serde(default)]
    is_error: bool,
    source: Option<Value>,
    title: Option<String>,
    attachment: Option<crate::attachment_ref::Attachment>,
}

/// A required field of a flat tagged record, or the error naming it.
pub(crate) fn field<T>(value: Option<T>, kind: &str, name: &str) -> Result<T, String> {
    value.ok_or_else(|| format!("a {kind} record needs the field {name}"))
}

impl TryFrom<FlatBlock> for ContentBlock {
    type Error = String;

    fn try_from(f: FlatBlock) -> Result<Self, String> {
        let kind = f.kind.as_str();
        match kind {
            "text" => Ok(ContentBlock::Text { text: field(f.text, kind, "text")? }),
            "tool_use" => Ok(ContentBlock::ToolUse {
                id: field(f.id, kind, "id")?,
                name: field(f.name, kind, "name")?,
                input: field(f.input, kind, "input")?,
            }),
            "tool_result" => Ok(ContentBlock::ToolResult {
                tool_use_id: field(f.tool_use_id, kind, "tool_use_id")?,
                content: field(f.content, kind, "content")?,
                is_error: f.is_error,
            }),
            "image" => Ok(ContentBlock::Image { source: field(f.source, kind, "source")? }),
            "document" => Ok(ContentBlock::Document { source: field(f.source, kind, "source")?, title: f.title }),
            "attachment" => Ok(ContentBlock::Attachment { attachment: field(f.attachment, kind, "attachment")? }),
            other => Err(format!("unknown content block type {other:?}")),
        }
    }
}

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text { text: text.into() }
    }

    /// An image block from base64 data.
    pub fn image(media_type: &str, base64: &str) -> Self {
        ContentBlock::Image { source: serde_json::json!({"type": "base64", "media_type": media_type, "data": base64}) }
    }

    /// A PDF document block from base64 data.
    pub fn document(media_type: &str, base64: &str, title: &str) -> Self {
        ContentBlock::Document {
            source: serde_json::json!({"type": "base64", "media_type": media_type, "data": base64}),
            title: Some(title.to_owned()),
        }
    }

    /// Reads one block of an answer; `None` for types we do not use (thinking, server tools…).
    pub fn from_value(value: &Value) -> Option<Self> {
        match value.get("type")?.as_str()? {
            "text" | "tool_use" | "tool_result" => crate::lean::from_value(value).ok(),
            _ => None,
        }
    }
}

/// One message of the conversation sent to the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApiMessage {
    pub role: Role,
    pub content: Vec<ContentBlock>,
}

impl ApiMessage {
    /// A user message with one text block.
    pub fn user_text(text: impl Into<String>) -> Self {
        ApiMessage { role: Role::User, content: vec![ContentBlock::text(text)] }
    }

    /// The text blocks joined.
    pub fn text(&self) -> String {
        self.content
            .iter()
            .filter_map(|b| match b {
                ContentBlock::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("")
    }

    /// The tool calls in this message.
    pub fn tool_uses(&self) -> impl Iterator<Item = (&str, &str, &Value)> {
        self.content.iter().filter_map(|b| match b {
            ContentBlock::ToolUse { id, name, input } => Some((id.as_str(), name.as_str(), input)),
            _ => None,
        })
    }
}

/// A tool offered to the model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct ToolDef {
    pub name: String,
    pub description: String,
    pub input_schema: Value,
}

/// One part of the system prompt; `cache` marks the end of the stable prefix.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SystemPart {
    pub text: String,
    pub cache: bool,
}

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum StopReason {
    EndTurn,
    MaxTokens,
    StopSequence,
    ToolUse,
    PauseTurn,
    Refusal,
    ContextWindowExceeded,
    /// Ours, never on the wire: the answer passed `client::MAX_ANSWER_BYTES` and was cut there.
    AnswerTooLong,
    Other(String),
}

impl StopReason {
    /// Reads the wire name.
    pub(crate) fn parse(name: &str) -> Self {
        match name {
            "end_turn" => StopReason::EndTurn,
            "max_tokens" => StopReason::MaxTokens,
            "stop_sequence" => StopReason::StopSequence,
            "tool_use" => StopReason::ToolUse,
            "pause_turn" => StopReason::PauseTurn,
            "refusal" => StopReason::Refusal,
            "model_context_window_exceeded" => StopReason::ContextWindowExceeded,
            other => StopReason::Other(other.to_owned()),
        }
    }
}

/// A tool call whose input did not arrive whole (the answer was cut by `max_tokens`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TruncatedToolUse {
    pub id: String,
    pub name: String,
}

/// What model calls consumed, as the API's `usage` reports it (fresh input, input written to
/// and read from the prompt cache, output), and for a turn what it held of the context window and
/// its estimated cost. Kept per turn (history, `ProcessResult`) so the user sees what a
/// conversation costs, and appended to the usage ledger for the day's and month's totals.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Usage {
    /// Input tokens neither read from nor written to the cache.
    pub input_tokens: u64,
    /// Input tokens written to the cache (priced above fresh input).
    pub cache_creation_input_tokens: u64,
    /// Of those, the ones written with the one-hour TTL (priced higher still).
    #[serde(skip_serializing_if = "is_zero")]
    pub cache_creation_1h_tokens: u64,
    /// Input tokens read from the cache (a tenth of fresh input's price).
    pub cache_read_input_tokens: u64,
    pub output_tokens: u64,
    /// Model calls counted.
    #[serde(skip_serializing_if = "is_zero_u32")]
    pub model_calls: u32,
    /// What the newest call held in the context window: all its input and its output.
    #[serde(skip_serializing_if = "is_zero")]
    pub context_tokens: u64,
    /// The model that answered.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub model: String,
    /// The model's context window, from the price table (0 when the table does not know it).
    #[serde(skip_serializing_if = "is_zero")]
    pub context_window: u64,
    /// Estimated cost in US dollars from the price table; absent when it does not know the model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn is_zero_u32(n: &u32) -> bool {
    *n == 0
}

impl Usage {
    /// Every input token of the call(s): fresh, written and read.
    pub fn total_input(&self) -> u64 {
        self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens
    }

    /// Adds a later call's (or turn's) usage: token counts and costs add up, the context filled
    /// and the model are the later one's.
    pub fn add(&mut self, other: &Usage) {
        self.input_tokens += other.input_tokens;
        self.cache_creation_input_tokens += other.cache_creation_input_tokens;
        self.cache_creation_1h_tokens += other.cache_creation_1h_tokens;
        self.cache_read_input_tokens += other.cache_read_input_tokens;
        self.output_tokens += other.output_tokens;
        self.model_calls += other.model_calls;
        if other.context_tokens > 0 {
            self.context_tokens = other.context_tokens;
        }
        if !other.model.is_empty() {
            self.model.clone_from(&other.model);
        }
        if other.context_window > 0 {
            self.context_window = other.context_window;
        }
        self.cost_usd = match (self.cost_usd, other.cost_usd) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
        };
    }

    /// Reads a `usage` object (a response's, `message_start`'s or `message_delta`'s) over what is
    /// known so far: fields that are absent or null keep their value (`message_delta` repeats
    /// only some, cumulatively).
    pub(crate) fn update_from(&mut self, usage: &Value) {
        let read = |name: &str| usage.get(name).and_then(Value::as_u64);
        if let Some(n) = read("input_tokens") {
            self.input_tokens = n;
        }
        if let Some(n) = read("cache_creation_input_tokens") {
            self.cache_creation_input_tokens = n;
        }
        if let Some(n) = usage.pointer("/cache_creation/ephemeral_1h_input_tokens").and_then(Value::as_u64) {
            self.cache_creation_1h_tokens = n;
        }
        if let Some(n) = read("cache_read_input_tokens") {
            self.cache_read_input_tokens = n;
        }
        if let Some(n) = read("output_tokens") {
            self.output_tokens = n;
        }
    }
}

/// A complete model answer.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ModelResponse {
    pub content: Vec<ContentBlock>,
    pub stop_reason: StopReason,
    /// Tool calls dropped because their input was cut off.
    pub truncated_tools: Vec<TruncatedToolUse>,
    /// What the call consumed (zero when the server reports nothing).
    pub usage: Usage,
}

/// Reads a non-streamed answer body.
pub(crate) fn parse_response(body: &Value) -> Option<ModelResponse> {
    let content = body.get("content")?.as_array()?.iter().filter_map(ContentBlock::from_value).collect();
    let stop_reason = StopReason::parse(body.get("stop_reason").and_then(Value::as_str).unwrap_or("end_turn"));
    let mut usage = Usage::default();
    if let Some(u) = body.get("usage") {
        usage.update_from(u);
    }
    Some(ModelResponse { content, stop_reason, truncated_tools: Vec::new(), usage })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn unknown_blocks_are_skipped() {
        let body = json!({"content": [
            {"type": "thinking", "thinking": "hm", "signature": "x"},
            {"type": "text", "text": "hi"},
            {"type": "tool_use", "id": "t1", "name": "send_message", "input": {"message": "yo"}}
        ], "stop_reason": "tool_use"});
        let r = parse_response(&body).unwrap();
        assert_eq!(r.content.len(), 2);
        assert_eq!(r.stop_reason, StopReason::ToolUse);
    }

    #[test]
    fn tool_result_serialises_without_false_flag() {
        let b = ContentBlock::ToolResult { tool_use_id: "t".into(), content: "ok".into(), is_error: false };
        assert_eq!(
            serde_json::to_value(b).unwrap(),
            json!({"type": "tool_result", "tool_use_id": "t", "content": "ok"})
        );
    }
}
