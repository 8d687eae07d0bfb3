//! The answer to an agent's `session/request_permission`: the plugin's own `smarthole` tools
//! are granted by the plugin (they ask the user in their own way); the agent's own tools are
//! rejected unless the user let the agent use them, and then the user decides on a card (with
//! the change's diff when the request carries one).

use serde_json::{json, Value};

use super::mcp_server::SERVER_NAME;
use super::messages::PermissionRequest;
use crate::vault::diff::{content_hash, diff, ChangeKind, ProposedChange};

/// The prefix of the plugin's own tools as an agent names them.
pub(crate) const SMARTHOLE_TOOL_PREFIX: &str = "mcp__smarthole__";

/// What to do with a permission request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PermissionChoice {
    /// Answer at once with this outcome.
    Answer(Value),
    /// Ask the user (an approval card); then [`approved`] or [`rejected`].
    AskUser,
}

/// The tool's name as the agent reports it (its title), if it is one of ours.
pub(crate) fn smarthole_tool(request: &PermissionRequest) -> Option<&str> {
    request.tool_call.title.as_deref().and_then(|t| t.strip_prefix(SMARTHOLE_TOOL_PREFIX))
}

/// Whether it is Codex's approval of an MCP tool call to the plugin's server: Codex titles it
/// "Approve MCP tool call" and names the server in `rawInput` (codex-acp 0.16).
fn is_codex_smarthole_approval(request: &PermissionRequest) -> bool {
    let Some(raw) = request.tool_call.raw_input.as_ref() else { return false };
    raw["server_name"] == SERVER_NAME && raw["request"]["_meta"]["codex_approval_kind"] == "mcp_tool_call"
}

/// The decision for `request` when the agent may (`own_tools`) or may not use its own tools.
pub(crate) fn decide(request: &PermissionRequest, own_tools: bool) -> PermissionChoice {
    if smarthole_tool(request).is_some() || is_codex_smarthole_approval(request) {
        return PermissionChoice::Answer(approved(request));
    }
    if own_tools {
        PermissionChoice::AskUser
    } else {
        PermissionChoice::Answer(rejected(request))
    }
}

/// The outcome granting it once (the plugin remembers grants for a conversation itself).
pub(crate) fn approved(request: &PermissionRequest) -> Value {
    select(request, &["allow_once", "allow_always"])
}

/// The outcome rejecting it once; `cancelled` if the agent offered no way to reject.
pub(crate) fn rejected(request: &PermissionRequest) -> Value {
    select(request, &["reject_once", "reject_always"])
}

fn select(request: &PermissionRequest, kinds: &[&str]) -> Value {
    let option = kinds.iter().find_map(|kind| request.options.iter().find(|o| o.kind == *kind));
    match option {
        Some(option) => json!({"outcome": {"outcome": "selected", "optionId": option.option_id}}),
        None => json!({"outcome": {"outcome": "cancelled"}}),
    }
}

/// The change a request carries (its first `diff` content: path, old and new text), for the
/// card's diff; its path relative to the vault's `folder` when it lies inside.
pub(crate) fn proposed_change(request: &PermissionRequest, folder: &str) -> Option<ProposedChange> {
    let found = request.tool_call.content.iter().find(|c| c.get("type").and_then(Value::as_str) == Some("diff"))?;
    let path = found.get("path").and_then(Value::as_str)?;
    let new = found.get("newText").and_then(Value::as_str)?;
    let old = found.get("oldText").and_then(Value::as_str);
    let inside = path.strip_prefix(folder.trim_end_matches('/')).and_then(|p| p.strip_prefix('/'));
    Some(ProposedChange {
        kind: if old.is_some() { ChangeKind::Edit } else { ChangeKind::Create },
        path: inside.unwrap_or(path).to_owned(),
        to: None,
        base_hash: content_hash(old.unwrap_or_default()),
        hunks: diff(old.unwrap_or_default(), new),
    })
}

/// Why the card of an agent's own change offers only approve or reject of all of it.
pub(crate) fn whole_change_reason(agent: &str) -> String {
    format!("{agent} writes this file itself, so it takes the whole change or none of it: approve or reject all of it.")
}

/// Whether the user's answer on a card grants the whole change: the agent writes the file
/// itself, so accepting only some of its hunks cannot be done and counts as a rejection.
pub(crate) fn grants_whole(change: Option<&ProposedChange>, accepted: Option<&[usize]>) -> bool {
    match (change, accepted) {
        (Some(change), Some(accepted)) => change.hunks.iter().all(|h| accepted.contains(&h.number)),
        _ => true,
    }
}
