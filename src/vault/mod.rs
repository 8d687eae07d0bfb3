//! The vault as the note tools see it: path safety, the case rule, globs, search, and the text
//! edits — all decided here, before the host touches a file.

pub(crate) mod diff;
pub(crate) mod glob;
pub(crate) mod index;
pub(crate) mod joined;
pub(crate) mod path;
pub(crate) mod real;
pub(crate) mod resolve;
pub(crate) mod search;
pub(crate) mod text;

pub(crate) use path::normalize;
pub use resolve::{EntryKind, VaultEntry};
