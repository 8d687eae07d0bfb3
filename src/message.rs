//! The messages the processor takes in and the results it hands back, in the shapes seed 003
//! gives them (`RoutedMessage`, `ProcessResult`), with the validation that keeps bad input from
//! ever reaching the inbox.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use thiserror::Error;

/// Longest message text accepted, in characters.
pub(crate) const MAX_TEXT_CHARS: usize = 100_000;
/// Longest message id accepted, in bytes (ids become file names).
pub(crate) const MAX_ID_BYTES: usize = 200;
/// Code of a message refused before it reached the inbox (the one failure not worth a retry:
/// the same input would be refused again).
pub(crate) const INVALID_MESSAGE: &str = "invalid_message";
/// What the ids the core mints for typed messages start with.
pub(crate) const DIRECT_ID_PREFIX: &str = "direct-";

/// Where a message came from; shown to the user and kept in history.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum MessageSource {
    /// Routed by the SmartHole hub (voice or text typed to the hub).
    Websocket,
    /// Typed in the chat view.
    #[default]
    Direct,
    /// Produced by a scheduled background run.
    Worker,
    /// Written by the plugin itself (hidden markers such as "chat opened").
    System,
    /// Sent by an external agent through the local agent API.
    Api,
}

impl MessageSource {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            MessageSource::Websocket => "websocket",
            MessageSource::Direct => "direct",
            MessageSource::Worker => "worker",
            MessageSource::System => "system",
            MessageSource::Api => "api",
        }
    }
}

/// A message to process (seed 003 `RoutedMessage`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoutedMessage {
    pub id: String,
    pub text: String,
    /// ISO 8601 time the message was sent.
    pub timestamp: String,
    #[serde(default)]
    pub source: MessageSource,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
    /// What the user attached (made by `attach_vault` / `attach_bytes`; only typed messages and
    /// the agent API's carry any, never the hub's).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<crate::attachment_ref::Attachment>,
    /// An edit in place: the passage the answer rewrites (made by `editInPlace` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edit: Option<Box<crate::edit_in_place::EditTarget>>,
}

impl RoutedMessage {
    /// A message typed by the user, with the id and time the core gives it (so no host mints ids
    /// of its own).
    pub fn direct(id: String, text: String, timestamp: String) -> Self {
        RoutedMessage {
            id,
            text,
            timestamp,
            source: MessageSource::Direct,
            metadata: None,
            attachments: Vec::new(),
            edit: None,
        }
    }

    /// True when the hub delivered this message, so it must be acked and notified.
    pub fn from_hub(&self) -> bool {
        self.source == MessageSource::Websocket
    }

    /// The conversation a scheduled run's message names (a `worker` message carries it in its
    /// metadata); `None` for every other message, whose turn goes to the current conversation.
    /// Every event about the message carries it, so a view can tell runs of a conversation it
    /// does not show without remembering anything.
    pub fn named_conversation(&self) -> Option<String> {
        if self.source != MessageSource::Worker {
            return None;
        }
        self.metadata.as_ref()?.get("conversationId")?.as_str().map(str::to_owned)
    }
}

/// A message accepted and not answered yet, as the chat view is told of it (`in_flight`): it
/// shows Stop while one of its conversation's is in flight.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InFlightMessage {
    pub message_id: String,
    /// The conversation a scheduled run's message names (`named_conversation`); none for a
    /// message to the current conversation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conversation_id: Option<String>,
}

/// Why an incoming message was refused before it reached the inbox.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum InvalidMessage {
    #[error("the message is not a JSON object")]
    NotAnObject,
    #[error("the message has no id")]
    MissingId,
    #[error("the message id must be a non-empty string of at most {MAX_ID_BYTES} bytes")]
    BadId,
    #[error("the message has no text")]
    MissingText,
    #[error("the message text must be a string")]
    TextNotString,
    #[error("the message text is empty")]
    EmptyText,
    #[error("the message is {chars} characters long; the limit is {MAX_TEXT_CHARS}")]
    TextTooLong { chars: usize },
    #[error("unknown message source {0:?}")]
    BadSource(String),
    #[error("the message metadata must be an object")]
    BadMetadata,
    #[error("the message's attachments are not valid: {0}")]
    BadAttachments(String),
    #[error("only messages typed in the chat or sent through the agent API carry attachments")]
    AttachmentsNotTaken,
}

/// The id of a possibly invalid message, so a refusal can still name it.
pub(crate) fn id_of(value: &Value) -> Option<&str> {
    value.get("id").and_then(Value::as_str).filter(|id| !id.is_empty() && id.len() <= MAX_ID_BYTES)
}

/// Checks an incoming message field by field and builds the typed message.
/// A missing timestamp is filled with `now_iso`.
pub fn parse_routed(value: &Value, now_iso: &str) -> Result<RoutedMessage, InvalidMessage> {
    let obj = value.as_object().ok_or(InvalidMessage::NotAnObject)?;
    let id = match obj.get("id") {
        None | Some(Value::Null) => return Err(InvalidMessage::MissingId),
        Some(Value::String(id)) if !id.trim().is_empty() && id.len() <= MAX_ID_BYTES => id.clone(),
        Some(_) => return Err(InvalidMessage::BadId),
    };
    let text = match obj.get("text") {
        None | Some(Value::Null) => return Err(InvalidMessage::MissingText),
        Some(Value::String(text)) => text,
        Some(_) => return Err(InvalidMessage::TextNotString),
    };
    if text.trim().is_empty() {
        return Err(InvalidMessage::EmptyText);
    }
    let chars = text.chars().count();
    if chars > MAX_TEXT_CHARS {
        return Err(InvalidMessage::TextTooLong { chars });
    }
    let source = match obj.get("source") {
        None | Some(Value::Null) => MessageSource::Direct,
        Some(v) => crate::lean::from_value(v)
            .map_err(|_| InvalidMessage::BadSource(v.as_str().unwrap_or("(not a string)").to_owned()))?,
    };
    let metadata = match obj.get("metadata") {
        None | Some(Value::Null) => None,
        Some(Value::Object(m)) => Some(m.clone()),
        Some(_) => return Err(InvalidMessage::BadMetadata),
    };
    let attachments: Vec<crate::attachment_ref::Attachment> = match obj.get("attachments") {
        None | Some(Value::Null) => Vec::new(),
        Some(v) => crate::lean::from_value(v).map_err(|e| InvalidMessage::BadAttachments(e.to_string()))?,
    };
    if !attachments.is_empty() && !matches!(source, MessageSource::Direct | MessageSource::Api) {
        return Err(InvalidMessage::AttachmentsNotTaken);
    }
    if let Some(bad) = attachments.iter().find(|a| !crate::attachment_ref::is_content_hash(&a.hash)) {
        return Err(InvalidMessage::BadAttachments(format!("{} has no valid content hash", bad.path)));
    }
    if attachments.len() > crate::attachment_ref::MAX_ATTACHMENTS {
        return Err(InvalidMessage::BadAttachments(crate::attachment_ref::too_many_attachments()));
    }
    let timestamp =
        obj.get("timestamp").and_then(Value::as_str).filter(|t| !t.is_empty()).unwrap_or(now_iso).to_owned();
    // An edit in place is made by `editInPlace` only, never taken from a message from outside.
    Ok(RoutedMessage { id, text: text.clone(), timestamp, source, metadata, attachments, edit: None })
}

/// What `process()` resolves with (seed 003 `ProcessResult`, plus `errorCode`, `retryable`,
/// `cancelled` and `notice`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct ProcessResult {
    pub success: bool,
    pub message_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_used: Option<Vec<String>>,
    /// The user-facing error message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The machine-readable error code (`auth_error`, `rate_limit`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_code: Option<String>,
    /// True when the view may offer Retry (the same message again): every failure but a refused
    /// message. Decided here so no view keeps its own list of codes.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub retryable: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_waiting_for_response: Option<bool>,
    /// True when the user stopped this message.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cancelled: bool,
    /// How the turn ended when the user should know (a limit hit, a refusal).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notice: Option<String>,
    /// What the turn's model calls consumed, as the server reported it, with the estimated cost.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<crate::llm::Usage>,
}

impl ProcessResult {
    /// Applies `mask` to the texts a server or a note may have put here (the answer, the
    /// error, the notice).
    pub(crate) fn mask_texts(&mut self, mask: &dyn Fn(&mut String)) {
        for text in [&mut self.response, &mut self.error, &mut self.notice].into_iter().flatten() {
            mask(text);
        }
    }

    /// A finished message.
    pub fn success(message_id: &str, response: String, tools_used: Vec<String>, waiting: bool) -> Self {
        ProcessResult {
            success: true,
            message_id: message_id.to_owned(),
            response: Some(response),
            tools_used: Some(tools_used),
            is_waiting_for_response: Some(waiting),
            ..Default::default()
        }
    }

    /// A message the user stopped: seed 003's `{success: true, response: "", toolsUsed: []}`.
    pub fn cancelled(message_id: &str) -> Self {
        ProcessResult {
            success: true,
            message_id: message_id.to_owned(),
            response: Some(String::new()),
            tools_used: Some(Vec::new()),
            cancelled: true,
            ..Default::default()
        }
    }

    /// A failed message, with the user-facing text and the code; retryable unless it was refused.
    pub fn failure(message_id: &str, code: &str, error: String) -> Self {
        ProcessResult {
            success: false,
            message_id: message_id.to_owned(),
            error: Some(error),
            error_code: Some(code.to_owned()),
            retryable: code != INVALID_MESSAGE,
            ..Default::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const NOW: &str = "2026-01-01T00:00:00.000Z";

    #[test]
    fn valid_message_is_parsed_with_defaults() {
        let m = parse_routed(&json!({"id": "msg-1", "text": "buy milk"}), NOW).unwrap();
        assert_eq!(m.source, MessageSource::Direct);
        assert_eq!(m.timestamp, NOW);
        let m = parse_routed(
            &json!({"id": "m", "text": "x", "source": "websocket", "timestamp": "t", "metadata": {"inputMethod": "voice"}}),
            NOW,
        )
        .unwrap();
        assert!(m.from_hub());
        assert_eq!(m.metadata.unwrap()["inputMethod"], "voice");
    }

    #[test]
    fn every_bad_field_is_named() {
        let long = "a".repeat(MAX_TEXT_CHARS + 1);
        let cases = [
            (json!("text"), InvalidMessage::NotAnObject),
            (json!({"text": "x"}), InvalidMessage::MissingId),
            (json!({"id": 5, "text": "x"}), InvalidMessage::BadId),
            (json!({"id": "  ", "text": "x"}), InvalidMessage::BadId),
            (json!({"id": "a".repeat(MAX_ID_BYTES + 1), "text": "x"}), InvalidMessage::BadId),
            (json!({"id": "m"}), InvalidMessage::MissingText),
            (json!({"id": "m", "text": 42}), InvalidMessage::TextNotString),
            (json!({"id": "m", "text": " \n"}), InvalidMessage::EmptyText),
            (json!({"id": "m", "text": long}), InvalidMessage::TextTooLong { chars: MAX_TEXT_CHARS + 1 }),
            (
                json!({"id": "m", "text": "x", "source": "carrier-pigeon"}),
                InvalidMessage::BadSource("carrier-pigeon".into()),
            ),
            (json!({"id": "m", "text": "x", "metadata": [1]}), InvalidMessage::BadMetadata),
        ];
        for (value, expected) in cases {
            assert_eq!(parse_routed(&value, NOW), Err(expected), "{value}");
        }
    }

    #[test]
    fn text_limit_counts_characters_not_bytes() {
        let text = "é".repeat(MAX_TEXT_CHARS);
        assert!(parse_routed(&json!({"id": "m", "text": text}), NOW).is_ok());
    }

    #[test]
    fn cancelled_result_has_the_seed_shape() {
        let v = serde_json::to_value(ProcessResult::cancelled("m1")).unwrap();
        assert_eq!(v, json!({"success": true, "messageId": "m1", "response": "", "toolsUsed": [], "cancelled": true}));
    }

    #[test]
    fn every_failure_but_a_refusal_is_retryable() {
        let v = serde_json::to_value(ProcessResult::failure("m1", "rate_limit", "busy".into())).unwrap();
        assert_eq!(
            v,
            json!({"success": false, "messageId": "m1", "error": "busy", "errorCode": "rate_limit", "retryable": true})
        );
        assert!(ProcessResult::failure("m1", "storage_error", String::new()).retryable);
        let refused = serde_json::to_value(ProcessResult::failure("", INVALID_MESSAGE, "bad".into())).unwrap();
        assert!(refused.get("retryable").is_none());
    }
}
