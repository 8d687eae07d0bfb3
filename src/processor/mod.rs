//! The MessageProcessor of seed 003 (`handle.rs`; how to drive it is in its documentation), and
//! its parts, each an `impl MessageProcessor` holding the public methods of its topic with the
//! steps behind them:
//! - `arrival.rs`: a message arrives — the inbox, the ack, its place in line, its attempts, and
//!   what a previous session left (`reprocess_pending`);
//! - `run.rs`: the run after the inbox — the turn, its finish, Stop; `agent_turn.rs`: the turn
//!   by the user's own agent over ACP, `agent_link.rs` its process (host reports in, actions out); `failure.rs`: a failed run,
//!   `failed/`, and the retry later in the session;
//! - `conversations.rs`: the idle boundary, questions, recording a turn, what follows a
//!   conversation's end, stale questions; `agent_aside.rs`: who answers its background prompts
//!   (the provider, or the user's own agent in a side session);
//! - `view.rs` (the chat view's reads and changes), `chat_view.rs` (what the chat view is told:
//!   the messages in flight, Stop's answer, the "Chat opened" line), `review.rs` (a turn's cards and changes,
//!   undo), `attachments.rs` (the `@` picker, attaching), `search.rs` (the search index),
//!   `setup.rs` (the connection check, the usage totals), `markdown_copy.rs` (the Markdown
//!   copies and export);
//! - `approvals.rs` (a tool waiting on the user), `worker.rs` (the schedules: timeline, tick,
//!   claiming runs, a run's end), `hub.rs` (socket events in, the state machine's actions out,
//!   every notification sent), `api.rs` (the agent API's endpoints);
//! - `state/` (what every part is written against: `Inner` in owned parts, the FIFO gate, the
//!   task set) and `error.rs` (`ProcessorError`).

mod agent_aside;
mod agent_calls;
mod agent_link;
mod agent_listener;
mod agent_session;
mod agent_stop;
mod agent_tools;
mod agent_turn;
mod agent_usage;
mod api;
mod approvals;
mod arrival;
mod attachments;
mod chat_view;
mod conversations;
mod edit;
mod error;
mod failure;
mod handle;
mod hub;
mod markdown_copy;
mod review;
mod run;
mod search;
mod setup;
mod state;
mod view;
mod worker;

pub use arrival::ReprocessSummary;
pub use chat_view::StopAnswer;
pub use edit::EditStarted;
pub use error::ProcessorError;
pub use handle::MessageProcessor;
pub use review::TurnReview;
pub use search::{Related, RelatedNote};
pub use view::ConversationPage;
pub use worker::ScheduleChange;
