//! Attachments turned into the blocks a request sends, from their copies, once per turn: a note
//! or folder as a text block naming its path, an image as an image block, a PDF as a document
//! block. A copy that is gone or no longer matches its hash is sent as a line saying so: the
//! conversation goes on, and the model is never given bytes the user did not send.

use std::cell::RefCell;
use std::rc::Rc;

use base64::Engine;
use serde_json::Value;

use crate::attachment_ref::{sha256_hex, Attachment, AttachmentKind};
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
    kept: RefCell<Vec<KeptCopy>>,
}

#[derive(Debug)]
struct KeptCopy {
    hash: String,
    copy: Rc<str>,
    /// Sent by a turn (read for a request) rather than only attached to a chip so far.
    sent: bool,
}

impl Copies {
    /// A copy for a request: from now on it counts as sent.
    fn get(&self, hash: &str) -> Option<Rc<str>> {
        let mut kept = self.kept.borrow_mut();
        let at = kept.iter().position(|k| k.hash == hash)?;
        let mut entry = kept.remove(at);
        entry.sent = true;
        let copy = Rc::clone(&entry.copy);
        kept.push(entry);
        Some(copy)
    }

    /// Whether a chip holds a copy that no turn has sent yet (clearing the history keeps it).
    pub(super) fn awaits_sending(&self, hash: &str) -> bool {
        self.kept.borrow().iter().any(|k| k.hash == hash && !k.sent)
    }

    /// Forgets the copies turns have sent (their conversations were cleared).
    pub(super) fn forget_sent(&self) {
        self.kept.borrow_mut().retain(|k| !k.sent);
    }

    /// Keeps a copy just attached (`sent` false) or read back for a request (`sent` true).
    pub(super) fn keep(&self, hash: &str, copy: Rc<str>, sent: bool) {
        let mut kept = self.kept.borrow_mut();
        kept.retain(|k| k.hash != hash);
        kept.push(KeptCopy { hash: hash.to_owned(), copy, sent });
        let mut total: usize = kept.iter().map(|k| k.copy.len()).sum();
        while total > KEPT_COPY_BYTES && kept.len() > 1 {
            total -= kept.remove(0).copy.len();
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
    copies.keep(&attachment.hash, Rc::clone(&copy), true);
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
