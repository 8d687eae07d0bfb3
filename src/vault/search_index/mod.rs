//! The search index: an inverted index of the vault's notes kept in the core, so `search_files`
//! reads only the notes that can match instead of every note on every call (issue 18).
//!
//! Why a module of its own and not a crate: tantivy-class engines (tantivy, milli) are megabytes
//! of wasm with threads, mmap and their own segment files — far past the plugin's 400 KB gzip
//! bundle ceiling — and lighter ones (probly-search, elasticlunr-rs) match whole words only, have
//! no positions, or rebuild to delete. `search_files` matches substrings (`milk` finds
//! `buttermilk`), so what it needs is small: terms with their positions, per-note token counts
//! for BM25, and cheap add/remove per note as vault events arrive. That is this module.
//!
//! A term is a maximal run of alphanumeric characters of the note's text lower-cased with
//! `fold_case` (the plain matcher's own folding), so a plain query made of such characters only
//! lies inside one term: the notes it matches, and how many times, are read from the index
//! exactly. Other queries are narrowed here (phrases by positions, regexes by the literals they
//! require) and confirmed on the candidate notes' text by the caller.

//!
//! Layout (sized for 100,000 notes): each term's postings are one byte string of note id deltas
//! (doubled, plus one when a count follows: most notes hold a term once), appended to as notes are added — a note added or changed takes a new
//! id, larger than any before, so a list only ever grows at its end. A removed note leaves its
//! postings behind as dead entries (skipped by a look at `docs`); once dead notes outnumber the
//! live ones, [`Index::compact`] renumbers the notes and rewrites the postings. Each note keeps
//! its own distinct terms (delta varints) and their positions (varint count, then position
//! deltas) for phrases and for that rewrite.
//!
//! Its parts: `inverted.rs` (the [`Index`]: notes, terms and postings, added, removed,
//! compacted, asked), `postings.rs` (one term's list), `terms.rs` (what a term is, and the
//! literals a regex cannot match without), `varint.rs` (the byte encoding of postings and
//! positions), `saved.rs` and `saved_read.rs` (the persisted form: a manifest,
//! `.smarthole/search-index.txt`, naming 2 MB pieces of bytes under `.smarthole/search-index/`, written
//! and read a piece at a time).

mod inverted;
mod postings;
pub(crate) mod saved;
pub(crate) mod saved_read;
mod terms;
mod varint;

pub(crate) use inverted::Index;
pub(crate) use terms::{context_folded, is_term, required_literals, tokens};
