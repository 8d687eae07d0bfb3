//! The language model: Anthropic Messages wire types, the request body, the SSE parser, the
//! streamed-answer accumulator, the client (and its retry loop), its errors and the retry policy.

pub mod client;
pub mod error;
pub mod messages_json;
pub mod request;
pub mod retry;
pub mod sse;
pub mod stream;
pub mod types;

pub use client::call_model;
pub use error::{ErrorKind, LlmError};
pub use messages_json::MessagesJson;
pub use request::ModelCall;
pub use types::{ApiMessage, ContentBlock, ModelResponse, Role, StopReason, SystemPart, ToolDef};
