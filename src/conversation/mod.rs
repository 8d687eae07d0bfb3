//! Conversations: the seed-001 model and its status transitions, JSONL history lines grouped in
//! turns, the store with its index, the context the model sees, and when a conversation is over.

pub(crate) mod boundary;
pub(crate) mod context;
pub(crate) mod index;
pub(crate) mod line;
pub(crate) mod log;
pub(crate) mod markdown;
pub(crate) mod model;
pub(crate) mod transcript;

pub(crate) use line::{HistoryLine, LineRole, TurnEnd};
pub(crate) use log::add_turn_usage;
pub(crate) use model::{
    Conversation, ConversationState, ConversationStatus, PendingQuestion, QuestionType, Schedule, ScheduleType,
    StatusEvent,
};
