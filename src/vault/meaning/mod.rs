//! Search by meaning (issue 35): notes cut into passages ([`chunks`]), their embeddings kept as
//! bytes and ranked by cosine ([`vectors`]), each note's passages and the vectors they name
//! ([`index`]) and their files ([`saved`]), and the words' and the meaning's rankings fused
//! ([`fusion`]). The embedding providers' wire formats are `llm::embeddings`; the background
//! build and the searches are `tools::meaning`.

pub(crate) mod chunks;
pub(crate) mod fusion;
pub(crate) mod index;
pub(crate) mod saved;
pub(crate) mod vectors;
