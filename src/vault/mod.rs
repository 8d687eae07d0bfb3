//! The vault as the note tools see it, all decided here before the host touches a file: path
//! safety and protected folders (`path.rs`), real locations through links (`real.rs`), the case
//! rule (`resolve.rs`), globs (`glob.rs`), search — the plain and regex matcher with BM25 and
//! excerpts (`search.rs`), the inverted index (`search_index/`), strings searched end to end
//! (`joined.rs`), search by meaning (`meaning/`) —, a note's line ranges and edits (`line_edits.rs`) and review-first diffs
//! (`diff.rs`).

pub(crate) mod diff;
pub(crate) mod glob;
pub(crate) mod joined;
pub(crate) mod line_edits;
pub(crate) mod meaning;
pub(crate) mod path;
pub(crate) mod real;
pub(crate) mod regex_literals;
pub(crate) mod regex_prefilter;
pub(crate) mod resolve;
pub(crate) mod search;
pub(crate) mod search_index;

pub(crate) use path::normalize;
pub use resolve::{EntryKind, VaultEntry};
