//! Settings checked and read: [`SettingsError`] names the field to change; `validate` checks
//! every field a request depends on, `from_json` reads a document (naming a mistyped choice with
//! its accepted values).

use thiserror::Error;

use super::entries::{is_http_url, is_simple_name};
use super::values::{Settings, APPROVAL_TOOLS, MIN_API_TOKEN_LEN};
use crate::llm::{ApiFormat, AuthStyle};

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
    #[error("agent: {0}")]
    Agent(String),
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
        if let Some(tool) =
            self.auto_approve_tools.iter().find(|t| !APPROVAL_TOOLS.iter().any(|a| a.tool == t.as_str()))
        {
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
        if self.agent == crate::acp::AgentKind::Acp && self.agent_command.trim().is_empty() {
            return Err(SettingsError::Agent(
                "the custom ACP agent needs a command: set the agent command (or --agent-command)".to_owned(),
            ));
        }
        if let Err(problem) = crate::acp::launch::split_command(&self.agent_command) {
            return Err(SettingsError::Agent(problem.to_string()));
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
        // The host's configuration folder is not known here: the fixed folders.
        crate::vault::path::is_protected(&folder, &crate::vault::path::always_protected(""))
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
        let agents = crate::acp::AgentKind::ALL.map(crate::acp::AgentKind::name);
        let choices = [
            ("agent", agents.as_slice()),
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
    fn the_tools_the_settings_offer_to_approve_are_exactly_those_accepted() {
        for tool in APPROVAL_TOOLS {
            let ok = Settings::from_json(json!({"autoApproveTools": [tool.tool]}));
            assert!(ok.is_ok(), "{}: {ok:?}", tool.tool);
        }
        let other = Settings::from_json(json!({"autoApproveTools": ["read_file"]}));
        assert!(matches!(other, Err(SettingsError::AutoApprove(t)) if t == "read_file"));
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
