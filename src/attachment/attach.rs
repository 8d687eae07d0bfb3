//! Attaching: a vault note, folder, image or PDF (under the note tools' path rules) or pasted
//! bytes — checked against the limits and signatures, a long note cut at a line with a marker, a
//! folder listed, an image scaled by the host when too large — and the copy written once under
//! `.smarthole/attachments/<hash>`; a selection quoted; a message's text and attachments as its
//! content blocks.

use super::limits::{
    check_paste_size, too_large, AttachError, MAX_FOLDER_ENTRIES, MAX_IMAGE_BYTES, MAX_IMAGE_READ_BYTES,
    MAX_IMAGE_SIDE, MAX_NOTE_BYTES, MAX_NOTE_CHARS, MAX_PDF_BYTES, MAX_PDF_PAGES, MAX_SCALE_PIXELS, SCALE_TO_SIDE,
};
use super::request_size::size_text;
use super::resolve::Copies;
use super::sniff::{is_whole, sniff, Sniffed};
use crate::attachment_ref::{kind_by_name, sha256_hex};
use crate::attachment_ref::{Attachment, AttachmentKind};
use crate::host::Host;
use crate::host_types::HostError;
use crate::llm::ContentBlock;
use crate::settings::ApiFormat;
use crate::settings::Settings;
use crate::vault::path::{is_protected, normalize, parent, protected_folders, PathError};
use crate::vault::real::{listable, real_entry, Access, Unreachable};
use crate::vault::VaultEntry;
use base64::Engine;

/// Writes the copy unless one is there already (same hash, same content).
/// Also kept in memory: the message it goes with sends it without reading it back.
async fn store_copy<H: Host>(
    host: &H,
    copies: &Copies,
    path: &str,
    attachment: &Attachment,
    text: String,
) -> Result<(), AttachError> {
    let target = attachment.copy_path();
    let stored = |e: HostError| AttachError::NotStored { path: path.to_owned(), error: e.to_string() };
    if host.file_size(&target).await.map_err(stored)? != Some(text.len() as u64) {
        host.write_file_atomic(&target, &text).await.map_err(stored)?;
    }
    copies.keep(&attachment.hash, text.into(), false);
    Ok(())
}

/// A note's text cut to [`MAX_NOTE_CHARS`] at a line end, with the marker saying where, and the
/// chip's "cut at line …".
fn cut_note(text: &str) -> (String, Option<String>) {
    if text.chars().count() <= MAX_NOTE_CHARS {
        return (text.to_owned(), None);
    }
    let total_lines = text.lines().count();
    let mut kept = String::new();
    let mut lines = 0;
    for line in text.split_inclusive('\n') {
        if kept.chars().count() + line.chars().count() > MAX_NOTE_CHARS {
            break;
        }
        kept.push_str(line);
        lines += 1;
    }
    if lines == 0 {
        // One enormous first line: cut inside it.
        kept = text.chars().take(MAX_NOTE_CHARS).collect();
        lines = 1;
    }
    let cut = format!("cut at line {lines} of {total_lines}");
    if !kept.ends_with('\n') {
        kept.push('\n');
    }
    kept.push_str(&format!(
        "[… attachment cut here, at line {lines} of {total_lines}: the note is longer than the {MAX_NOTE_CHARS} characters sent. Read the rest with read_file.]\n"
    ));
    (kept, Some(cut))
}

/// A folder's direct content, as the model reads it.
fn folder_listing(folder: &str, all: &[VaultEntry], protected: &[String], follow_linked: bool) -> String {
    let mut inside: Vec<&VaultEntry> = all
        .iter()
        .filter(|e| parent(&e.path) == folder && e.path != folder)
        .filter(|e| is_protected(&e.path, protected).is_none() && listable(e, protected, follow_linked).is_ok())
        .collect();
    crate::lean::sort_by(&mut inside, |a, b| (!a.is_folder, &a.path).cmp(&(!b.is_folder, &b.path)));
    let mut out = format!("{} holds {} entries:\n", if folder.is_empty() { "The vault" } else { folder }, inside.len());
    for entry in inside.iter().take(MAX_FOLDER_ENTRIES) {
        let name = entry.path.rsplit('/').next().unwrap_or(&entry.path);
        if entry.is_folder {
            out.push_str(&format!("- {name}/\n"));
        } else {
            out.push_str(&format!("- {name} ({})\n", size_text(entry.size)));
        }
    }
    if inside.len() > MAX_FOLDER_ENTRIES {
        out.push_str(&format!("- … and {} more\n", inside.len() - MAX_FOLDER_ENTRIES));
    }
    out
}

/// Checks an image's or PDF's bytes against the API's limits; returns the attachment (without
/// its hash) and the media type.
fn check_binary(
    path: &str,
    bytes: &[u8],
    expected: Option<AttachmentKind>,
    settings: &Settings,
) -> Result<Attachment, AttachError> {
    let size = bytes.len() as u64;
    let too_large = |what, limit| too_large(path, what, size, limit);
    let attachment = |kind, media_type: &str| Attachment {
        kind,
        path: path.to_owned(),
        hash: String::new(),
        media_type: media_type.to_owned(),
        bytes: size,
        pasted: false,
        cut: None,
        pixels: None,
        pages: None,
    };
    let sniffed = sniff(bytes);
    if !is_whole(bytes, sniffed) {
        let what = if matches!(sniffed, Sniffed::Pdf { .. }) { "PDF" } else { "image" };
        return Err(AttachError::CutShort { path: path.to_owned(), what });
    }
    match (sniffed, expected) {
        (Sniffed::Image { media_type, size: pixels }, None | Some(AttachmentKind::Image)) => {
            if size > MAX_IMAGE_BYTES {
                return Err(too_large("images", MAX_IMAGE_BYTES));
            }
            let Some((width, height)) = pixels.filter(|&(w, h)| w > 0 && h > 0) else {
                return Err(AttachError::Damaged { path: path.to_owned(), expected: "an image (no readable header)" });
            };
            if width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE {
                return Err(AttachError::TooManyPixels { path: path.to_owned(), width, height });
            }
            Ok(Attachment { pixels: Some((width, height)), ..attachment(AttachmentKind::Image, media_type) })
        }
        (Sniffed::Pdf { pages }, None | Some(AttachmentKind::Pdf)) => {
            if settings.api_format == ApiFormat::Openai {
                return Err(AttachError::FormatCannotTakePdf);
            }
            if size > MAX_PDF_BYTES {
                return Err(too_large("PDFs", MAX_PDF_BYTES));
            }
            if let Some(pages) = pages.filter(|&p| p > MAX_PDF_PAGES) {
                return Err(AttachError::TooManyPages { path: path.to_owned(), pages });
            }
            Ok(Attachment { pages, ..attachment(AttachmentKind::Pdf, "application/pdf") })
        }
        (_, Some(AttachmentKind::Image)) => {
            Err(AttachError::Damaged { path: path.to_owned(), expected: "a PNG, JPEG, GIF or WebP image" })
        }
        (_, Some(AttachmentKind::Pdf)) => Err(AttachError::Damaged { path: path.to_owned(), expected: "a PDF" }),
        _ => Err(AttachError::Unsupported(path.to_owned())),
    }
}

/// Hashes and copies checked bytes; the attachment the chip shows and the message carries.
async fn keep_binary<H: Host>(
    host: &H,
    copies: &Copies,
    mut attachment: Attachment,
    bytes: &[u8],
) -> Result<Attachment, AttachError> {
    attachment.hash = sha256_hex(bytes);
    let encoded = base64::engine::general_purpose::STANDARD.encode(bytes);
    store_copy(host, copies, &attachment.path.clone(), &attachment, encoded).await?;
    Ok(attachment)
}

/// Attaches a note, folder, image or PDF of the vault, under the note tools' path rules
/// (protected folders, links out of the vault, special files all refused).
pub async fn attach_vault<H: Host>(host: &H, settings: &Settings, path: &str) -> Result<Attachment, AttachError> {
    attach_vault_kept(host, settings, &Copies::default(), path).await
}

/// [`attach_vault`], keeping what it copied in `copies` for the message's turn.
pub(crate) async fn attach_vault_kept<H: Host>(
    host: &H,
    settings: &Settings,
    copies: &Copies,
    path: &str,
) -> Result<Attachment, AttachError> {
    let protected = protected_folders(&host.config_folder(), &settings.protected_folders);
    let refused = |e: PathError| AttachError::Refused(format!("{path} cannot be attached: {e}"));
    let normalized = match path.trim() {
        // The vault's root folder.
        "" | "/" => String::new(),
        // A folder may be written with its slash ("Projects/"); a leading one stays and is refused.
        p => normalize(p.strip_suffix('/').unwrap_or(p), &protected).map_err(refused)?,
    };
    let all = host
        .vault_list(settings.follow_linked_folders)
        .await
        .map_err(|e| AttachError::Unreadable { path: path.to_owned(), error: e.to_string() })?;
    let all: Vec<VaultEntry> = all.into_iter().filter(|e| is_protected(&e.path, &protected).is_none()).collect();
    let follow = settings.follow_linked_folders;
    if normalized.is_empty() {
        return keep_text(
            host,
            copies,
            AttachmentKind::Folder,
            "/",
            folder_listing("", &all, &protected, follow),
            None,
        )
        .await;
    }
    let (real, entry) = real_entry(&normalized, &all, &protected, Access::Read, follow).map_err(|e| match e {
        Unreachable::Refused { error, .. } => refused(error),
        other => AttachError::Refused(other.to_string()),
    })?;
    let entry = entry.ok_or_else(|| AttachError::Refused(format!("{path} is not a note or folder of this vault")))?;
    if entry.is_folder {
        let listing = folder_listing(&real, &all, &protected, follow);
        return keep_text(host, copies, AttachmentKind::Folder, &entry.path, listing, None).await;
    }
    let unreadable = |e: HostError| AttachError::Unreadable { path: entry.path.clone(), error: e.to_string() };
    match kind_by_name(&real) {
        Some(AttachmentKind::Note) => {
            if entry.size > MAX_NOTE_BYTES {
                return Err(too_large(&entry.path, "notes", entry.size, MAX_NOTE_BYTES));
            }
            let text = host.vault_read(&real).await.map_err(unreadable)?;
            let (text, cut) = cut_note(&text);
            keep_text(host, copies, AttachmentKind::Note, &entry.path, text, cut).await
        }
        Some(kind) => {
            let limit = if kind == AttachmentKind::Image { MAX_IMAGE_READ_BYTES } else { MAX_PDF_BYTES };
            if entry.size > limit {
                let what = if kind == AttachmentKind::Image { "images" } else { "PDFs" };
                return Err(too_large(&entry.path, what, entry.size, limit));
            }
            let read = host.vault_read_bytes(&real).await.map_err(unreadable)?;
            let scaled = scaled_if_large(host, &read).await;
            let bytes = scaled.as_deref().unwrap_or(&read);
            let checked = check_binary(&entry.path, bytes, Some(kind), settings)?;
            keep_binary(host, copies, checked, bytes).await
        }
        None => Err(AttachError::Unsupported(entry.path.clone())),
    }
}

/// Hashes and copies a note's text or a folder's listing.
async fn keep_text<H: Host>(
    host: &H,
    copies: &Copies,
    kind: AttachmentKind,
    path: &str,
    text: String,
    cut: Option<String>,
) -> Result<Attachment, AttachError> {
    let attachment = Attachment {
        kind,
        path: path.to_owned(),
        hash: sha256_hex(text.as_bytes()),
        media_type: "text/plain".to_owned(),
        bytes: text.len() as u64,
        pasted: false,
        cut,
        pixels: None,
        pages: None,
    };
    store_copy(host, copies, path, &attachment, text).await?;
    Ok(attachment)
}

/// Attaches an image or PDF pasted or dropped into the chat (the host scaled a large image down
/// first where it can). `name` is shown on the chip.
pub async fn attach_bytes<H: Host>(
    host: &H,
    settings: &Settings,
    name: &str,
    bytes: &[u8],
) -> Result<Attachment, AttachError> {
    attach_bytes_kept(host, settings, &Copies::default(), name, bytes).await
}

/// [`attach_bytes`], keeping what it copied in `copies` for the message's turn.
pub(crate) async fn attach_bytes_kept<H: Host>(
    host: &H,
    settings: &Settings,
    copies: &Copies,
    name: &str,
    bytes: &[u8],
) -> Result<Attachment, AttachError> {
    let name: String = name.chars().filter(|c| !c.is_control()).take(200).collect();
    let name = if name.trim().is_empty() { "pasted file".to_owned() } else { name };
    check_paste_size(&name, bytes.len() as u64)?;
    let scaled = scaled_if_large(host, bytes).await;
    let bytes = scaled.as_deref().unwrap_or(bytes);
    let mut checked = check_binary(&name, bytes, None, settings)?;
    checked.pasted = true;
    keep_binary(host, copies, checked, bytes).await
}

/// An image larger than the API sends (its longest side over [`SCALE_TO_SIDE`], or over
/// [`MAX_IMAGE_BYTES`]) scaled down by the host where it can. `None` — the bytes go as they are,
/// for the checks to accept or refuse — for anything else, a GIF (which may be animated), one
/// over [`MAX_SCALE_PIXELS`], or where the host cannot scale.
async fn scaled_if_large<H: Host>(host: &H, bytes: &[u8]) -> Option<Vec<u8>> {
    let Sniffed::Image { media_type, size: Some((width, height)) } = sniff(bytes) else { return None };
    let small = width.max(height) <= SCALE_TO_SIDE && bytes.len() as u64 <= MAX_IMAGE_BYTES;
    if media_type == "image/gif" || small || u64::from(width) * u64::from(height) > MAX_SCALE_PIXELS {
        return None;
    }
    let scaled = host.scale_image(bytes, media_type, SCALE_TO_SIDE, MAX_IMAGE_BYTES).await.ok()??;
    matches!(sniff(&scaled), Sniffed::Image { .. }).then_some(scaled)
}

/// The chat input's text for "Ask the agent about the selection": the selected lines quoted,
/// under the note and line range they come from.
pub fn selection_quote(path: &str, from_line: u32, to_line: u32, text: &str) -> String {
    let lines = if from_line == to_line { format!("line {from_line}") } else { format!("lines {from_line}-{to_line}") };
    let link = path.strip_suffix(".md").unwrap_or(path);
    let quoted: Vec<String> =
        text.lines().map(|l| if l.is_empty() { ">".to_owned() } else { format!("> {l}") }).collect();
    format!("From [[{link}]], {lines}:\n{}\n\n", quoted.join("\n"))
}

/// The user's message as content blocks: what they attached, then their text (the API reads
/// images and documents best before the question).
pub(crate) fn user_content(text: &str, attachments: &[Attachment]) -> Vec<ContentBlock> {
    attachments
        .iter()
        .map(|a| ContentBlock::Attachment { attachment: a.clone() })
        .chain(std::iter::once(ContentBlock::text(text)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attachment_ref::is_content_hash;

    #[test]
    fn a_note_is_cut_only_when_long_and_one_enormous_line_is_cut_inside() {
        let short = "a\nb\n";
        assert_eq!(cut_note(short), (short.to_owned(), None));
        let exactly: String = "x".repeat(MAX_NOTE_CHARS);
        assert_eq!(cut_note(&exactly).1, None);
        let one_line: String = "é".repeat(MAX_NOTE_CHARS + 10);
        let (text, cut) = cut_note(&one_line);
        assert_eq!(cut.as_deref(), Some("cut at line 1 of 1"));
        assert!(text.starts_with(&"é".repeat(MAX_NOTE_CHARS)));
        assert!(text.ends_with("Read the rest with read_file.]\n"));
    }

    #[test]
    fn hashes_are_only_what_sha256_makes() {
        let hash = sha256_hex(b"abc");
        assert!(is_content_hash(&hash));
        assert!(!is_content_hash(&hash.to_uppercase()));
        assert!(!is_content_hash(&hash[1..]));
        assert!(!is_content_hash(&format!("../{}", &hash[3..])));
    }

    #[test]
    fn token_estimates_follow_what_is_sent() {
        let base = Attachment {
            kind: AttachmentKind::Image,
            path: "a.png".into(),
            hash: String::new(),
            media_type: "image/png".into(),
            bytes: 4_000_000,
            pasted: false,
            cut: None,
            pixels: Some((200, 150)),
            pages: None,
        };
        assert_eq!(base.estimated_tokens(), 64, "a small image costs little, whatever its bytes");
        assert_eq!(Attachment { pixels: Some((4000, 3000)), ..base.clone() }.estimated_tokens(), 1_600);
        let pdf = Attachment { kind: AttachmentKind::Pdf, pages: Some(3), ..base.clone() };
        assert_eq!(pdf.estimated_tokens(), 6_000);
        let note = Attachment { kind: AttachmentKind::Note, bytes: 40_000, ..base };
        assert_eq!(note.estimated_tokens(), 10_016);
    }

    #[test]
    fn a_selection_is_quoted_under_its_note_and_lines() {
        assert_eq!(
            selection_quote("Projects/Plan.md", 3, 5, "first\n\nthird"),
            "From [[Projects/Plan]], lines 3-5:\n> first\n>\n> third\n\n"
        );
        assert_eq!(selection_quote("a.md", 7, 7, "one"), "From [[a]], line 7:\n> one\n\n");
    }

    #[test]
    fn a_paste_too_large_for_any_attachment_is_refused_by_its_size() {
        assert!(check_paste_size("shot.png", MAX_PDF_BYTES).is_ok());
        let err = check_paste_size("huge.mov", 50 * 1024 * 1024).unwrap_err().to_string();
        assert_eq!(err, "huge.mov is 50.0 MB; pasted files can be attached up to 20.0 MB");
    }
}
