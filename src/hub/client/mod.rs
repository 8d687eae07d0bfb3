//! The hub connection as a state machine that never touches a socket: the processor feeds it
//! socket events and the time, and carries out the actions it returns (connect, send, close,
//! wake me at…). Reconnects back off 1 s doubling to 30 s with jitter and reset after a successful
//! registration; the registration failures that would repeat forever stop the retries and say
//! what to change; notifications produced while disconnected wait for the next registration.
//!
//! Its parts: `machine.rs` ([`HubClient`] and its phases), `inbound.rs` (frames in),
//! `outbox.rs` (responses out), `actions.rs` (its words with the processor), `policy.rs`
//! (timings, limits, refusals), `tests.rs`.

mod actions;
mod inbound;
mod machine;
mod outbox;
mod policy;
#[cfg(test)]
mod tests;

pub use actions::HubStatus;
pub(crate) use actions::{HubAction, ResponseKind};
pub(crate) use machine::HubClient;
pub(crate) use policy::SETTINGS_SETTLE_MS;
