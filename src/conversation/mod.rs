//! Conversations: the seed-001 model and its status transitions, JSONL history lines grouped in
//! turns, the store with its index, the context the model sees, and when a conversation is over.

pub mod boundary;
pub mod context;
pub mod index;
pub mod line;
pub mod log;
pub mod model;
pub mod store;
pub mod transcript;

pub use line::{HistoryLine, LineRole, Turn, TurnEnd};
pub use model::{
    Conversation, ConversationState, ConversationStatus, PendingQuestion, QuestionType, Schedule, ScheduleType,
    StatusEvent,
};
pub use store::{ConversationStore, RecordedTurn, StoreError};
