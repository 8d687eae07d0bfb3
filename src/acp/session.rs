//! A conversation's ACP session, decided: reuse the one this process has, load the stored one
//! where the agent can, or make a new one (given the conversation's recent history as text when
//! the conversation already has some); and the params of the requests that do it and prompt it.

use serde_json::{json, Value};

use super::launch::AgentKind;
use super::mcp_server::McpEndpoint;

/// The agent's own tools that change files or run commands, switched off for Claude Code unless
/// the user lets the agent use its own tools (its reads stay; changes go through ours).
pub(crate) const CLAUDE_DISALLOWED_TOOLS: [&str; 4] = ["Edit", "Write", "NotebookEdit", "Bash"];

/// How the turn gets its session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SessionStep {
    /// This process has it.
    Reuse(String),
    /// The agent can load it (`session/load`).
    Load(String),
    /// A new one; `with_history`: the conversation's recent history goes with the first prompt.
    New { with_history: bool },
}

/// The session a conversation keeps, as stored in its `provider_session_id`: the agent's name
/// first, so another agent's session is never sent to this one.
pub(crate) fn stored_session(kind: AgentKind, session: &str) -> String {
    format!("{}:{session}", kind.name())
}

/// The conversation's session for this agent, from its `provider_session_id`.
pub(crate) fn session_of(kind: AgentKind, stored: Option<&str>) -> Option<String> {
    let rest = stored?.strip_prefix(kind.name())?.strip_prefix(':')?;
    (!rest.is_empty()).then(|| rest.to_owned())
}

/// What to do for a conversation with `stored` session and `has_history`.
pub(crate) fn plan_session(
    stored: Option<String>,
    has_history: bool,
    is_live: impl Fn(&str) -> bool,
    can_load: bool,
) -> SessionStep {
    match stored {
        Some(session) if is_live(&session) => SessionStep::Reuse(session),
        Some(session) if can_load => SessionStep::Load(session),
        _ => SessionStep::New { with_history: has_history },
    }
}

/// The MCP servers given to a session: the plugin's own `smarthole` server (its note tools,
/// send_message, end_conversation, the schedule tools) where it is served (`mcp_server.rs`).
pub(crate) fn mcp_servers(smarthole: Option<&McpEndpoint>) -> Value {
    Value::Array(smarthole.map(McpEndpoint::server_entry).into_iter().collect())
}

/// `session/new`'s params: the vault as the working folder; for Claude Code, its own file and
/// shell tools switched off unless `own_tools`.
pub(crate) fn new_session_params(
    kind: AgentKind,
    cwd: &str,
    own_tools: bool,
    smarthole: Option<&McpEndpoint>,
) -> Value {
    let mut params = json!({"cwd": cwd, "mcpServers": mcp_servers(smarthole)});
    if kind.is_claude_code() && !own_tools {
        params["_meta"] = json!({"claudeCode": {"options": {"disallowedTools": CLAUDE_DISALLOWED_TOOLS}}});
    }
    params
}

/// `session/load`'s params.
pub(crate) fn load_session_params(session: &str, cwd: &str, smarthole: Option<&McpEndpoint>) -> Value {
    json!({"sessionId": session, "cwd": cwd, "mcpServers": mcp_servers(smarthole)})
}

/// The mode a new or loaded session is set to: `default`, when the session starts in `auto`
/// (the newer Claude Code adapter: it asks nothing, so no permission request would reach the
/// plugin) and offers `default`. `None`: left as it is.
pub(crate) fn mode_to_set(answer: &Value) -> Option<&'static str> {
    let modes = answer.get("modes")?;
    let offers_default = modes["availableModes"].as_array()?.iter().any(|m| m["id"] == "default");
    (modes["currentModeId"] == "auto" && offers_default).then_some("default")
}

/// `session/set_mode`'s params.
pub(crate) fn set_mode_params(session: &str, mode: &str) -> Value {
    json!({"sessionId": session, "modeId": mode})
}

/// `session/prompt`'s params: one text block.
pub(crate) fn prompt_params(session: &str, text: &str) -> Value {
    json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]})
}

/// `session/cancel`'s params.
pub(crate) fn cancel_params(session: &str) -> Value {
    json!({"sessionId": session})
}

/// The most history text a new session for an existing conversation is given.
pub(crate) const MAX_HISTORY_CHARS: usize = 40_000;

/// The text of a prompt: the conversation so far (newest kept when long) when a new session
/// continues it, then the message with its context.
pub(crate) fn prompt_text(history: &[(bool, String)], message: &str) -> String {
    if history.is_empty() {
        return message.to_owned();
    }
    let mut lines: Vec<String> = Vec::new();
    let mut used = 0;
    for (from_user, text) in history.iter().rev() {
        let who = if *from_user { "User" } else { "Assistant" };
        let line = format!("{who}: {}", text.trim());
        used += line.chars().count();
        if used > MAX_HISTORY_CHARS {
            break;
        }
        lines.push(line);
    }
    lines.reverse();
    format!("<conversation_so_far>\n{}\n</conversation_so_far>\n\n{message}", lines.join("\n\n"))
}
