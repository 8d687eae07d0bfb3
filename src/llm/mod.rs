//! The language model's wire, sans I/O, in two formats (Anthropic Messages, and OpenAI Chat
//! Completions in `openai`): the wire types (`types`, the content blocks the history keeps too),
//! the messages array as text (`messages_json`), the request body and its cache marks
//! (`request`), the SSE parser and the streamed-answer accumulator, errors and the retry policy,
//! the server's format and auth style (`server`) and the provider presets. Sending a request
//! through the host, retrying it and the connection check are `llm_client`'s.

pub(crate) mod embedding_presets;
pub(crate) mod embeddings;
pub(crate) mod error;
pub(crate) mod messages_json;
pub(crate) mod openai;
pub(crate) mod presets;
pub(crate) mod request;
pub(crate) mod retry;
pub(crate) mod server;
pub(crate) mod sse;
pub(crate) mod stored_usage;
pub(crate) mod stream;
pub(crate) mod types;

pub use embeddings::EmbeddingsFormat;
pub(crate) use error::{ErrorKind, LlmError};
pub(crate) use messages_json::MessagesJson;
pub(crate) use request::ModelCall;
pub use server::{ApiFormat, AuthStyle};
pub(crate) use types::{ApiMessage, ContentBlock, ModelResponse, Role, StopReason, SystemPart, ToolDef, Usage};
