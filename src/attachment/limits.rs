//! What may be attached, and why something may not: the limits of notes, images, PDFs and
//! folders (the Messages API's, and what a phone's memory takes while an image is scaled), and
//! [`AttachError`], each refusal with what to do.

use thiserror::Error;

use super::request_size::size_text;
use crate::attachment_ref::too_many_attachments;

/// Most characters of a note sent whole; a longer one is cut at a line end with a marker.
pub(crate) const MAX_NOTE_CHARS: usize = 40_000;
/// Largest note read to attach (its first [`MAX_NOTE_CHARS`] are sent).
pub(crate) const MAX_NOTE_BYTES: u64 = 8 * 1024 * 1024;
/// The Messages API's limit for one image.
pub(crate) const MAX_IMAGE_BYTES: u64 = 5 * 1024 * 1024;
/// The Messages API's limit for an image's width and height.
pub(crate) const MAX_IMAGE_SIDE: u32 = 8000;
/// Largest PDF: its base64 form must leave room in the API's 32 MB request.
pub(crate) const MAX_PDF_BYTES: u64 = 20 * 1024 * 1024;
/// The Messages API's page limit for a PDF.
pub(crate) const MAX_PDF_PAGES: u32 = 100;
/// The longest side an image is sent with: the API scales anything larger down to it anyway,
/// so a host that can scales it first (less to send, to store, and under the API's limits).
pub(crate) const SCALE_TO_SIDE: u32 = 1568;
/// Largest image file read from the vault to be scaled down (a phone's photo, a 4K screenshot).
pub(crate) const MAX_IMAGE_READ_BYTES: u64 = 20 * 1024 * 1024;
/// Most pixels of an image handed to the host to be scaled: decoding takes 4 bytes a pixel of
/// the app's memory, and a few compressed megabytes can claim billions (a decompression bomb in
/// the vault, or attached by an agent over the API). Past this the image is checked as it is.
pub(crate) const MAX_SCALE_PIXELS: u64 = 50_000_000;
/// Entries of a folder listed before "… and N more".
pub(crate) const MAX_FOLDER_ENTRIES: usize = 200;

/// Why something could not be attached. Shown on its chip; nothing is sent.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum AttachError {
    #[error("{0}")]
    Refused(String),
    #[error("{path} is {size}; {what} can be attached up to {limit}")]
    TooLarge { path: String, what: &'static str, size: String, limit: String },
    #[error("{path} is {width} x {height} pixels; images can be attached up to {MAX_IMAGE_SIDE} x {MAX_IMAGE_SIDE}")]
    TooManyPixels { path: String, width: u32, height: u32 },
    #[error("{path} has {pages} pages; a PDF can be attached with up to {MAX_PDF_PAGES}")]
    TooManyPages { path: String, pages: u32 },
    #[error("{0} is not a note, a folder, an image (PNG, JPEG, GIF, WebP) or a PDF")]
    Unsupported(String),
    #[error("{path} does not look like {expected}: its bytes do not match (the file may be damaged)")]
    Damaged { path: String, expected: &'static str },
    #[error("{path} ends early: this {what} was cut short (a download or a sync that stopped?), so it is not sent; attach a whole copy")]
    CutShort { path: String, what: &'static str },
    #[error("could not read {path}: {error}")]
    Unreadable { path: String, error: String },
    #[error(
        "the model's server speaks Chat Completions, which cannot take PDFs: switch Format to \
Anthropic Messages, or paste the text you need"
    )]
    FormatCannotTakePdf,
    #[error(
        "{model} at {server} did not take an image in the last connection check, so images are not \
sent to it: choose a model with vision, or check the connection again if it has one now"
    )]
    ModelTakesNoImages { model: String, server: String },
    #[error("could not keep a copy of {path} to send: {error}")]
    NotStored { path: String, error: String },
    #[error("{}", too_many_attachments())]
    TooMany,
}

pub(super) fn too_large(path: &str, what: &'static str, size: u64, limit: u64) -> AttachError {
    AttachError::TooLarge { path: path.to_owned(), what, size: size_text(size), limit: size_text(limit) }
}

/// Refuses a pasted or dropped file too large for any attachment before the view reads it (a
/// 50 MB paste is never copied into the core).
pub fn check_paste_size(name: &str, size: u64) -> Result<(), AttachError> {
    let limit = MAX_IMAGE_BYTES.max(MAX_PDF_BYTES);
    if size > limit {
        return Err(too_large(name, "pasted files", size, limit));
    }
    Ok(())
}
