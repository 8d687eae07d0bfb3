//! The user's MCP servers ("integrations") as the core sees them. The host keeps the
//! connections (the official MCP SDK in the shim); the core decides which tools the model is
//! offered and under what names, what a result reads like, and what the user is told when an
//! integration is missing or its sign-in has expired.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use thiserror::Error;

use crate::llm::ToolDef;

/// Prefix of the names MCP tools are offered under: `mcp__<server>__<tool>`.
pub(crate) const TOOL_PREFIX: &str = "mcp__";
/// The longest tool name the Messages API accepts.
const MAX_TOOL_NAME: usize = 64;
/// Longest tool result passed to the model, in characters.
const MAX_RESULT_CHARS: usize = 50_000;
/// How long a turn waits for connections still being made before it goes on without them
/// (`Host::mcp_servers`): a server starting up is used, one that hangs does not hold the answer.
pub(crate) const CONNECT_WAIT_MS: crate::host_types::Millis = 3_000;

/// Where a server's connection stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum McpState {
    Connected,
    Connecting,
    /// The connection failed (the error says why).
    Failed,
    /// The server refused our credentials: the user must reconnect it.
    Unauthorized,
    /// This platform cannot run it (a command-line server on mobile).
    Unsupported,
}

/// A tool a server offers.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct McpTool {
    pub name: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub input_schema: Value,
}

/// A configured server.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct McpServer {
    pub name: String,
    pub state: McpState,
    #[serde(default)]
    pub error: Option<String>,
    #[serde(default)]
    pub tools: Vec<McpTool>,
}

/// Why a call did not produce a result.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum McpError {
    #[error("the integration {0} is not connected")]
    NotConnected(String),
    #[error("the integration {server} refused the request: {message}")]
    Unauthorized { server: String, message: String },
    #[error("{0}")]
    Failed(String),
}

/// The name a server's tool is offered under.
pub(crate) fn tool_name(server: &str, tool: &str) -> String {
    format!("{TOOL_PREFIX}{server}__{tool}")
}

/// The server and tool of an offered name.
pub(crate) fn split_tool_name(name: &str) -> Option<(&str, &str)> {
    name.strip_prefix(TOOL_PREFIX)?.split_once("__")
}

/// An offered name in the user's words: "get-sum (everything)" for `mcp__everything__get-sum`;
/// none for a name that is not an integration's.
pub(crate) fn tool_words(name: &str) -> Option<String> {
    let (server, tool) = split_tool_name(name)?;
    (!server.is_empty() && !tool.is_empty()).then(|| format!("{tool} ({server})"))
}

/// The definitions offered for the connected servers' tools (names the API would refuse are
/// left out).
pub(crate) fn definitions(servers: &[McpServer]) -> Vec<ToolDef> {
    let mut out = Vec::new();
    for server in servers.iter().filter(|s| s.state == McpState::Connected) {
        for tool in &server.tools {
            let name = tool_name(&server.name, &tool.name);
            let valid = name.len() <= MAX_TOOL_NAME
                && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
            if !valid {
                continue;
            }
            let schema = match &tool.input_schema {
                Value::Object(_) => tool.input_schema.clone(),
                _ => serde_json::json!({"type": "object"}),
            };
            let description = format!("[{} integration] {}", server.name, tool.description);
            out.push(ToolDef { name, description, input_schema: schema });
        }
    }
    out
}

/// A `tools/call` result as the model reads it: text blocks as they are, other content named,
/// structured content as JSON.
pub(crate) fn result_text(result: &Value) -> String {
    let mut parts: Vec<String> = Vec::new();
    for block in result.get("content").and_then(Value::as_array).into_iter().flatten() {
        let kind = block.get("type").and_then(Value::as_str).unwrap_or("");
        match kind {
            "text" => parts.push(block.get("text").and_then(Value::as_str).unwrap_or("").to_owned()),
            "resource" => {
                let resource = block.get("resource").cloned().unwrap_or(Value::Null);
                let uri = resource.get("uri").and_then(Value::as_str).unwrap_or("?");
                match resource.get("text").and_then(Value::as_str) {
                    Some(text) => parts.push(format!("[resource {uri}]\n{text}")),
                    None => parts.push(format!("[resource {uri} (binary)]")),
                }
            }
            "resource_link" => {
                let uri = block.get("uri").and_then(Value::as_str).unwrap_or("?");
                parts.push(format!("[link to resource {uri}]"));
            }
            other => {
                let mime = block.get("mimeType").and_then(Value::as_str).unwrap_or("unknown type");
                parts.push(format!("[{other} content ({mime}) not shown]"));
            }
        }
    }
    if parts.is_empty() {
        if let Some(structured) = result.get("structuredContent") {
            parts.push(structured.to_string());
        }
    }
    let text = parts.join("\n");
    if text.chars().count() > MAX_RESULT_CHARS {
        let cut: String = text.chars().take(MAX_RESULT_CHARS).collect();
        return format!("{cut}\n[…result cut at {MAX_RESULT_CHARS} characters]");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn server(name: &str, state: McpState, tools: &[&str]) -> McpServer {
        McpServer {
            name: name.into(),
            state,
            error: None,
            tools: tools
                .iter()
                .map(|t| McpTool {
                    name: (*t).into(),
                    description: "d".into(),
                    input_schema: json!({"type": "object"}),
                })
                .collect(),
        }
    }

    #[test]
    fn only_connected_servers_offer_tools_under_namespaced_valid_names() {
        let servers = [
            server("everything", McpState::Connected, &["echo", "get-sum", "bad name!", &"x".repeat(70)]),
            server("mail", McpState::Failed, &["send"]),
        ];
        let names: Vec<String> = definitions(&servers).into_iter().map(|d| d.name).collect();
        assert_eq!(names, ["mcp__everything__echo", "mcp__everything__get-sum"]);
        assert_eq!(split_tool_name("mcp__everything__get-sum"), Some(("everything", "get-sum")));
        assert_eq!(split_tool_name("read_file"), None);
    }

    #[test]
    fn an_integration_tool_reads_as_tool_then_server() {
        assert_eq!(tool_words("mcp__everything__get-sum").as_deref(), Some("get-sum (everything)"));
        assert_eq!(tool_words("mcp__mail__send__now").as_deref(), Some("send__now (mail)"));
        assert_eq!(tool_words("mcp____x"), None);
        assert_eq!(tool_words("read_file"), None);
    }

    #[test]
    fn results_read_as_text() {
        let result = json!({"content": [
            {"type": "text", "text": "Echo: hi"},
            {"type": "image", "data": "…", "mimeType": "image/png"},
            {"type": "resource", "resource": {"uri": "test://1", "text": "body"}},
        ]});
        assert_eq!(result_text(&result), "Echo: hi\n[image content (image/png) not shown]\n[resource test://1]\nbody");
        assert_eq!(result_text(&json!({"content": [], "structuredContent": {"sum": 3}})), "{\"sum\":3}");
    }
}
