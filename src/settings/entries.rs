//! The entries of the settings' lists — an agent API context, an integration (MCP server) — and
//! the rules of names and URLs they share with the rest of the settings.

use serde::{Deserialize, Serialize};

/// An instruction context of the agent API (seed 002): what an external agent is told, and
/// which actions it may ask the user to verify.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AgentContext {
    /// How it is addressed: `/context/<name>`.
    pub name: String,
    /// A port of its own, where `/context` and `/verify` mean this context.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub port: Option<u16>,
    pub system: String,
    pub role: String,
    pub base_instruction: String,
    /// Actions an agent may ask to have verified; anything else is rejected at once.
    pub allowed_actions: Vec<String>,
    /// Whether the user must approve each action (when not, allowed actions are approved at once).
    pub verification_required: bool,
}

impl Default for AgentContext {
    fn default() -> Self {
        AgentContext {
            name: "default".to_owned(),
            port: None,
            system: "SmartHole Agent: an AI agent inside the user's Obsidian vault".to_owned(),
            role: "You are a coding or automation agent working for the user on this computer.".to_owned(),
            base_instruction: "Before anything destructive or hard to undo, ask the user with POST /verify and wait \
for the answer. Send notes or requests for the vault agent with POST /messages."
                .to_owned(),
            allowed_actions: ["write_files", "delete_files", "run_command", "install_package", "git_push"]
                .map(str::to_owned)
                .to_vec(),
            verification_required: true,
        }
    }
}

/// Whether a base URL names a web server.
pub(super) fn is_http_url(url: &str) -> bool {
    let url = url.trim();
    (url.starts_with("http://") || url.starts_with("https://")) && url.len() > "https://".len()
}

/// Whether a name fits in a URL path and a tool name: 1 to 32 letters, digits, - or _.
pub(super) fn is_simple_name(name: &str) -> bool {
    !name.is_empty() && name.len() <= 32 && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// An MCP server the user configured: a command (stdio) or a URL (Streamable HTTP).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct McpServerConfig {
    /// How tools are named (`mcp__<name>__<tool>`) and how the user and the agent refer to it.
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub env: std::collections::BTreeMap<String, String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub headers: std::collections::BTreeMap<String, String>,
}

impl McpServerConfig {
    /// What is wrong with it, if anything.
    pub(super) fn problem(&self) -> Option<String> {
        let name_ok = is_simple_name(&self.name) && !self.name.contains("__");
        if !name_ok {
            return Some("the name must be 1 to 32 letters, digits, - or _ (no double _)".to_owned());
        }
        let command = self.command.as_deref().map(str::trim).filter(|c| !c.is_empty());
        let url = self.url.as_deref().map(str::trim).filter(|u| !u.is_empty());
        match (command, url) {
            (Some(_), Some(_)) => Some("give either a command or a URL, not both".to_owned()),
            (None, None) => Some("give a command (a local server) or a URL (a remote one)".to_owned()),
            (None, Some(url)) if !(url.starts_with("http://") || url.starts_with("https://")) => {
                Some(format!("the URL must start with http:// or https:// (got {url:?})"))
            }
            _ => None,
        }
    }
}
