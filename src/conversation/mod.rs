//! Conversations as plain values, no I/O (the store that keeps them on disk is `store`): the
//! seed-001 model and its status transitions (`model.rs`), JSONL history lines grouped in turns
//! (`line.rs`) and stored with what a reader works out left out (`stored_line.rs`), a user line's context stored as an edit of an earlier one (`context_edit.rs`),
//! and the parsers of a history file — whole, a page, its tail, its usage (`log.rs`),
//! the index and archive of their metadata (`metadata.rs`), the context the model sees
//! (`context.rs`), when a conversation is over and a question stale (`boundary.rs`), a
//! conversation as a transcript (`transcript.rs`) and as a Markdown note (`markdown.rs`).

pub(crate) mod boundary;
pub(crate) mod context;
pub(crate) mod context_edit;
pub(crate) mod line;
pub(crate) mod log;
pub(crate) mod markdown;
pub(crate) mod metadata;
pub(crate) mod model;
pub(crate) mod stored_line;
pub(crate) mod transcript;

pub(crate) use line::{HistoryLine, LineRole, TurnEnd};
pub(crate) use log::add_turn_usage;
pub(crate) use model::{
    Conversation, ConversationState, ConversationStatus, PendingQuestion, QuestionType, Schedule, ScheduleType,
    StatusEvent,
};
