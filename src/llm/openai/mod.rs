//! The OpenAI Chat Completions format, the second wire format (issue 24): OpenAI, Gemini's and
//! many gateways' endpoints, and local servers (llama.cpp, Ollama, LM Studio) speak it. The same
//! internal conversation is sent — the Anthropic-shaped messages are translated here, tool calls
//! into `tool_calls` and tool results into `tool` messages — and the answer is read back into the
//! same [`ModelResponse`], so the agent loop, the history and the retry rules do not know which
//! format carried a call. What the format cannot carry is dropped knowingly: prompt-cache marks
//! (it has none to send; a server's own caching is reported as cache reads).
//!
//! `request.rs` (the request body), `answer.rs` (an answer read, whole or streamed), `tests.rs`.

mod answer;
mod request;
#[cfg(test)]
mod tests;

pub(crate) use answer::{parse_response, ChunkAccumulator};
pub(crate) use request::request_body;
