//! The ACP v1 messages the client reads, for exactly the fields it uses (checked against the
//! official schema's examples in `tests/acp_schema.rs`). Read by hand from the parsed JSON
//! value, not derived: a serde deserializer per message type costs the bundle tens of KB
//! (DESIGN §6), and the schema asks for leniency anyway (`x-deserialize-default-on-error`: an
//! optional field of an unexpected shape is left out, not an error). What the client writes is
//! built in `client.rs` and `session.rs`.

use serde::Serialize;
use serde_json::Value;

/// The protocol version this client speaks.
pub(crate) const PROTOCOL_VERSION: u64 = 1;

/// A required field missing or of the wrong shape.
fn missing(what: &str, field: &str) -> String {
    format!("{what} without a valid {field:?}")
}

fn text(value: &Value, field: &str) -> Option<String> {
    value.get(field).and_then(Value::as_str).map(str::to_owned)
}

fn required(value: &Value, what: &str, field: &str) -> Result<String, String> {
    text(value, field).ok_or_else(|| missing(what, field))
}

/// The answer to `initialize`.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct InitializeResult {
    /// A number in v1; anything else is a version we do not speak.
    pub protocol_version: Value,
    /// Whether the agent can load a session it made earlier (`session/load`).
    pub load_session: bool,
    /// The ids of the ways the agent can be signed in.
    pub auth_methods: Vec<String>,
    /// Whether the agent connects to MCP servers over HTTP (the plugin's `smarthole` server).
    pub mcp_http: bool,
}

impl InitializeResult {
    pub(crate) fn read(value: &Value) -> Result<Self, String> {
        let protocol_version =
            value.get("protocolVersion").cloned().ok_or_else(|| missing("initialize's answer", "protocolVersion"))?;
        let load_session = value.pointer("/agentCapabilities/loadSession").and_then(Value::as_bool).unwrap_or_default();
        let auth_methods = value
            .get("authMethods")
            .and_then(Value::as_array)
            .map(|methods| methods.iter().filter_map(|m| text(m, "id")).collect())
            .unwrap_or_default();
        let mcp_http =
            value.pointer("/agentCapabilities/mcpCapabilities/http").and_then(Value::as_bool).unwrap_or_default();
        Ok(InitializeResult { protocol_version, load_session, auth_methods, mcp_http })
    }
}

/// The session id in the answer to `session/new`.
pub(crate) fn new_session_id(value: &Value) -> Result<String, String> {
    required(value, "session/new's answer", "sessionId")
}

/// The stop reason in the answer to `session/prompt`.
pub(crate) fn stop_reason(value: &Value) -> Result<String, String> {
    required(value, "session/prompt's answer", "stopReason")
}

/// The params of a `session/update` notification.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SessionNotification {
    pub session_id: String,
    pub update: SessionUpdate,
}

impl SessionNotification {
    pub(crate) fn read(params: &Value) -> Result<Self, String> {
        let session_id = required(params, "session/update", "sessionId")?;
        let update = params.get("update").ok_or_else(|| missing("session/update", "update"))?;
        Ok(SessionNotification { session_id, update: SessionUpdate::read(update)? })
    }
}

/// What a session reports during a turn (the variants the chat draws; the rest is `Other`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum SessionUpdate {
    /// A chunk of the answer: its text (`None` for an image or other block).
    AgentMessageChunk(Option<String>),
    AgentThoughtChunk,
    UserMessageChunk,
    ToolCall(ToolCallFields),
    ToolCallUpdate(ToolCallFields),
    Plan(Vec<PlanEntry>),
    AvailableCommandsUpdate,
    UsageUpdate {
        used: u64,
        size: u64,
        cost: Option<Cost>,
    },
    /// Anything else (`current_mode_update`, newer variants): nothing to draw.
    Other,
}

impl SessionUpdate {
    pub(crate) fn read(update: &Value) -> Result<Self, String> {
        let kind = required(update, "an update", "sessionUpdate")?;
        let chunk_text = || {
            let content = update.get("content").ok_or_else(|| missing(&kind, "content"))?;
            let is_text = content.get("type").and_then(Value::as_str) == Some("text");
            Ok::<_, String>(if is_text { text(content, "text") } else { None })
        };
        Ok(match kind.as_str() {
            "agent_message_chunk" => SessionUpdate::AgentMessageChunk(chunk_text()?),
            "agent_thought_chunk" => SessionUpdate::AgentThoughtChunk,
            "user_message_chunk" => SessionUpdate::UserMessageChunk,
            "tool_call" => SessionUpdate::ToolCall(ToolCallFields::read(update)?),
            "tool_call_update" => SessionUpdate::ToolCallUpdate(ToolCallFields::read(update)?),
            "plan" => SessionUpdate::Plan(
                update
                    .get("entries")
                    .and_then(Value::as_array)
                    .map(|entries| entries.iter().filter_map(PlanEntry::read).collect())
                    .unwrap_or_default(),
            ),
            "available_commands_update" => SessionUpdate::AvailableCommandsUpdate,
            "usage_update" => {
                let number =
                    |field: &str| update.get(field).and_then(Value::as_u64).ok_or_else(|| missing(&kind, field));
                let cost = update.get("cost").and_then(|cost| {
                    Some(Cost { amount: cost.get("amount")?.as_f64()?, currency: text(cost, "currency")? })
                });
                SessionUpdate::UsageUpdate { used: number("used")?, size: number("size")?, cost }
            }
            _ => SessionUpdate::Other,
        })
    }
}

/// A tool call, or an update of one (every field but the id optional in an update).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct ToolCallFields {
    pub tool_call_id: String,
    pub title: Option<String>,
    pub kind: Option<String>,
    pub status: Option<String>,
    pub content: Vec<Value>,
    pub raw_input: Option<Value>,
    pub raw_output: Option<Value>,
}

impl ToolCallFields {
    pub(crate) fn read(value: &Value) -> Result<Self, String> {
        Ok(ToolCallFields {
            tool_call_id: required(value, "a tool call", "toolCallId")?,
            title: text(value, "title"),
            kind: text(value, "kind"),
            status: text(value, "status"),
            content: value.get("content").and_then(Value::as_array).cloned().unwrap_or_default(),
            raw_input: value.get("rawInput").filter(|v| !v.is_null()).cloned(),
            raw_output: value.get("rawOutput").filter(|v| !v.is_null()).cloned(),
        })
    }
}

/// One line of an agent's plan.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PlanEntry {
    /// What the step does.
    pub content: String,
    /// `pending`, `in_progress` or `completed`.
    pub status: String,
    /// `high`, `medium` or `low`.
    pub priority: String,
}

impl PlanEntry {
    fn read(value: &Value) -> Option<Self> {
        Some(PlanEntry {
            content: text(value, "content")?,
            status: text(value, "status").unwrap_or_default(),
            priority: text(value, "priority").unwrap_or_default(),
        })
    }
}

/// A session's cumulative cost.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Cost {
    pub amount: f64,
    pub currency: String,
}

/// The params of `session/request_permission`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PermissionRequest {
    pub session_id: String,
    pub tool_call: ToolCallFields,
    pub options: Vec<PermissionOption>,
}

impl PermissionRequest {
    pub(crate) fn read(params: &Value) -> Result<Self, String> {
        let what = "session/request_permission";
        let tool_call = params.get("toolCall").ok_or_else(|| missing(what, "toolCall"))?;
        let options = params.get("options").and_then(Value::as_array).ok_or_else(|| missing(what, "options"))?;
        Ok(PermissionRequest {
            session_id: required(params, what, "sessionId")?,
            tool_call: ToolCallFields::read(tool_call)?,
            options: options
                .iter()
                .filter_map(|o| Some(PermissionOption { option_id: text(o, "optionId")?, kind: text(o, "kind")? }))
                .collect(),
        })
    }
}

/// One answer the agent offers to a permission request.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PermissionOption {
    pub option_id: String,
    /// `allow_once`, `allow_always`, `reject_once` or `reject_always`.
    pub kind: String,
}
