//! Conversation history: JSONL lines grouped in turns, the store with its index, and the
//! context the model sees.

pub mod context;
pub mod index;
pub mod line;
pub mod log;
pub mod store;

pub use line::{HistoryLine, LineRole, Turn, TurnEnd};
pub use store::{ConversationStore, RecordedTurn, StoreError};
