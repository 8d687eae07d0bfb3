//! [`Settings`]: every field the core runs with, its default, and what is derived from it (the
//! background model's settings, timeouts in milliseconds, the hub's configuration).

use serde::{Deserialize, Serialize};

use super::entries::{AgentContext, McpServerConfig};
use crate::acp::AgentKind;
use crate::hub::config::{HubConfig, DEFAULT_CLIENT_NAME, DEFAULT_DESCRIPTION, DEFAULT_HUB_URL};
use crate::llm::{ApiFormat, AuthStyle, EmbeddingsFormat};
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
    /// The embedding server's base URL for search by meaning; empty: search by words only.
    pub embeddings_base_url: String,
    /// The embedding model's name, as the server knows it.
    pub embeddings_model: String,
    /// The embedding server's wire format.
    pub embeddings_format: EmbeddingsFormat,
    /// The embedding server's key (kept in secret storage); empty for local servers.
    pub embeddings_api_key: String,
    /// The meaning index's ceiling in wasm memory, in MB: past it no further note is embedded
    /// (those held are still searched, and the status says how many notes it covers); 0 turns
    /// search by meaning off.
    pub meaning_index_max_mb: u32,
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
    /// The agent behind the chat, the hub and the schedules: the built-in one, or the user's own
    /// coding agent over ACP (desktop only).
    pub agent: AgentKind,
    /// The command that starts the agent: the whole command for `acp`, or where a preset's
    /// program is (split into program and arguments, no shell).
    pub agent_command: String,
    /// Let an ACP agent use its own tools that write files and run commands (each use an
    /// approval card); off: they are switched off or refused.
    pub agent_own_tools: bool,
    /// Environment variables never passed to an agent, by name (the headless command's
    /// `--api-key-env` and `--api-token-env`; values holding a secret are never passed anyway).
    pub agent_env_hidden: Vec<String>,
    /// Prices per model, for the estimated cost shown with each answer and in the totals
    /// (defaults: the current Claude models; editable).
    pub model_prices: Vec<ModelPrice>,
}

/// Shortest agent API token the core accepts (the plugin generates 64 hex digits).
pub(crate) const MIN_API_TOKEN_LEN: usize = 32;

/// The search index's default ceiling: a 100,000-note vault of 2 KB notes (an index of about
/// 170 MB, wasm memory about 230 MB: docs/BENCHMARKS.md) fits, as issue 37's budget asks; a
/// larger vault is searched by scanning rather than growing the wasm memory (which never
/// shrinks) further. A phone short of memory sets it lower.
const DEFAULT_SEARCH_INDEX_MB: u32 = 256;

/// The meaning index's default ceiling: about 130,000 passages of 384 dimensions (some 40,000
/// notes of a few passages each); a larger vault raises it.
const DEFAULT_MEANING_INDEX_MB: u32 = 64;

/// A tool that asks the user before it acts, as the settings offer to let it act without asking.
#[derive(Debug, Clone, Copy, Serialize)]
pub(crate) struct ApprovalTool {
    /// Its name, as `autoApproveTools` holds it.
    pub tool: &'static str,
    /// The setting's name and description.
    pub name: &'static str,
    pub description: &'static str,
}

/// The tools that ask the user before they act.
pub(crate) const APPROVAL_TOOLS: [ApprovalTool; 4] = [
    ApprovalTool {
        tool: "write_file",
        name: "Overwrite notes without asking",
        description: "Let the agent replace a note's whole content without an approval card.",
    },
    ApprovalTool {
        tool: "edit_file",
        name: "Edit notes without asking",
        description:
            "Let the agent change part of a note without an approval card (the change is still shown, with Undo).",
    },
    ApprovalTool {
        tool: "delete_file",
        name: "Delete notes without asking",
        description: "Let the agent move notes to the trash without an approval card.",
    },
    ApprovalTool {
        tool: "move_file",
        name: "Move notes without asking",
        description: "Let the agent rename and move notes without an approval card.",
    },
];

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
            embeddings_base_url: String::new(),
            embeddings_model: String::new(),
            embeddings_format: EmbeddingsFormat::OpenAi,
            embeddings_api_key: String::new(),
            meaning_index_max_mb: DEFAULT_MEANING_INDEX_MB,
            mcp_servers: Vec::new(),
            agent_api_enabled: false,
            agent_api_port: 8090,
            agent_api_token: String::new(),
            verification_timeout_seconds: 300,
            agent_contexts: vec![AgentContext::default()],
            model_prices: crate::usage::default_prices(),
            agent: AgentKind::Builtin,
            agent_command: String::new(),
            agent_own_tools: false,
            agent_env_hidden: Vec::new(),
        }
    }
}
