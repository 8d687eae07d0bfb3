//! The tools the agent can call: their definitions for the model, input validation, and
//! execution. Each tool answers with text the model can act on; a bad input is an `is_error`
//! result that says what was wrong, never a failure of the turn.

mod args;
mod end_conversation;
mod get_conversation;
mod needs_input;
mod notes;
mod send_message;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::approval::{ApprovalAsk, ApprovalOutcome};
use crate::conversation::{ConversationStore, QuestionType};
use crate::host::Host;
use crate::llm::types::field;
use crate::llm::types::tools_json;
use crate::llm::ToolDef;
use crate::message::RoutedMessage;
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
}

impl BuiltinTool {
    /// Every built-in tool, in the order offered to the model.
    pub const ALL: [BuiltinTool; 4] =
        [BuiltinTool::SendMessage, BuiltinTool::NeedsInput, BuiltinTool::EndConversation, BuiltinTool::GetConversation];

    /// The name the model calls it by.
    pub fn name(self) -> &'static str {
        match self {
            BuiltinTool::SendMessage => send_message::NAME,
            BuiltinTool::EndConversation => end_conversation::NAME,
            BuiltinTool::GetConversation => get_conversation::NAME,
            BuiltinTool::NeedsInput => needs_input::NAME,
        }
    }

    /// Its definition for the model.
    pub fn definition(self) -> ToolDef {
        match self {
            BuiltinTool::SendMessage => send_message::definition(),
            BuiltinTool::EndConversation => end_conversation::definition(),
            BuiltinTool::GetConversation => get_conversation::definition(),
            BuiltinTool::NeedsInput => needs_input::definition(),
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
}

/// The tools offered in a turn: the conversation tools, then the note tools.
#[derive(Debug, Clone)]
pub struct ToolRegistry {
    tools: Vec<BuiltinTool>,
    /// The definitions as the request carries them, serialised once.
    request_json: String,
}

impl Default for ToolRegistry {
    fn default() -> Self {
        let tools = BuiltinTool::ALL.to_vec();
        let definitions: Vec<ToolDef> = tools.iter().map(|t| t.definition()).chain(notes::definitions()).collect();
        ToolRegistry { tools, request_json: tools_json(&definitions) }
    }
}

impl ToolRegistry {
    /// The tools' definitions as the request's `tools` array.
    pub fn request_json(&self) -> &str {
        &self.request_json
    }

    /// Runs a tool call by name; an unknown name is an error result.
    pub async fn run<H: Host>(&self, ctx: &ToolContext<'_, H>, name: &str, input: &Value) -> ToolOutput {
        if notes::has(name) {
            return notes::run(ctx, name, input).await;
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
