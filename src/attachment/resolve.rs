//! Attachments turned into the blocks a request sends, from their copies, once per turn: a note
//! or folder as a text block naming its path, an image as an image block, a PDF as a document
//! block. A copy that is gone or no longer matches its hash is sent as a line saying so: the
//! conversation goes on, and the model is never given bytes the user did not send.

use std::cell::RefCell;
use std::rc::Rc;

use base64::Engine;
use serde_json::Value;

use super::reference::{sha256_hex, Attachment, AttachmentKind};
use crate::host::Host;
use crate::llm::{ApiMessage, ContentBlock, MessagesJson, Role};

/// `"` and `<` `>` `&` in a path written inside the tag that names it.
fn attribute(path: &str) -> String {
    path.replace('&', "&amp;").replace('"', "&quot;").replace('<', "&lt;").replace('>', "&gt;")
}

/// Most bytes of verified copies kept in memory: a conversation's images are read and checked
/// once, not on every turn that sends them again.
const KEPT_COPY_BYTES: usize = 48 * 1024 * 1024;

/// Copies read and checked against their hash, newest use last. A copy is named by the hash of
/// its content, so what is kept for a hash stays right whatever happens to the file.
#[derive(Debug, Default)]
pub(crate) struct Copies {
    kept: RefCell<Vec<(String, Rc<str>)>>,
}

impl Copies {
    fn get(&self, hash: &str) -> Option<Rc<str>> {
        let mut kept = self.kept.borrow_mut();
        let at = kept.iter().position(|(h, _)| h == hash)?;
        let entry = kept.remove(at);
        let copy = Rc::clone(&entry.1);
        kept.push(entry);
        Some(copy)
    }

    pub(super) fn keep(&self, hash: &str, copy: Rc<str>) {
        let mut kept = self.kept.borrow_mut();
        kept.retain(|(h, _)| h != hash);
        kept.push((hash.to_owned(), copy));
        let mut total: usize = kept.iter().map(|(_, c)| c.len()).sum();
        while total > KEPT_COPY_BYTES && kept.len() > 1 {
            total -= kept.remove(0).1.len();
        }
    }
}

/// The copy's content, checked against its hash (once: then from memory).
async fn verified_copy<H: Host>(host: &H, copies: &Copies, attachment: &Attachment) -> Option<Rc<str>> {
    if let Some(copy) = copies.get(&attachment.hash) {
        return Some(copy);
    }
    let text = host.read_file(&attachment.copy_path()).await.ok()??;
    let hash = if attachment.kind.is_binary() {
        sha256_hex(&base64::engine::general_purpose::STANDARD.decode(text.as_bytes()).ok()?)
    } else {
        sha256_hex(text.as_bytes())
    };
    if hash != attachment.hash {
        return None;
    }
    let copy: Rc<str> = text.into();
    copies.keep(&attachment.hash, Rc::clone(&copy));
    Some(copy)
}

/// The blocks one attachment is sent as.
pub(crate) async fn blocks_for<H: Host>(host: &H, copies: &Copies, attachment: &Attachment) -> Vec<ContentBlock> {
    let path = attribute(&attachment.path);
    let Some(copy) = verified_copy(host, copies, attachment).await else {
        return vec![ContentBlock::text(format!(
            "[The {} {} attached here is no longer stored intact, so it could not be sent again.]",
            attachment.kind.noun(),
            attachment.path
        ))];
    };
    match attachment.kind {
        AttachmentKind::Note => vec![ContentBlock::text(format!("<note path=\"{path}\">\n{copy}\n</note>"))],
        AttachmentKind::Folder => vec![ContentBlock::text(format!("<folder path=\"{path}\">\n{copy}\n</folder>"))],
        AttachmentKind::Image => vec![
            ContentBlock::text(format!("<image path=\"{path}\"/>")),
            ContentBlock::image(&attachment.media_type, &copy),
        ],
        AttachmentKind::Pdf => vec![ContentBlock::document(&attachment.media_type, &copy, &attachment.path)],
    }
}

/// Replaces every attachment block of a list.
async fn resolve_blocks<H: Host>(host: &H, copies: &Copies, blocks: &[ContentBlock]) -> Vec<ContentBlock> {
    let mut out = Vec::with_capacity(blocks.len());
    for block in blocks {
        match block {
            ContentBlock::Attachment { attachment } => out.extend(blocks_for(host, copies, attachment).await),
            other => out.push(other.clone()),
        }
    }
    out
}

/// The message with its attachments made into blocks.
pub(crate) async fn resolve_message<H: Host>(host: &H, copies: &Copies, message: &ApiMessage) -> ApiMessage {
    ApiMessage { role: message.role, content: resolve_blocks(host, copies, &message.content).await }
}

/// The history with its attachments made into blocks; the same history (no copy) when it has
/// none, which is the common case and costs one scan.
pub(crate) async fn resolve_history<H: Host>(
    host: &H,
    copies: &Copies,
    history: &MessagesJson,
) -> Option<MessagesJson> {
    if !history.has_attachments() {
        return None;
    }
    let mut text = String::with_capacity(history.len() + 2);
    history.write_with(&[], &mut text);
    let messages: Vec<Value> = serde_json::from_str(&text).ok()?;
    let mut out = MessagesJson::new();
    for message in &messages {
        let role =
            if message.get("role").and_then(Value::as_str) == Some("assistant") { Role::Assistant } else { Role::User };
        let blocks: Vec<ContentBlock> = message
            .get("content")
            .and_then(Value::as_array)
            .map(|list| list.iter().filter_map(|b| crate::lean::from_value(b).ok()).collect())
            .unwrap_or_default();
        out.push(&ApiMessage { role, content: resolve_blocks(host, copies, &blocks).await });
    }
    Some(out)
}
