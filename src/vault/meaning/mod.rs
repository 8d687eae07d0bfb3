//! Search by meaning (issue 35): notes cut into passages ([`chunks`]), their embeddings kept as
//! bytes and ranked by cosine ([`vectors`]), and the words' and the meaning's rankings fused
//! ([`fusion`]). The embedding providers' wire formats are `llm::embeddings`.
//!
//! Built so far: these pure parts, with their tests. Not yet wired: the background build from
//! the vault's events, persistence under `.smarthole/`, `search_files`' modes, related notes.
// Until that wiring lands, nothing outside the tests calls these.
#![allow(dead_code)]

pub(crate) mod chunks;
pub(crate) mod fusion;
pub(crate) mod vectors;
