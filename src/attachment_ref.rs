//! An attachment as the history keeps it and the chat shows it: a reference (kind, path, hash,
//! size), never the content, which is in the copy its hash names; and the rules a message's
//! references obey (how many, a hash that names a copy). A leaf: the wire types (`llm::types`)
//! and the message (`message`) hold references without depending on how attachments are made
//! or sent (`attachment/`).

use serde::{Deserialize, Serialize};

/// Attachments one message may carry.
pub const MAX_ATTACHMENTS: usize = 20;
/// Where the copies live, in the data folder.
pub(crate) const COPIES_DIR: &str = "attachments";

/// Why a message's attachments were refused for their number.
pub(crate) fn too_many_attachments() -> String {
    format!("a message can carry {MAX_ATTACHMENTS} attachments at most")
}

/// What an attachment is, which decides the block it is sent as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AttachmentKind {
    /// A note's text (a text block, with its path).
    Note,
    /// A folder: the list of what it holds (the agent reads further with its tools).
    Folder,
    /// An image block.
    Image,
    /// A PDF document block.
    Pdf,
}

impl AttachmentKind {
    pub(crate) fn is_binary(self) -> bool {
        matches!(self, AttachmentKind::Image | AttachmentKind::Pdf)
    }

    pub(crate) fn noun(self) -> &'static str {
        match self {
            AttachmentKind::Note => "note",
            AttachmentKind::Folder => "folder",
            AttachmentKind::Image => "image",
            AttachmentKind::Pdf => "PDF",
        }
    }
}

/// An attachment as the history keeps it and the chat shows it as a chip: what was sent is in
/// the copy its hash names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Attachment {
    pub kind: AttachmentKind,
    /// The vault path, or the name of a pasted or dropped file.
    pub path: String,
    /// SHA-256 of what was sent (hex): the copy's name.
    pub hash: String,
    pub media_type: String,
    /// Size of what was sent, in bytes.
    pub bytes: u64,
    /// Pasted or dropped into the chat rather than taken from the vault.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pasted: bool,
    /// Where a long note was cut ("cut at line 812 of 3,000"), shown on the chip before sending.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cut: Option<String>,
    /// An image's width and height in pixels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pixels: Option<(u32, u32)>,
    /// A PDF's page count, when it could be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pages: Option<u32>,
}

impl Attachment {
    /// The copy's path in the data folder.
    pub(crate) fn copy_path(&self) -> String {
        copy_path(&self.hash, self.kind)
    }

    /// A rough token count of what it sends, for the context budget (the history line itself
    /// holds only the reference).
    pub(crate) fn estimated_tokens(&self) -> usize {
        let bytes = usize::try_from(self.bytes).unwrap_or(usize::MAX);
        match self.kind {
            AttachmentKind::Note | AttachmentKind::Folder => bytes / 4 + 16,
            // The API scales an image to at most ~1,600 tokens' worth (width x height / 750).
            AttachmentKind::Image => {
                self.pixels.map_or(1_600, |(w, h)| (w as usize).saturating_mul(h as usize) / 750).clamp(64, 1_600)
            }
            // Text and an image of each page.
            AttachmentKind::Pdf => self.pages.map_or(bytes / 50, |p| p as usize * 2_000),
        }
    }
}

fn copy_path(hash: &str, kind: AttachmentKind) -> String {
    format!("{COPIES_DIR}/{hash}.{}", if kind.is_binary() { "b64" } else { "txt" })
}

pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// What the extension says a vault file is meant to be; the bytes decide for binaries.
pub(crate) fn kind_by_name(path: &str) -> Option<AttachmentKind> {
    let ext = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
    match ext.as_str() {
        "md" | "markdown" | "txt" | "canvas" | "csv" | "json" | "yaml" | "yml" | "base" => Some(AttachmentKind::Note),
        "png" | "jpg" | "jpeg" | "gif" | "webp" => Some(AttachmentKind::Image),
        "pdf" => Some(AttachmentKind::Pdf),
        _ => None,
    }
}

/// Whether a hash is what [`sha256_hex`] makes (a message's attachment names a copy by it, so
/// nothing else may reach a file name).
pub(crate) fn is_content_hash(hash: &str) -> bool {
    hash.len() == 64 && hash.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}
