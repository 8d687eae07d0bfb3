//! SmartHole hub frames: the ones the plugin sends (registration, and the `response` envelopes
//! ack, reject, notification) built exactly as the hub expects them, and the ones it receives,
//! checked field by field. A bad incoming frame is an error value to log, never a panic.

use serde::Serialize;
use serde_json::{json, Map, Value};
use thiserror::Error;

/// The largest frame the hub sends or accepts.
pub(crate) const MAX_FRAME_BYTES: usize = 1024 * 1024;

/// A frame from the hub.
#[derive(Debug, Clone, PartialEq)]
pub enum Inbound {
    /// The answer to our registration.
    RegistrationResponse { success: bool, client_id: Option<String>, code: Option<String>, message: Option<String> },
    /// A routed message (its payload, checked later by the processor like any message).
    Message(Map<String, Value>),
}

/// Why an incoming frame was dropped.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FrameError {
    #[error("frame of {0} bytes is over the 1 MB limit")]
    TooLarge(usize),
    #[error("frame is not JSON: {0}")]
    NotJson(String),
    #[error("frame has no string \"type\"")]
    NoType,
    #[error("frame payload is not an object")]
    PayloadNotObject,
    #[error("unknown frame type {0:?}")]
    UnknownType(String),
}

/// Reads a frame from the hub.
pub fn parse_inbound(text: &str) -> Result<Inbound, FrameError> {
    if text.len() > MAX_FRAME_BYTES {
        return Err(FrameError::TooLarge(text.len()));
    }
    let value: Value = serde_json::from_str(text).map_err(|e| FrameError::NotJson(e.to_string()))?;
    let kind = value.get("type").and_then(Value::as_str).ok_or(FrameError::NoType)?;
    let payload = value.get("payload").and_then(Value::as_object).ok_or(FrameError::PayloadNotObject)?;
    let text_field = |k: &str| payload.get(k).and_then(Value::as_str).map(str::to_owned);
    match kind {
        "registration_response" => Ok(Inbound::RegistrationResponse {
            success: payload.get("success").and_then(Value::as_bool).unwrap_or(false),
            client_id: text_field("clientId"),
            code: text_field("code"),
            message: text_field("message"),
        }),
        "message" => Ok(Inbound::Message(payload.clone())),
        other => Err(FrameError::UnknownType(other.to_owned())),
    }
}

/// The id of a routed message in a frame too large to parse, found by scanning the text: the
/// frame must say `"type":"message"`, and the first `"id"` key after `"payload"` must hold a
/// plain string (no escapes, at most 1024 bytes). Inside a JSON string every quote is escaped,
/// so `"id"` followed by a colon is a key.
pub(crate) fn oversized_message_id(text: &str) -> Option<&str> {
    let key_value = |key: &str, from: usize| -> Option<(usize, &str)> {
        let mut at = from;
        loop {
            let found = at + text.get(at..)?.find(key)?;
            let rest = text[found + key.len()..].trim_start();
            if let Some(value) = rest.strip_prefix(':') {
                let value = value.trim_start();
                let start = text.len() - value.len();
                return Some((start, value));
            }
            at = found + key.len();
        }
    };
    let (_, kind) = key_value("\"type\"", 0)?;
    if !kind.starts_with("\"message\"") {
        return None;
    }
    let (payload_at, _) = key_value("\"payload\"", 0)?;
    let (_, value) = key_value("\"id\"", payload_at)?;
    let value = value.strip_prefix('"')?;
    let end = value.find('"')?;
    let id = &value[..end];
    (!id.is_empty() && end <= 1024 && !id.contains('\\')).then_some(id)
}

/// The first frame on a connection.
pub(crate) fn registration(name: &str, description: &str, version: &str) -> String {
    json!({"type": "registration", "payload": {"name": name, "description": description, "version": version, "capabilities": []}})
        .to_string()
}

/// Notification priority as the hub orders them (the hub also knows `low`; the core never
/// sends it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Priority {
    Normal,
    High,
}

fn response(message_id: &str, kind: &str, payload: serde_json::Value) -> String {
    json!({"type": "response", "payload": {"messageId": message_id, "type": kind, "payload": payload}}).to_string()
}

/// "Received": its inner payload must be exactly `{}`.
pub(crate) fn ack(message_id: &str) -> String {
    response(message_id, "ack", json!({}))
}

/// "Cannot take this message", so the hub routes it elsewhere.
pub(crate) fn reject(message_id: &str, reason: &str) -> String {
    response(message_id, "reject", json!({ "reason": reason }))
}

/// A notification shown by the hub for a message: `text` (Markdown) becomes its body, shortened
/// to plain text of at most [`NOTIFICATION_BODY_CHARS`]. The one place such a frame is built.
#[cfg(test)]
pub(crate) fn notification(message_id: &str, title: &str, text: &str, priority: Priority) -> String {
    let body = shorten_to_plain_text(text, NOTIFICATION_BODY_CHARS);
    notification_frame(message_id, title, &body, priority)
}

/// A notification frame with its title and body as they are (`hub::display` decides them).
pub(crate) fn notification_frame(message_id: &str, title: &str, body: &str, priority: Priority) -> String {
    response(message_id, "notification", json!({"title": title, "body": body, "priority": priority}))
}

/// Longest notification body, in characters.
#[cfg(test)]
const NOTIFICATION_BODY_CHARS: usize = 240;

/// A short plain-text version of Markdown, at most `max_chars`: markup removed, lines joined,
/// cut at a word boundary with an ellipsis. Made for notification bodies; also gives the
/// provisional titles and the excerpts in notices. (Not `summary::summarize`, which asks the
/// model.)
pub(crate) fn shorten_to_plain_text(markdown: &str, max_chars: usize) -> String {
    let mut plain = String::with_capacity(markdown.len().min(max_chars * 2));
    let mut in_fence = false;
    for line in markdown.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        let body = if in_fence { trimmed } else { strip_line_markup(trimmed) };
        if body.is_empty() {
            continue;
        }
        if !plain.is_empty() {
            plain.push(' ');
        }
        plain.push_str(&strip_inline_markup(body));
        if plain.chars().count() > max_chars * 2 {
            break;
        }
    }
    let words: Vec<&str> = plain.split_whitespace().collect();
    let mut out = String::new();
    for word in words {
        let extra = usize::from(!out.is_empty()) + word.chars().count();
        if out.chars().count() + extra > max_chars.saturating_sub(1) {
            if out.is_empty() {
                out = word.chars().take(max_chars.saturating_sub(1)).collect();
            }
            out.push('…');
            return out;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

fn strip_line_markup(line: &str) -> &str {
    let line = line.trim_start_matches('#').trim_start_matches('>').trim_start();
    for bullet in ["- [ ] ", "- [x] ", "- ", "* ", "+ "] {
        if let Some(rest) = line.strip_prefix(bullet) {
            return rest;
        }
    }
    line
}

fn strip_inline_markup(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '*' | '_' | '`' | '~' => {}
            '!' if chars.peek() == Some(&'[') => {}
            '[' if chars.peek() == Some(&'[') => {}
            ']' if chars.peek() == Some(&']') => {
                chars.next();
            }
            ']' if chars.peek() == Some(&'(') => {
                for skipped in chars.by_ref() {
                    if skipped == ')' {
                        break;
                    }
                }
            }
            '[' | ']' => {}
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inbound_frames_are_read_and_bad_ones_named() {
        assert_eq!(
            parse_inbound(
                r#"{"type":"registration_response","payload":{"success":false,"code":"DUPLICATE_NAME","message":"taken"}}"#
            ),
            Ok(Inbound::RegistrationResponse {
                success: false,
                client_id: None,
                code: Some("DUPLICATE_NAME".into()),
                message: Some("taken".into())
            })
        );
        assert!(
            matches!(parse_inbound(r#"{"type":"message","payload":{"id":"m","text":"hi"}}"#), Ok(Inbound::Message(p)) if p["id"] == "m")
        );
        assert!(matches!(parse_inbound("{nope"), Err(FrameError::NotJson(_))));
        assert_eq!(parse_inbound(r#"{"payload":{}}"#), Err(FrameError::NoType));
        assert_eq!(parse_inbound(r#"{"type":"message","payload":[1]}"#), Err(FrameError::PayloadNotObject));
        assert_eq!(parse_inbound(r#"{"type":"message"}"#), Err(FrameError::PayloadNotObject));
        assert_eq!(parse_inbound(r#"{"type":"party","payload":{}}"#), Err(FrameError::UnknownType("party".into())));
        let big = format!(r#"{{"type":"message","payload":{{"text":"{}"}}}}"#, "x".repeat(MAX_FRAME_BYTES));
        assert_eq!(parse_inbound(&big), Err(FrameError::TooLarge(big.len())));
    }

    #[test]
    fn an_oversized_messages_id_is_found_without_parsing() {
        let big = "x".repeat(MAX_FRAME_BYTES);
        let frame = format!(r#"{{"type":"message","payload":{{"id":"msg-7","text":"{big}"}}}}"#);
        assert_eq!(oversized_message_id(&frame), Some("msg-7"));
        // Key order and spacing as any JSON writer may choose; an "id" inside the text is not a key.
        let frame = format!(
            r#"{{ "payload" : {{ "text" : "say \"id\": \"no\" {big}", "metadata": {{}}, "id" : "msg-8" }}, "type" : "message" }}"#
        );
        assert_eq!(oversized_message_id(&frame), Some("msg-8"));
        for bad in [
            format!(r#"{{"type":"registration_response","payload":{{"id":"x","t":"{big}"}}}}"#),
            format!(r#"{{"type":"message","payload":{{"text":"{big}"}}}}"#),
            format!(r#"{{"type":"message","payload":{{"id":7,"text":"{big}"}}}}"#),
            format!(r#"{{"type":"message","payload":{{"id":"a\"b","text":"{big}"}}}}"#),
            format!(r#"{{"type":"message","payload":{{"id":"{big}"}}}}"#),
        ] {
            assert_eq!(oversized_message_id(&bad), None, "{}", &bad[..60]);
        }
    }

    #[test]
    fn registration_frame_shape() {
        let v: Value = serde_json::from_str(&registration("obsidian", "notes", "0.1.0")).unwrap();
        assert_eq!(
            v,
            json!({"type": "registration", "payload": {"name": "obsidian", "description": "notes", "version": "0.1.0", "capabilities": []}})
        );
    }

    #[test]
    fn ack_payload_is_exactly_empty() {
        let v: Value = serde_json::from_str(&ack("msg-1")).unwrap();
        assert_eq!(v, json!({"type": "response", "payload": {"messageId": "msg-1", "type": "ack", "payload": {}}}));
    }

    #[test]
    fn notification_and_reject_shapes() {
        let v: Value = serde_json::from_str(&notification("m", "Obsidian", "Done", Priority::High)).unwrap();
        assert_eq!(v["payload"]["payload"], json!({"title": "Obsidian", "body": "Done", "priority": "high"}));
        let v: Value =
            serde_json::from_str(&notification("m", "Obsidian", &"**word** ".repeat(100), Priority::Normal)).unwrap();
        let body = v["payload"]["payload"]["body"].as_str().unwrap_or_default();
        assert_eq!(body, shorten_to_plain_text(&"word ".repeat(100), NOTIFICATION_BODY_CHARS));
        let v: Value = serde_json::from_str(&reject("m", "too long")).unwrap();
        assert_eq!(v["payload"]["payload"], json!({"reason": "too long"}));
    }

    #[test]
    fn summary_is_plain_and_short() {
        let md = "# Result\n\n- **Bought** [[milk]] and [eggs](http://x)\n```\ncode\n```\n> `quoted` _text_";
        assert_eq!(shorten_to_plain_text(md, 240), "Result Bought milk and eggs code quoted text");
        let long = "word ".repeat(100);
        let s = shorten_to_plain_text(&long, 30);
        assert!(s.chars().count() <= 30 && s.ends_with('…'), "{s}");
        assert_eq!(shorten_to_plain_text(&"x".repeat(50), 10).chars().count(), 10);
        assert_eq!(shorten_to_plain_text("", 10), "");
    }
}
