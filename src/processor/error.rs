//! The processor's own error: a failure of the processor as a whole, not of one message (those
//! are `ProcessResult`s). Its own module so that the pipeline's parts can return it without
//! depending on `processor/mod.rs`.

use thiserror::Error;

use crate::conversation::StoreError;
use crate::settings::SettingsError;

/// A failure of the processor as a whole (not of one message).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ProcessorError {
    #[error("could not open the conversation history: {0}")]
    Store(#[from] StoreError),
    #[error(transparent)]
    Settings(#[from] SettingsError),
}
