//! Attachments turned into the blocks a request sends, from their copies, once per turn: a note
//! or folder as a text block naming its path, an image as an image block, a PDF as a document
//! block. A copy that is gone or no longer matches its hash is sent as a line saying so: the
//! conversation goes on, and the model is never given bytes the user did not send.

use base64::Engine;
use serde_json::Value;

use super::{sha256_hex, Attachment, AttachmentKind};
use crate::host::Host;
use crate::llm::{ApiMessage, ContentBlock, MessagesJson, Role};

/// `"` and `<` `>` `&` in a path written inside the tag that names it.
fn attribute(path: &str) -> String {
    path.replace('&', "&amp;").replace('"', "&quot;").replace('<', "&lt;").replace('>', "&gt;")
}

/// The copy's content, checked against its hash.
async fn verified_copy<H: Host>(host: &H, attachment: &Attachment) -> Option<String> {
    let text = host.read_file(&attachment.copy_path()).await.ok()??;
    let hash = if attachment.kind.is_binary() {
        sha256_hex(&base64::engine::general_purpose::STANDARD.decode(text.as_bytes()).ok()?)
    } else {
        sha256_hex(text.as_bytes())
    };
    (hash == attachment.hash).then_some(text)
}

/// The blocks one attachment is sent as.
pub(crate) async fn blocks_for<H: Host>(host: &H, attachment: &Attachment) -> Vec<ContentBlock> {
    let path = attribute(&attachment.path);
    let Some(copy) = verified_copy(host, attachment).await else {
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
async fn resolve_blocks<H: Host>(host: &H, blocks: &[ContentBlock]) -> Vec<ContentBlock> {
    let mut out = Vec::with_capacity(blocks.len());
    for block in blocks {
        match block {
            ContentBlock::Attachment { attachment } => out.extend(blocks_for(host, attachment).await),
            other => out.push(other.clone()),
        }
    }
    out
}

/// The message with its attachments made into blocks.
pub(crate) async fn resolve_message<H: Host>(host: &H, message: &ApiMessage) -> ApiMessage {
    ApiMessage { role: message.role, content: resolve_blocks(host, &message.content).await }
}

/// The history with its attachments made into blocks; the same history (no copy) when it has
/// none, which is the common case and costs one scan.
pub(crate) async fn resolve_history<H: Host>(host: &H, history: &MessagesJson) -> Option<MessagesJson> {
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
        out.push(&ApiMessage { role, content: resolve_blocks(host, &blocks).await });
    }
    Some(out)
}
