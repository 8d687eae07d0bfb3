//! The processor's own error: a failure of the processor as a whole, not of one message (those
//! are `ProcessResult`s). Its own module so that the pipeline's parts can return it without
//! depending on `processor/mod.rs`.

use thiserror::Error;

use crate::settings::SettingsError;
use crate::store::StoreError;

/// A failure of the processor as a whole (not of one message).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ProcessorError {
    #[error("could not open the conversation history: {0}")]
    Store(#[from] StoreError),
    #[error(transparent)]
    Settings(#[from] SettingsError),
    /// The store was asked for before `initialize` opened it.
    #[error("the conversation history is not loaded")]
    NotLoaded,
    #[error("could not write the Markdown copy {path}: {reason}")]
    MarkdownCopy { path: String, reason: String },
}

impl ProcessorError {
    /// What went wrong, without the lead-in of `Store`: for a message that could not read or
    /// save its history, where the caller's own text says what it was doing.
    pub(super) fn cause_text(&self) -> String {
        match self {
            ProcessorError::Store(e) => e.to_string(),
            other => other.to_string(),
        }
    }
}
