//! The conversation store: the index (every conversation's metadata) plus the current
//! conversation in memory, ready to send. Recording a turn is one append to its conversation's
//! JSONL — O(that turn), whatever the history size; the index is rewritten only when metadata
//! changes. What a conversation and its lines are, and how their files are parsed, is
//! `conversation`'s (no I/O there); this reads and writes them through the host.
//!
//! `open.rs` ([`ConversationStore`], opening it, what it holds), `turns.rs` (a turn's history,
//! recording and append, for a [`Target`]), `view.rs` (reading for the chat view and the tools),
//! `changes.rs` (conversations opened, ended, changed, cleared), `current.rs` (the current
//! conversation in memory), `files.rs` (history and index files read, repaired, encoded),
//! `error.rs` ([`StoreError`]).

mod changes;
mod current;
mod error;
mod files;
mod open;
mod turns;
mod view;

pub(crate) use current::RecordedTurn;
pub(crate) use error::StoreError;
pub(crate) use open::ConversationStore;
pub(crate) use turns::Target;
