//! The language model in two wire formats (Anthropic Messages, and OpenAI Chat Completions in
//! `openai`): Anthropic Messages wire types, the request body, the SSE parser, the
//! streamed-answer accumulator, the client (and its retry loop), its errors and the retry policy.

pub(crate) mod check;
pub(crate) mod client;
pub(crate) mod error;
pub(crate) mod messages_json;
pub(crate) mod openai;
pub(crate) mod presets;
pub(crate) mod request;
pub(crate) mod retry;
pub(crate) mod sse;
pub(crate) mod stream;
pub(crate) mod types;

pub(crate) use error::{ErrorKind, LlmError};
pub(crate) use messages_json::MessagesJson;
pub(crate) use request::ModelCall;
pub(crate) use types::{ApiMessage, ContentBlock, ModelResponse, Role, StopReason, SystemPart, ToolDef, Usage};
