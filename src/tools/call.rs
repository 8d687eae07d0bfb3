//! One tool call's contract: what a tool may use while it runs ([`ToolContext`], with the
//! [`TurnServices`] the processor lends the turn), what it gives
//! back ([`ToolOutput`], with the [`ToolEffect`] on the turn), and how a tool describes itself to
//! the model (`tool_def`). Apart from the registry (`tools/mod.rs`) so that the tools use it
//! without depending on the registry that runs them.

use futures::future::LocalBoxFuture;
use futures::lock::Mutex;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::approval::{ApprovalAsk, ApprovalOutcome};
use crate::conversation::{QuestionType, Schedule};
use crate::host::Host;
use crate::hub::Priority;
use crate::llm::types::field;
use crate::llm::ToolDef;
use crate::mcp::McpServer;
use crate::message::RoutedMessage;
use crate::schedule::StatePatch;
use crate::settings::Settings;
use crate::store::ConversationStore;

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

/// What the processor lends a turn's tools besides the host and the settings: the message the
/// turn answers, the conversations, the hub and approvals (as callbacks), the integrations, the
/// search index. The turn carries it (`agent::TurnInput`) and gives it to every tool call
/// ([`ToolContext`]).
#[derive(Clone, Copy)]
pub(crate) struct TurnServices<'a> {
    /// The message this turn answers (its source decides where agent messages go).
    pub(crate) message: &'a RoutedMessage,
    /// The conversations, for tools that read them.
    pub(crate) store: &'a Mutex<Option<ConversationStore>>,
    /// Sends a notification about this message to the hub: its text (Markdown, shortened for
    /// the hub by the processor) and priority.
    pub(crate) notify_hub: &'a dyn Fn(&str, Priority),
    /// Asks the user to approve an action and waits for the answer (or its expiry).
    pub(crate) approve: &'a dyn Fn(ApprovalAsk) -> LocalBoxFuture<'a, ApprovalOutcome>,
    /// The user's integrations (MCP servers) as they were when the turn started.
    pub(crate) integrations: &'a [McpServer],
    /// The vault's search index (`search_files` and `list_files` answer from it once built).
    pub(crate) index: &'a super::indexer::SearchIndex,
    /// The vault's meaning index (`search_files`' meaning and hybrid modes).
    pub(crate) meaning: &'a super::meaning::Meaning,
    /// Starts building the index in the background, if it is not started yet.
    pub(crate) start_index: &'a dyn Fn(),
    /// The edit in place being answered (its answer, streamed, is its proposal).
    pub(crate) edits: &'a super::edit_stream::EditStreams,
}

/// What a tool may use while it runs.
pub struct ToolContext<'a, H: Host> {
    pub host: &'a H,
    pub settings: &'a Settings,
    /// The turn's message, conversations, hub, approvals, integrations and search index.
    pub(crate) services: TurnServices<'a>,
    /// The tool call being run (empty between calls): the chat view draws its cards there.
    pub tool_use_id: String,
}

impl<'a, H: Host> ToolContext<'a, H> {
    /// The context of a turn's tools, between calls.
    pub(crate) fn new(host: &'a H, settings: &'a Settings, services: TurnServices<'a>) -> Self {
        ToolContext { host, settings, services, tool_use_id: String::new() }
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
