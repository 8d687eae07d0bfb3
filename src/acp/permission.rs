//! The answer to an agent's `session/request_permission`: the plugin's own `smarthole` tools
//! are granted by the plugin (they ask the user in their own way); the agent's own tools are
//! rejected unless the user let the agent use them, and then the user decides on a card.

use serde_json::{json, Value};

use super::messages::PermissionRequest;

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

/// The decision for `request` when the agent may (`own_tools`) or may not use its own tools.
pub(crate) fn decide(request: &PermissionRequest, own_tools: bool) -> PermissionChoice {
    if smarthole_tool(request).is_some() {
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
