//! The vault as the note tools see it: path safety, the case rule, globs, search, and the text
//! edits — all decided here, before the host touches a file.

pub mod glob;
pub mod path;
pub mod resolve;
pub mod search;
pub mod text;

pub use path::{normalize, PathError};
pub use resolve::VaultEntry;
