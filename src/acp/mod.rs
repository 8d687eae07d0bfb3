//! The ACP client (Agent Client Protocol: JSON-RPC 2.0 lines over an agent process's stdio),
//! sans I/O like the hub's: the core reads and writes the lines and decides; the host only
//! starts the process and moves bytes. Its parts: `codec.rs` (bounded lines, JSON-RPC in and
//! out), `messages.rs` (the ACP v1 messages read), `launch.rs` (the agent setting, each preset's
//! command, the clean environment), `client.rs` (the connection: handshake, requests, what the
//! agent may write), `session.rs` (a conversation's session: reuse, load or new; the requests'
//! params), `presets.rs` (the agents the settings offer), `progress.rs` (a turn's updates →
//! what the chat shows), `permission.rs` (the answer to a permission request), `mcp_server.rs`
//! (the plugin's own `smarthole` MCP server the agent is given), `served_names.rs` (the names its
//! tools are served under for each agent), `server_reach.rs` (whether the agent reached it),
//! `own_tools.rs` (Gemini CLI's and opencode's own write and shell tools switched off),
//! `aside.rs` (background prompts — titles, summaries, retrospection — in side sessions of the
//! same process), `leftovers.rs` (which agents a host killed outright left, to end at its next
//! start), `error.rs`.

pub(crate) mod aside;
pub(crate) mod client;
pub(crate) mod codec;
pub(crate) mod error;
pub(crate) mod launch;
pub(crate) mod leftovers;
pub(crate) mod mcp_server;
pub(crate) mod messages;
pub(crate) mod own_tools;
pub(crate) mod permission;
pub(crate) mod presets;
pub(crate) mod progress;
pub(crate) mod served_names;
pub(crate) mod server_reach;
pub(crate) mod session;

pub use launch::AgentKind;
pub use leftovers::{is_recorded_agent, leftovers_to_end, AgentRecord, LeftoverDecision};
pub use messages::PlanEntry;
pub use presets::{agent_presets, AgentPreset};
