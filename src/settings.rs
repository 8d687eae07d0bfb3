//! The settings the core runs with. The shim loads them from `data.json` (and the API key from
//! secret storage) and hands them over; the core validates them and never persists them.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::hub::config::{HubConfig, DEFAULT_CLIENT_NAME, DEFAULT_DESCRIPTION, DEFAULT_HUB_URL};
pub use crate::llm::{ApiFormat, AuthStyle};
use crate::usage::ModelPrice;

/// Default Anthropic endpoint.
pub(crate) const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";

/// Everything configurable about the core.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Settings {
    /// The model server's base URL (Anthropic, or a local or hosted server).
    pub base_url: String,
    /// The wire format the server speaks.
    pub api_format: ApiFormat,
    /// How the API key is sent.
    pub auth_style: AuthStyle,
    pub model: String,
    pub max_tokens: u32,
    /// API key; empty for local servers that need none.
    pub api_key: String,
    /// The model for work nobody waits on — titles and summaries, retrospection, scheduled runs
    /// (a job may name its own) — such as a cheaper or a local one; empty: the chat's model.
    pub background_model: String,
    /// The server of the background model; empty: the chat's server, format, auth and key.
    pub background_base_url: String,
    /// The background server's wire format (with `background_base_url`).
    pub background_api_format: ApiFormat,
    /// How the background server takes its key (with `background_base_url`).
    pub background_auth_style: AuthStyle,
    /// The background server's own key: the chat's key never goes to another server.
    pub background_api_key: String,
    /// Stream tokens (SSE) instead of waiting for the whole answer.
    pub streaming: bool,
    /// Model calls allowed in one turn before the agent stops and says so.
    pub max_iterations: u32,
    /// Longest silence from a streaming server before the call counts as a network error.
    pub stream_idle_timeout_ms: u64,
    /// Longest wait for a streamed answer to start (its headers and first event), from the
    /// request: a server that takes the connection and never answers is an error the user sees
    /// in this time, not when the platform gives up minutes later.
    pub response_start_timeout_ms: u64,
    /// Title of the notifications sent to the hub.
    pub notification_title: String,
    /// Rough budget, in tokens, of conversation history sent to the model.
    pub context_token_budget: u32,
    /// The user's description of their vault (folders and what goes where), for the system prompt.
    pub information_architecture: String,
    /// Log debug lines.
    pub verbose_logging: bool,
    /// Minutes of silence after which the next message starts a new conversation.
    pub conversation_idle_timeout_minutes: u32,
    /// Minutes after which an unanswered question is dropped.
    pub conversation_state_timeout_minutes: u32,
    /// Keep each conversation as a Markdown note too, added to after each turn (issue 19).
    pub markdown_copies: bool,
    /// The vault folder of those notes.
    pub markdown_copies_folder: String,
    /// Reflect on each conversation after it ends, into `retrospection.md`.
    pub enable_conversation_retrospection: bool,
    /// What the retrospection asks the model.
    pub retrospection_prompt: String,
    /// Connect to the SmartHole hub.
    pub hub_enabled: bool,
    pub hub_url: String,
    /// The name the hub routes to this client by.
    pub hub_client_name: String,
    /// What the hub's router reads to decide what to send here.
    pub hub_description: String,
    /// Folders the note tools may not touch, besides `.obsidian/`, `.smarthole/`, `.git/` and
    /// `.trash/`.
    pub protected_folders: Vec<String>,
    /// Tools whose approval is given in advance (`write_file`, `delete_file`, `move_file`).
    pub auto_approve_tools: Vec<String>,
    /// Let the note tools read, list and search folders linked into the vault from outside it
    /// (Obsidian's desktop app shows them). Off by default: they are skipped. Never written, even
    /// when on: the agent's changes stay inside the vault's own folder.
    pub follow_linked_folders: bool,
    /// The search index's ceiling in wasm memory, in MB: past it the index is dropped and
    /// `search_files` scans the vault as before (very large vaults on small devices); 0 turns
    /// the index off.
    pub search_index_max_mb: u32,
    /// The user's MCP servers (the shim connects them; the core checks them here).
    pub mcp_servers: Vec<McpServerConfig>,
    /// Serve the local agent API (desktop only; off unless the user turns it on).
    pub agent_api_enabled: bool,
    /// The port of the agent API's main server (every endpoint, every context).
    pub agent_api_port: u16,
    /// The bearer token every agent API request must carry (kept in secret storage).
    pub agent_api_token: String,
    /// Seconds a verification waits for the user before it is rejected with "timeout".
    pub verification_timeout_seconds: u32,
    /// The instruction contexts external agents read; the first is the default.
    pub agent_contexts: Vec<AgentContext>,
    /// Prices per model, for the estimated cost shown with each answer and in the totals
    /// (defaults: the current Claude models; editable).
    pub model_prices: Vec<ModelPrice>,
}

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

/// Shortest agent API token the core accepts (the plugin generates 64 hex digits).
pub(crate) const MIN_API_TOKEN_LEN: usize = 32;

/// The search index's default ceiling: a 10,000-note vault's index (about 42 MB) fits; a larger
/// vault is searched by scanning rather than growing the wasm memory (which never shrinks) by
/// hundreds of MB — on a phone too.
const DEFAULT_SEARCH_INDEX_MB: u32 = 64;

/// Whether a base URL names a web server.
fn is_http_url(url: &str) -> bool {
    let url = url.trim();
    (url.starts_with("http://") || url.starts_with("https://")) && url.len() > "https://".len()
}

/// Whether a name fits in a URL path and a tool name: 1 to 32 letters, digits, - or _.
fn is_simple_name(name: &str) -> bool {
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
    fn problem(&self) -> Option<String> {
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

/// The tools that ask the user before they act.
pub(crate) const APPROVAL_TOOLS: [&str; 4] = ["write_file", "edit_file", "delete_file", "move_file"];

/// The default retrospection question.
pub(crate) const DEFAULT_RETROSPECTION_PROMPT: &str =
    "Look back at this conversation. What went well, what could have gone \
better, and what would make the next similar conversation easier (a note to keep, a folder convention, a preference \
to remember)? Answer in three to five short bullet points.";

/// Milliseconds in a minute.
const MINUTE_MS: u64 = 60_000;

impl Settings {
    /// The settings for work nobody waits on (titles, summaries, retrospection, scheduled runs):
    /// the background model — `model` when a job names its own — on the background server when
    /// one is set. Everything else is the chat's.
    pub(crate) fn for_background(&self, model: Option<&str>) -> Settings {
        let mut settings = self.clone();
        if !self.background_base_url.trim().is_empty() {
            settings.base_url = self.background_base_url.trim().to_owned();
            settings.api_format = self.background_api_format;
            settings.auth_style = self.background_auth_style;
            settings.api_key = self.background_api_key.clone();
        }
        let named =
            [model.unwrap_or_default(), &self.background_model].into_iter().map(str::trim).find(|m| !m.is_empty());
        if let Some(name) = named {
            settings.model = name.to_owned();
        }
        settings
    }

    /// The idle boundary in milliseconds.
    pub fn idle_timeout_ms(&self) -> u64 {
        u64::from(self.conversation_idle_timeout_minutes) * MINUTE_MS
    }

    /// The hub connection to have: `None` when it is turned off. (Its fields are checked by the
    /// hub client, which reports a bad name as a connection error, not as invalid settings.)
    pub fn hub_config(&self) -> Option<HubConfig> {
        self.hub_enabled.then(|| HubConfig {
            url: self.hub_url.trim().to_owned(),
            client_name: self.hub_client_name.trim().to_owned(),
            description: self.hub_description.trim().to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
        })
    }

    /// The pending-question lifetime in milliseconds.
    pub fn state_timeout_ms(&self) -> u64 {
        u64::from(self.conversation_state_timeout_minutes) * MINUTE_MS
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            base_url: DEFAULT_BASE_URL.to_owned(),
            api_format: ApiFormat::Anthropic,
            auth_style: AuthStyle::XApiKey,
            model: "claude-sonnet-4-5".to_owned(),
            max_tokens: 4096,
            api_key: String::new(),
            background_model: String::new(),
            background_base_url: String::new(),
            background_api_format: ApiFormat::Anthropic,
            background_auth_style: AuthStyle::None,
            background_api_key: String::new(),
            streaming: true,
            max_iterations: 10,
            stream_idle_timeout_ms: 90_000,
            response_start_timeout_ms: 90_000,
            notification_title: "Obsidian".to_owned(),
            context_token_budget: 50_000,
            information_architecture: String::new(),
            verbose_logging: false,
            conversation_idle_timeout_minutes: 30,
            conversation_state_timeout_minutes: 60,
            markdown_copies: false,
            markdown_copies_folder: crate::conversation::markdown::DEFAULT_FOLDER.to_owned(),
            enable_conversation_retrospection: false,
            retrospection_prompt: DEFAULT_RETROSPECTION_PROMPT.to_owned(),
            hub_enabled: true,
            hub_url: DEFAULT_HUB_URL.to_owned(),
            hub_client_name: DEFAULT_CLIENT_NAME.to_owned(),
            hub_description: DEFAULT_DESCRIPTION.to_owned(),
            protected_folders: Vec::new(),
            auto_approve_tools: Vec::new(),
            follow_linked_folders: false,
            search_index_max_mb: DEFAULT_SEARCH_INDEX_MB,
            mcp_servers: Vec::new(),
            agent_api_enabled: false,
            agent_api_port: 8090,
            agent_api_token: String::new(),
            verification_timeout_seconds: 300,
            agent_contexts: vec![AgentContext::default()],
            model_prices: crate::usage::default_prices(),
        }
    }
}

/// A setting the user must change, with the field named.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SettingsError {
    #[error("base URL must start with http:// or https:// (got {0:?})")]
    BaseUrl(String),
    #[error("model name is empty")]
    Model,
    #[error("the background model's base URL must be empty (the chat's server) or start with http:// or https:// (got {0:?})")]
    BackgroundBaseUrl(String),
    #[error("max tokens must be between 1 and 128000 (got {0})")]
    MaxTokens(u32),
    #[error("max iterations must be between 1 and 50 (got {0})")]
    MaxIterations(u32),
    #[error("the conversation idle timeout must be between 1 and 10080 minutes (got {0})")]
    IdleTimeout(u32),
    #[error("the pending-question timeout must be between 1 and 10080 minutes (got {0})")]
    StateTimeout(u32),
    #[error("the folder for Markdown copies {folder:?} cannot be used: {reason}")]
    CopiesFolder { folder: String, reason: String },
    #[error("protected folder {folder:?} is not a vault folder: {reason}")]
    ProtectedFolder { folder: String, reason: String },
    #[error("{0:?} cannot be auto-approved: only write_file, delete_file and move_file ask for approval")]
    AutoApprove(String),
    #[error("integration {name:?}: {reason}")]
    McpServer { name: String, reason: String },
    #[error("agent API: {0}")]
    AgentApi(String),
    #[error("model prices: {0}")]
    Prices(String),
    #[error("settings are not valid: {0}")]
    Shape(String),
    #[error("{field} must be one of {accepted} (got {given})")]
    Choice { field: &'static str, given: String, accepted: String },
}

impl Settings {
    /// Checks every field a request depends on.
    pub fn validate(&self) -> Result<(), SettingsError> {
        if !is_http_url(&self.base_url) {
            return Err(SettingsError::BaseUrl(self.base_url.clone()));
        }
        if self.model.trim().is_empty() {
            return Err(SettingsError::Model);
        }
        if !self.background_base_url.trim().is_empty() && !is_http_url(&self.background_base_url) {
            return Err(SettingsError::BackgroundBaseUrl(self.background_base_url.clone()));
        }
        if !(1..=128_000).contains(&self.max_tokens) {
            return Err(SettingsError::MaxTokens(self.max_tokens));
        }
        if !(1..=50).contains(&self.max_iterations) {
            return Err(SettingsError::MaxIterations(self.max_iterations));
        }
        if !(1..=10_080).contains(&self.conversation_idle_timeout_minutes) {
            return Err(SettingsError::IdleTimeout(self.conversation_idle_timeout_minutes));
        }
        if !(1..=10_080).contains(&self.conversation_state_timeout_minutes) {
            return Err(SettingsError::StateTimeout(self.conversation_state_timeout_minutes));
        }
        if let Some(reason) = self.copies_folder_problem() {
            return Err(SettingsError::CopiesFolder { folder: self.markdown_copies_folder.clone(), reason });
        }
        for folder in &self.protected_folders {
            match crate::vault::normalize(folder, &[]) {
                Ok(path) if !path.is_empty() => {}
                Ok(_) => {
                    return Err(SettingsError::ProtectedFolder {
                        folder: folder.clone(),
                        reason: "it names the whole vault".into(),
                    })
                }
                Err(e) => return Err(SettingsError::ProtectedFolder { folder: folder.clone(), reason: e.to_string() }),
            }
        }
        if let Some(tool) = self.auto_approve_tools.iter().find(|t| !APPROVAL_TOOLS.contains(&t.as_str())) {
            return Err(SettingsError::AutoApprove(tool.clone()));
        }
        for (i, server) in self.mcp_servers.iter().enumerate() {
            let problem = server.problem().or_else(|| {
                self.mcp_servers[..i]
                    .iter()
                    .any(|s| s.name == server.name)
                    .then(|| "two integrations have this name".to_owned())
            });
            if let Some(reason) = problem {
                return Err(SettingsError::McpServer { name: server.name.clone(), reason });
            }
        }
        if let Some(why) = self.model_prices.iter().find_map(crate::usage::price_problem) {
            return Err(SettingsError::Prices(why));
        }
        self.agent_api_problem().map_or(Ok(()), |why| Err(SettingsError::AgentApi(why)))
    }

    /// What is wrong with the Markdown copies' folder, if anything: a vault folder outside the
    /// folders kept for the app, the plugin and Git (the vault's root is allowed).
    fn copies_folder_problem(&self) -> Option<String> {
        let folder = match crate::vault::normalize(&self.markdown_copies_folder, &[]) {
            Ok(folder) => folder,
            Err(e) => return Some(e.to_string()),
        };
        crate::vault::path::is_protected(&folder, &crate::vault::path::protected_folders(&[]))
            .map(|kept| format!("{kept}/ is kept for the app, the plugin or Git"))
    }

    /// What is wrong with the agent API settings, if anything.
    fn agent_api_problem(&self) -> Option<String> {
        if self.agent_api_port < 1024 {
            return Some(format!("the port must be between 1024 and 65535 (got {})", self.agent_api_port));
        }
        if !(1..=3_600).contains(&self.verification_timeout_seconds) {
            return Some(format!(
                "the verification timeout must be between 1 and 3600 seconds (got {})",
                self.verification_timeout_seconds
            ));
        }
        if self.agent_contexts.is_empty() {
            return Some("there must be at least one instruction context".to_owned());
        }
        let mut ports = vec![self.agent_api_port];
        for (i, context) in self.agent_contexts.iter().enumerate() {
            let name = &context.name;
            if !is_simple_name(name) {
                return Some(format!("context name {name:?} must be 1 to 32 letters, digits, - or _"));
            }
            if self.agent_contexts[..i].iter().any(|c| c.name == *name) {
                return Some(format!("two contexts are named {name:?}"));
            }
            if context.allowed_actions.iter().any(|a| a.trim().is_empty() || a.len() > 100) {
                return Some(format!("context {name:?} has an empty or over-long allowed action"));
            }
            if let Some(port) = context.port {
                if port < 1024 || ports.contains(&port) {
                    return Some(format!("context {name:?}: port {port} is below 1024 or already used"));
                }
                ports.push(port);
            }
        }
        None
    }

    /// Whether the agent API can be served: on, and with a token. (A token missing on this
    /// device, say after the settings synced from another one, keeps the API off, not the
    /// whole plugin.)
    pub fn agent_api_serving(&self) -> bool {
        self.agent_api_enabled && self.agent_api_token.len() >= MIN_API_TOKEN_LEN
    }

    /// How long a verification waits for the user, in milliseconds.
    pub fn verification_timeout_ms(&self) -> u64 {
        u64::from(self.verification_timeout_seconds) * 1_000
    }

    /// Reads settings from JSON, filling absent fields with defaults.
    pub fn from_json(value: serde_json::Value) -> Result<Self, SettingsError> {
        // The two choices a user types on the command line, named with their accepted values
        // (serde's own message names neither the setting nor where it came from).
        let formats = ApiFormat::ALL.map(ApiFormat::name);
        let styles = AuthStyle::ALL.map(AuthStyle::name);
        let choices = [
            ("apiFormat", formats.as_slice()),
            ("authStyle", styles.as_slice()),
            ("backgroundApiFormat", formats.as_slice()),
            ("backgroundAuthStyle", styles.as_slice()),
        ];
        for (field, accepted) in choices {
            if let Some(given) = value.get(field).filter(|v| !v.as_str().is_some_and(|s| accepted.contains(&s))) {
                return Err(SettingsError::Choice { field, given: given.to_string(), accepted: accepted.join(", ") });
            }
        }
        let settings: Settings = crate::lean::from_value(&value).map_err(|e| SettingsError::Shape(e.to_string()))?;
        settings.validate()?;
        Ok(settings)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn background_work_uses_its_own_model_and_server_and_never_the_chats_key() {
        let chat = Settings::from_json(json!({"model": "big", "apiKey": "chat-key"})).unwrap();
        // Nothing set: the chat's model and server.
        assert_eq!(chat.for_background(None), chat);
        // A model only: the chat's server and key, another model; a job's own model wins.
        let cheap = Settings { background_model: " small ".into(), ..chat.clone() };
        assert_eq!(cheap.for_background(None).model, "small");
        assert_eq!(cheap.for_background(None).api_key, "chat-key");
        assert_eq!(cheap.for_background(Some("job-model")).model, "job-model");
        assert_eq!(cheap.for_background(Some("  ")).model, "small");
        // A server of its own: its format, auth and key, never the chat's key.
        let local = Settings::from_json(json!({
            "model": "big", "apiKey": "chat-key", "backgroundModel": "qwen", "backgroundBaseUrl": "http://127.0.0.1:11434",
            "backgroundApiFormat": "openai", "backgroundAuthStyle": "bearer",
        }))
        .unwrap();
        let background = local.for_background(None);
        assert_eq!(
            (background.base_url.as_str(), background.api_format, background.auth_style, background.model.as_str()),
            ("http://127.0.0.1:11434", ApiFormat::Openai, AuthStyle::Bearer, "qwen")
        );
        assert_eq!(background.api_key, "", "the chat's key stays with the chat's server");
        assert_eq!(local.for_background(None).max_tokens, local.max_tokens);
        assert!(matches!(
            Settings::from_json(json!({"backgroundBaseUrl": "localhost:11434"})),
            Err(SettingsError::BackgroundBaseUrl(_))
        ));
        assert!(matches!(
            Settings::from_json(json!({"backgroundApiFormat": "gemini"})),
            Err(SettingsError::Choice { field: "backgroundApiFormat", .. })
        ));
    }

    #[test]
    fn the_format_and_auth_names_are_serdes() {
        for format in ApiFormat::ALL {
            assert_eq!(serde_json::to_value(format).unwrap(), json!(format.name()));
        }
        for style in AuthStyle::ALL {
            assert_eq!(serde_json::to_value(style).unwrap(), json!(style.name()));
        }
    }

    #[test]
    fn integrations_are_checked() {
        let ok = json!({"mcpServers": [{"name": "everything", "command": "node", "args": ["server.js"]}, {"name": "remote", "url": "https://mcp.example.invalid/mcp", "headers": {"Authorization": "Bearer x"}}]});
        assert_eq!(Settings::from_json(ok).unwrap().mcp_servers.len(), 2);
        for (servers, expected) in [
            (json!([{"name": "bad name", "command": "x"}]), "the name must be"),
            (json!([{"name": "a__b", "command": "x"}]), "no double _"),
            (json!([{"name": "a"}]), "give a command"),
            (json!([{"name": "a", "command": "x", "url": "http://x"}]), "not both"),
            (json!([{"name": "a", "url": "ftp://x"}]), "must start with http"),
            (json!([{"name": "a", "command": "x"}, {"name": "a", "command": "y"}]), "two integrations"),
        ] {
            let err = Settings::from_json(json!({"mcpServers": servers})).unwrap_err().to_string();
            assert!(err.contains(expected), "{err}");
        }
    }

    #[test]
    fn defaults_are_valid_and_partial_json_fills_in() {
        let s = Settings::from_json(json!({"model": "smollm2", "baseUrl": "http://127.0.0.1:8091"})).unwrap();
        assert_eq!(s.max_tokens, 4096);
        assert_eq!(s.base_url, "http://127.0.0.1:8091");
    }

    #[test]
    fn bad_fields_are_named() {
        assert_eq!(Settings::from_json(json!({"baseUrl": "ftp://x"})), Err(SettingsError::BaseUrl("ftp://x".into())));
        assert_eq!(Settings::from_json(json!({"model": " "})), Err(SettingsError::Model));
        assert_eq!(Settings::from_json(json!({"maxTokens": 0})), Err(SettingsError::MaxTokens(0)));
        assert!(matches!(Settings::from_json(json!({"maxTokens": "many"})), Err(SettingsError::Shape(_))));
    }
}
