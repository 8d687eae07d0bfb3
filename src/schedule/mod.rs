//! Schedules, as plain decisions: building one from what the agent asked (with a precise error
//! for anything wrong), claiming a run (which moves `next_run_at` on before the run starts, so a
//! run that outlasts the worker's tick never runs twice, and missed times run once), and what a
//! run's end does to it (cleared after a last run, paused after repeated failures).
//!
//! `plan.rs` (a request planned, state patches), `runs.rs` (claiming and ending runs, resuming,
//! the cache lifetime), `timeline.rs` (due runs by time), `tests.rs`.

mod plan;
mod runs;
#[cfg(test)]
mod tests;
mod timeline;

pub(crate) use plan::StatePatch;
pub use plan::{plan, ScheduleRequest};
pub(crate) use runs::{cache_ttl, claim, finish, next_run_ms, resume, RunEnd, TICK_MS};
pub(crate) use timeline::Timeline;
