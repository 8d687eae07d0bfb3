//! What the user points the agent at: a note or folder mentioned with `@`, an image or PDF from
//! the vault or pasted into the chat. Each is checked, read and copied once, when it is attached:
//! the copy under `.smarthole/attachments/` is named by the hash of what was sent, so the same
//! screenshot twice is stored once, and a later turn, a retry or a restart sends exactly the
//! bytes the user sent, even if the note changed since. The history keeps only the reference
//! (kind, path, hash, size), never the content: its lines stay small. That reference is a leaf
//! of its own (`attachment_ref.rs`), so the message and the history's blocks hold it without
//! depending on how attachments are made or sent.
//!
//! `attach.rs` (attaching from the vault or pasted bytes, the copy written once), `limits.rs`
//! (what may be attached, `AttachError`), `sniff.rs` (what the bytes are, and whether whole),
//! `mention.rs` (the `@` picker), `resolve.rs` (references made into blocks for each turn, from
//! the checked copies), `request_size.rs` (the whole request weighed against the API's limit),
//! `cleanup.rs` (copies only cleared conversations needed).

mod attach;
mod cleanup;
mod limits;
mod mention;
mod request_size;
mod resolve;
mod sniff;

pub use crate::attachment_ref::{Attachment, AttachmentKind, MAX_ATTACHMENTS};
pub use attach::{attach_bytes, attach_vault, selection_quote};
pub(crate) use attach::{attach_bytes_kept, attach_vault_kept, user_content};
pub(crate) use cleanup::remove_unneeded_copies;
pub use limits::{check_paste_size, AttachError};
pub use mention::Mention;
pub(crate) use mention::Mentions;
pub(crate) use request_size::{history_attachments, over_limit, refused_attachment, size_text, MAX_REQUEST_BYTES};
pub(crate) use resolve::{resolve_history, resolve_message, Copies};
