//! The `messages` array of a request, assembled from pre-serialised content so a long
//! conversation is copied, not re-serialised, on every model call. Consecutive messages with the
//! same role are merged (a question's tool result followed by the user's reply), tool results
//! staying first.

use super::types::{ApiMessage, ContentBlock, Role};

fn role_name(role: Role) -> &'static str {
    match role {
        Role::User => "user",
        Role::Assistant => "assistant",
    }
}

/// The JSON of a content list without its brackets (`{…},{…}`); empty for no blocks.
pub(crate) fn content_json(content: &[ContentBlock]) -> String {
    let mut json = serde_json::to_string(content).unwrap_or_else(|_| "[]".to_owned());
    json.pop();
    json.remove(0);
    json
}

/// An open `messages` array: the last message is left open so the next one can merge into it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct MessagesJson {
    buf: String,
    open: Option<Role>,
    /// Where each closed message's last block ends (the offset of its closing `}` in `buf`), with
    /// the message's role: where prompt-cache breakpoints can go.
    ends: Vec<(usize, Role)>,
    /// How many pushed contents hold an attachment reference: counted as each is pushed, so
    /// asking before every request costs nothing (scanning `buf` cost ~0.1 ms at 1,000 turns).
    attachments: usize,
}

/// How an attachment reference block starts in content JSON. (Inside JSON strings quotes are
/// escaped, so only a real block matches.)
const ATTACHMENT_BLOCK: &str = "{\"type\":\"attachment\"";

/// Appends one message's content to an open array held in `buf`/`open`, noting in `ends` where
/// a message it closes ended.
fn push_into(buf: &mut String, open: &mut Option<Role>, ends: &mut Vec<(usize, Role)>, role: Role, content: &str) {
    if content.is_empty() {
        return;
    }
    match *open {
        Some(r) if r == role => buf.push(','),
        Some(r) => {
            ends.push((buf.len() - 1, r));
            buf.push_str("]},");
            start(buf, role);
        }
        None => start(buf, role),
    }
    buf.push_str(content);
    *open = Some(role);
}

fn start(buf: &mut String, role: Role) {
    buf.push_str("{\"role\":\"");
    buf.push_str(role_name(role));
    buf.push_str("\",\"content\":[");
}

impl MessagesJson {
    /// An empty array.
    pub(crate) fn new() -> Self {
        MessagesJson::default()
    }

    /// Appends a message given its content JSON (as [`content_json`] makes it).
    pub(crate) fn push_content(&mut self, role: Role, content: &str) {
        if content.contains(ATTACHMENT_BLOCK) {
            self.attachments += 1;
        }
        push_into(&mut self.buf, &mut self.open, &mut self.ends, role, content);
    }

    /// Appends a message.
    pub(crate) fn push(&mut self, message: &ApiMessage) {
        self.push_content(message.role, &content_json(&message.content));
    }

    /// Whether any message holds an attachment reference, to be made into blocks before sending.
    pub(crate) fn has_attachments(&self) -> bool {
        self.attachments > 0
    }

    /// Bytes held.
    pub(crate) fn len(&self) -> usize {
        self.buf.len()
    }

    /// Writes `[…]` to `out`: these messages, then `more`, merged across the seam. Returns where
    /// each message's last block ends in `out` (the offset of its closing `}`), oldest first.
    pub(crate) fn write_with(&self, more: &[ApiMessage], out: &mut String) -> Vec<(usize, Role)> {
        out.push('[');
        let base = out.len();
        out.push_str(&self.buf);
        let mut ends: Vec<(usize, Role)> = self.ends.iter().map(|&(at, role)| (base + at, role)).collect();
        let mut open = self.open;
        for message in more {
            push_into(out, &mut open, &mut ends, message.role, &content_json(&message.content));
        }
        if let Some(role) = open {
            ends.push((out.len() - 1, role));
            out.push_str("]}");
        }
        out.push(']');
        ends
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    #[test]
    fn attachments_are_seen_in_the_blocks_pushed_not_in_text_that_quotes_them() {
        use crate::attachment_ref::{Attachment, AttachmentKind};
        let mut history = MessagesJson::new();
        history.push(&ApiMessage::user_text(r#"a note quoting {"type":"attachment"} in its text"#));
        history.push(&ApiMessage { role: Role::Assistant, content: vec![ContentBlock::text("ok")] });
        assert!(!history.has_attachments());
        let attachment = Attachment {
            kind: AttachmentKind::Note,
            path: "Notes/A.md".into(),
            hash: "00".repeat(32),
            media_type: "text/markdown".into(),
            bytes: 3,
            pasted: false,
            cut: None,
            pixels: None,
            pages: None,
        };
        history.push(&ApiMessage {
            role: Role::User,
            content: vec![ContentBlock::text("see"), ContentBlock::Attachment { attachment }],
        });
        assert!(history.has_attachments());
        // The count travels with the history the context cache copies.
        assert!(history.clone().has_attachments());
    }

    #[test]
    fn same_roles_merge_across_the_seam_and_empty_messages_vanish() {
        let mut history = MessagesJson::new();
        history.push(&ApiMessage::user_text("a"));
        history.push(&ApiMessage { role: Role::Assistant, content: vec![] });
        history.push(&ApiMessage { role: Role::Assistant, content: vec![ContentBlock::text("b")] });
        history.push(&ApiMessage {
            role: Role::User,
            content: vec![ContentBlock::ToolResult { tool_use_id: "t".into(), content: "r".into(), is_error: false }],
        });
        let mut out = String::new();
        history.write_with(&[ApiMessage::user_text("c"), ApiMessage::user_text("d")], &mut out);
        let parsed: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(
            parsed,
            json!([
                {"role": "user", "content": [{"type": "text", "text": "a"}]},
                {"role": "assistant", "content": [{"type": "text", "text": "b"}]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "t", "content": "r"},
                    {"type": "text", "text": "c"},
                    {"type": "text", "text": "d"}
                ]}
            ])
        );
        let mut empty = String::new();
        MessagesJson::new().write_with(&[], &mut empty);
        assert_eq!(empty, "[]");
    }
}
