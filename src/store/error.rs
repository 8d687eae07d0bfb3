//! Why the conversation store could not do its job.

use thiserror::Error;

use crate::conversation::model::TransitionError;
use crate::host_types::HostError;

/// Why the store could not do its job.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum StoreError {
    #[error(transparent)]
    Host(#[from] HostError),
    #[error("could not encode history: {0}")]
    Encode(String),
    #[error("no conversation {0}")]
    Unknown(String),
    #[error(transparent)]
    Transition(#[from] TransitionError),
}
