//! The tools the agent can call: their definitions for the model, input validation, and
//! execution. Each tool answers with text the model can act on; a bad input is an `is_error`
//! result that says what was wrong, never a failure of the turn.

mod args;
mod end_conversation;
mod get_conversation;
mod integrations;
mod needs_input;
mod notes;
mod schedule;
mod send_message;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::approval::{ApprovalAsk, ApprovalOutcome};
use crate::conversation::{ConversationStore, QuestionType, Schedule};
use crate::host::Host;
use crate::llm::types::field;
use crate::llm::request::tools_json;
use crate::llm::ToolDef;
use crate::mcp::{self, McpServer};
use crate::message::RoutedMessage;
use crate::schedule::StatePatch;
use crate::settings::Settings;
pub use args::Args;
use futures::future::LocalBoxFuture;
use futures::lock::Mutex;

/// The built-in tools. An enum rather than trait objects: the set is known, dispatch is a match,
/// and each tool stays an ordinary async function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BuiltinTool {
    SendMessage,
    EndConversation,
    GetConversation,
    NeedsInput,
    KeepQuestionOpen,
    CreateSchedule,
    StateUpdate,
}

impl BuiltinTool {
    /// Every built-in tool, in the order offered to the model.
    pub const ALL: [BuiltinTool; 7] = [
        BuiltinTool::SendMessage,
        BuiltinTool::NeedsInput,
        BuiltinTool::KeepQuestionOpen,
        BuiltinTool::EndConversation,
        BuiltinTool::GetConversation,
        BuiltinTool::CreateSchedule,
        BuiltinTool::StateUpdate,
    ];

    /// The name the model calls it by.
    pub fn name(self) -> &'static str {
        match self {
            BuiltinTool::SendMessage => send_message::NAME,
            BuiltinTool::EndConversation => end_conversation::NAME,
            BuiltinTool::GetConversation => get_conversation::NAME,
            BuiltinTool::NeedsInput => needs_input::NAME,
            BuiltinTool::KeepQuestionOpen => schedule::KEEP,
            BuiltinTool::CreateSchedule => schedule::CREATE,
            BuiltinTool::StateUpdate => schedule::STATE,
        }
    }

    /// Its definition for the model.
    pub fn definition(self) -> ToolDef {
        match self {
            BuiltinTool::SendMessage => send_message::definition(),
            BuiltinTool::EndConversation => end_conversation::definition(),
            BuiltinTool::GetConversation => get_conversation::definition(),
            BuiltinTool::NeedsInput => needs_input::definition(),
            BuiltinTool::KeepQuestionOpen => schedule::keep_definition(),
            BuiltinTool::CreateSchedule => schedule::create_definition(),
            BuiltinTool::StateUpdate => schedule::state_definition(),
        }
    }
}

/// A side effect of a tool that changes how the turn goes on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(tag = "kind", rename_all = "snake_case", try_from = "FlatEffect")]
pub enum ToolEffect {
    #[default]
    None,
    /// The agent asked the user something: the turn ends and waits for the reply.
    Question {
        #[serde(default)]
        question_type: QuestionType,
        prompt: String,
        #[serde(default)]
        options: Vec<String>,
        /// The question also went to the hub as a notification.
        sent_to_hub: bool,
    },
    /// The conversation ends once this turn is recorded.
    EndConversation { reason: String },
    /// The conversation gets this schedule (and initial state) once the turn is recorded.
    Schedule { schedule: Box<Schedule>, state: StatePatch },
    /// The conversation's state changes once the turn is recorded.
    StateUpdate { patch: StatePatch },
    /// The user's message did not answer the pending question: it stays open.
    KeepQuestion,
}

/// An effect as read (flat, like `llm::types::FlatBlock`, for the bundle's size).
#[derive(Deserialize)]
struct FlatEffect {
    kind: String,
    #[serde(default)]
    question_type: QuestionType,
    prompt: Option<String>,
    #[serde(default)]
    options: Vec<String>,
    sent_to_hub: Option<bool>,
    reason: Option<String>,
    schedule: Option<Box<Schedule>>,
    #[serde(default)]
    state: StatePatch,
    #[serde(default)]
    patch: StatePatch,
}

impl TryFrom<FlatEffect> for ToolEffect {
    type Error = String;

    fn try_from(f: FlatEffect) -> Result<Self, String> {
        let kind = f.kind.as_str();
        match kind {
            "none" => Ok(ToolEffect::None),
            "question" => Ok(ToolEffect::Question {
                question_type: f.question_type,
                prompt: field(f.prompt, kind, "prompt")?,
                options: f.options,
                sent_to_hub: field(f.sent_to_hub, kind, "sent_to_hub")?,
            }),
            "end_conversation" => Ok(ToolEffect::EndConversation { reason: field(f.reason, kind, "reason")? }),
            "schedule" => Ok(ToolEffect::Schedule { schedule: field(f.schedule, kind, "schedule")?, state: f.state }),
            "state_update" => Ok(ToolEffect::StateUpdate { patch: f.patch }),
            "keep_question" => Ok(ToolEffect::KeepQuestion),
            other => Err(format!("unknown tool effect {other:?}")),
        }
    }
}

/// What a tool call produced.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    pub content: String,
    pub is_error: bool,
    pub effect: ToolEffect,
}

impl ToolOutput {
    /// A successful result.
    pub fn ok(content: impl Into<String>) -> Self {
        ToolOutput { content: content.into(), is_error: false, effect: ToolEffect::None }
    }

    /// An error result the model will read.
    pub fn error(content: impl Into<String>) -> Self {
        ToolOutput { content: content.into(), is_error: true, effect: ToolEffect::None }
    }
}

/// What a tool may use while it runs.
pub struct ToolContext<'a, H: Host> {
    pub host: &'a H,
    pub settings: &'a Settings,
    /// The message this turn answers (its source decides where agent messages go).
    pub message: &'a RoutedMessage,
    /// The conversations, for tools that read them.
    pub store: &'a Mutex<Option<ConversationStore>>,
    /// Sends a notification frame about this message to the hub.
    pub notify_hub: &'a dyn Fn(String),
    /// Asks the user to approve an action and waits for the answer (or its expiry).
    pub approve: &'a dyn Fn(ApprovalAsk) -> LocalBoxFuture<'a, ApprovalOutcome>,
    /// The user's integrations (MCP servers) as they were when the turn started.
    pub integrations: &'a [McpServer],
}

/// The tools offered in a turn: the conversation tools, the note tools, then the connected
/// integrations' tools.
#[derive(Debug, Clone)]
pub struct ToolRegistry {
    tools: Vec<BuiltinTool>,
    definitions: Vec<ToolDef>,
    /// The built-in definitions as the request carries them, serialised once.
    request_json: String,
}

impl Default for ToolRegistry {
    fn default() -> Self {
        let tools = BuiltinTool::ALL.to_vec();
        let definitions: Vec<ToolDef> = tools.iter().map(|t| t.definition()).chain(notes::definitions()).collect();
        let request_json = tools_json(&definitions);
        ToolRegistry { tools, definitions, request_json }
    }
}

impl ToolRegistry {
    /// The request's `tools` array: the built-in ones (serialised once) and, when integrations
    /// are connected, theirs.
    pub fn request_json(&self, integrations: &[McpServer]) -> String {
        let extra = mcp::definitions(integrations);
        if extra.is_empty() {
            return self.request_json.clone();
        }
        tools_json(&[self.definitions.as_slice(), extra.as_slice()].concat())
    }

    /// Runs a tool call by name; an unknown name is an error result.
    pub async fn run<H: Host>(&self, ctx: &ToolContext<'_, H>, name: &str, input: &Value) -> ToolOutput {
        if notes::has(name) {
            return notes::run(ctx, name, input).await;
        }
        if name.starts_with(mcp::TOOL_PREFIX) {
            return integrations::call(ctx, name, input).await;
        }
        let Some(tool) = self.tools.iter().copied().find(|t| t.name() == name) else {
            let known: Vec<&str> = self.tools.iter().map(|t| t.name()).chain(notes::names()).collect();
            return ToolOutput::error(format!("Unknown tool \"{name}\". Available tools: {}.", known.join(", ")));
        };
        match tool {
            BuiltinTool::SendMessage => send_message::run(ctx, input),
            BuiltinTool::EndConversation => end_conversation::run(input),
            BuiltinTool::GetConversation => get_conversation::run(ctx.host, ctx.store, input).await,
            BuiltinTool::NeedsInput => needs_input::run(ctx, input),
            BuiltinTool::KeepQuestionOpen => schedule::keep_question(),
            BuiltinTool::CreateSchedule => schedule::create(ctx, input).await,
            BuiltinTool::StateUpdate => schedule::state_update(input),
        }
    }
}

/// A tool's definition with its schema written as JSON text (a `json!` literal costs several
/// KB of wasm per tool; parsing the text costs nothing noticeable, once per turn).
pub(crate) fn tool_def(name: &str, description: &str, schema: &str) -> ToolDef {
    ToolDef {
        name: name.to_owned(),
        description: description.to_owned(),
        input_schema: serde_json::from_str(schema).unwrap_or_else(|_| Value::Object(Default::default())),
    }
}
