//! The ACP v1 messages the client reads, as serde types for exactly the fields it uses (checked
//! against the official schema's examples in `tests/acp_schema.rs`). Lenient where the schema is
//! (`x-deserialize-default-on-error`): an optional field of an unexpected shape is left out, not
//! an error. What the client writes is built in `client.rs` and `session.rs`.

use serde::Deserialize;
use serde_json::Value;

/// The protocol version this client speaks.
pub(crate) const PROTOCOL_VERSION: u64 = 1;

/// The answer to `initialize`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub(crate) struct InitializeResult {
    /// A number in v1; anything else is a version we do not speak.
    pub protocol_version: Value,
    pub agent_capabilities: AgentCapabilities,
    #[serde(deserialize_with = "lenient_list")]
    pub auth_methods: Vec<AuthMethod>,
}

/// What the agent can do that the client uses.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub(crate) struct AgentCapabilities {
    #[serde(deserialize_with = "lenient")]
    pub load_session: bool,
}

/// A way the agent can be signed in.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub(crate) struct AuthMethod {
    pub id: String,
    pub name: String,
}

/// The answer to `session/new`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct NewSessionResult {
    pub session_id: String,
}

/// The answer to `session/prompt`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PromptResult {
    pub stop_reason: String,
}

/// The params of a `session/update` notification.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SessionNotification {
    pub session_id: String,
    pub update: SessionUpdate,
}

/// What a session reports during a turn (the variants the chat draws; the rest is `Other`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "sessionUpdate", rename_all = "snake_case")]
pub(crate) enum SessionUpdate {
    AgentMessageChunk {
        content: ContentBlock,
    },
    AgentThoughtChunk {
        content: ContentBlock,
    },
    UserMessageChunk {
        content: ContentBlock,
    },
    ToolCall(ToolCallFields),
    ToolCallUpdate(ToolCallFields),
    Plan {
        #[serde(default, deserialize_with = "lenient_list")]
        entries: Vec<PlanEntry>,
    },
    AvailableCommandsUpdate {
        #[serde(default, rename = "availableCommands")]
        available_commands: Vec<Value>,
    },
    UsageUpdate {
        used: u64,
        size: u64,
        #[serde(default, deserialize_with = "lenient")]
        cost: Option<Cost>,
    },
    /// Anything else (`current_mode_update`, newer variants): nothing to draw.
    #[serde(other)]
    Other,
}

/// A content block; the client reads the text of text blocks only.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub(crate) struct ContentBlock {
    #[serde(rename = "type")]
    pub kind: String,
    pub text: Option<String>,
}

/// A tool call, or an update of one (every field but the id optional in an update).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub(crate) struct ToolCallFields {
    pub tool_call_id: String,
    #[serde(deserialize_with = "lenient")]
    pub title: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub kind: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub status: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub content: Option<Vec<Value>>,
    pub raw_input: Option<Value>,
    pub raw_output: Option<Value>,
}

/// One line of an agent's plan.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, serde::Serialize)]
#[serde(default)]
pub struct PlanEntry {
    /// What the step does.
    pub content: String,
    /// `pending`, `in_progress` or `completed`.
    pub status: String,
    /// `high`, `medium` or `low`.
    pub priority: String,
}

/// A session's cumulative cost.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub(crate) struct Cost {
    pub amount: f64,
    pub currency: String,
}

/// The params of `session/request_permission`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PermissionRequest {
    pub session_id: String,
    pub tool_call: ToolCallFields,
    pub options: Vec<PermissionOption>,
}

/// One answer the agent offers to a permission request.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PermissionOption {
    pub option_id: String,
    #[serde(default)]
    pub name: String,
    /// `allow_once`, `allow_always`, `reject_once` or `reject_always`.
    pub kind: String,
}

/// A field of an unexpected shape read as its default (the schema's default-on-error).
fn lenient<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::de::DeserializeOwned + Default,
{
    let value = Value::deserialize(deserializer)?;
    Ok(crate::lean::from_value(&value).unwrap_or_default())
}

/// A list whose items of an unexpected shape are skipped (the schema's skip-invalid-items).
fn lenient_list<'de, D, T>(deserializer: D) -> Result<Vec<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::de::DeserializeOwned,
{
    let value = Value::deserialize(deserializer)?;
    let Value::Array(items) = value else { return Ok(Vec::new()) };
    Ok(items.iter().filter_map(|item| crate::lean::from_value(item).ok()).collect())
}
