//! Calls of MCP tools (`mcp__<server>__<tool>`): the result goes back to the model as text; a
//! server that is not connected gets a message pointing the user to Settings; one that refuses
//! our credentials mid-chat turns into a question asking the user to reconnect it (seed 000,
//! "Expired token"), so the conversation waits in `waiting_input`.

use serde_json::Value;

use super::call::{ToolContext, ToolOutput};
use super::needs_input::ask;
use crate::conversation::QuestionType;
use crate::host::Host;
use crate::mcp::{result_text, split_tool_name, McpError, McpState};

/// What the model is told about an integration that is not connected.
pub(super) fn not_connected(server: &str) -> String {
    format!(
        "The {server} integration is not connected. Tell the user to open Settings → SmartHole Agent → Integrations to connect \
it; do not try again until they have."
    )
}

/// The question asking the user to reconnect an integration.
pub(super) fn reconnect_prompt(server: &str) -> String {
    format!(
        "The **{server}** integration needs to be reconnected: it refused my request (its sign-in has expired or was \
revoked). Open Settings → SmartHole Agent → Integrations, reconnect it, then reply here and I will carry on."
    )
}

pub(super) async fn call<H: Host>(ctx: &ToolContext<'_, H>, name: &str, input: &Value) -> ToolOutput {
    let Some((server, tool)) = split_tool_name(name) else {
        return ToolOutput::error(format!("Unknown tool \"{name}\"."));
    };
    match ctx.services.integrations.iter().find(|s| s.name == server) {
        Some(s) if s.state == McpState::Connected => {}
        Some(_) => return ToolOutput::error(not_connected(server)),
        None => return ToolOutput::error(format!("There is no integration named {server:?}.")),
    }
    match ctx.host.mcp_call(server, tool, input).await {
        Ok(result) => {
            let is_error = result.get("isError").and_then(Value::as_bool).unwrap_or(false);
            ToolOutput { content: result_text(&result), is_error, effect: Default::default() }
        }
        Err(McpError::NotConnected(_)) => ToolOutput::error(not_connected(server)),
        Err(McpError::Unauthorized { message, .. }) => ToolOutput {
            content: format!(
                "The {server} integration refused the request ({message}). The user has been asked to reconnect it; end your \
turn now."
            ),
            is_error: true,
            effect: ask(ctx, QuestionType::Input, reconnect_prompt(server), Vec::new()),
        },
        Err(McpError::Failed(message)) => ToolOutput::error(format!("The {server} integration failed: {message}")),
    }
}
