//! The language model: Anthropic Messages wire types, the SSE parser, the streamed-answer
//! accumulator, the client, its errors and the retry policy.

pub mod client;
pub mod error;
pub mod messages_json;
pub mod retry;
pub mod sse;
pub mod stream;
pub mod types;

pub use client::call_model;
pub use error::{ErrorKind, LlmError};
pub use messages_json::MessagesJson;
pub use types::{ApiMessage, ContentBlock, ModelCall, ModelResponse, Role, StopReason, SystemPart, ToolDef};
