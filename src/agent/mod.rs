//! One turn of the agent: model ↔ tools until the model is done, with the rules that keep it
//! safe — every `tool_use` answered by exactly one `tool_result` in the next user message; no
//! tool of an answer cut by `max_tokens` or refused is run; a capped number of model calls; a
//! failed model call retried (1 s, 2 s, 4 s) without repeating tools that already ran; every
//! step journaled so a restart resumes instead of repeating.
//!
//! `run.rs` (the loop, `run_turn`), `tool_step.rs` (one answer's tool calls), `replay.rs`
//! (resuming from the journal), `outcome.rs` (what a turn starts from and produced).

mod outcome;
mod replay;
mod run;
mod tool_step;

pub(crate) use outcome::{TurnInput, TurnOutcome};
pub(crate) use run::run_turn;
