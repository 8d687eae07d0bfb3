//! The model server through the host: a request sent and its answer read, streamed or whole,
//! every failure an `LlmError`, and the loop that repeats a failed call as `llm::retry`'s policy
//! says (`client.rs`); and the connection check the settings' "Check connection" and the
//! headless `--check` run (`check.rs`, its embeddings lines `check_embeddings.rs`). The wire itself — formats, bodies, parsers, policies — is
//! `llm`'s, which does no I/O.

pub(crate) mod check;
pub(crate) mod check_embeddings;
pub(crate) mod client;
pub(crate) mod embed;
