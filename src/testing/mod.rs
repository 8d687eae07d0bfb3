//! `FakeHost`: the host for native tests. Files live in memory, time is virtual (a 1 s + 2 s +
//! 4 s backoff takes no real time), HTTP answers come from a script and every request, hub frame,
//! event and log line is recorded for assertions.
//!
//! [`FakeHost::run`] drives a future to completion: it polls, and whenever nothing can make
//! progress it moves the clock to the next timer. Nothing to run and no timer left is a deadlock
//! and panics with what was pending.
//!
//! Its parts: `state.rs` (the state clones share, and `FakeHost` itself), `executor.rs` (`run`,
//! virtual time, crash points), `replies.rs` (the scripted model server's answers), `http.rs`
//! (that server at work), `files.rs` (the `.smarthole/` folder), `vault.rs` (notes, links, MCP
//! servers), `records.rs` (what a test reads back), `host_impl.rs` (`Host` for it),
//! `internals.rs` (the core's parts tests reach directly), `agent.rs` (a scripted ACP agent).

mod agent;
mod agent_host;
mod embedder;
mod executor;
mod files;
mod host_impl;
mod http;
pub mod internals;
mod records;
mod replies;
mod state;
mod vault;

pub use agent::{AgentLaunch, AgentStep, FakeAgent, InitAnswer};
pub use agent_host::drive_agent;
pub use embedder::fake_embedding;
pub use executor::Sleep;
pub use http::FakeBody;
pub use replies::{sse, BodyEnd, EmbedFault, RecordedRequest, Reply};
pub use state::{FakeHost, FileOp, MAX_RUN_MS, START_MS};
