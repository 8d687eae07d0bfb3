//! Events the core emits to the UI through `Host::emit`: progress of a message through the
//! pipeline, streamed text, tool activity, agent messages and results. The chat view renders
//! them; the headless host prints them; tests assert on them.

use serde::Serialize;
use serde_json::Value;

use crate::conversation::Conversation;
use crate::message::{ProcessResult, RoutedMessage};

/// A point in the pipeline a message has passed. Lets the UI show progress and lets the crash
/// tests stop the process at an exact place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// The message is durable in the inbox.
    InboxWritten,
    /// The hub has been sent its ack.
    AckSent,
    /// A model request is about to go out.
    ModelRequest,
    /// The turn is appended to the conversation history.
    HistoryRecorded,
    /// The inbox file is gone: the message is finished.
    InboxCleaned,
}

/// How loudly the UI should show a notice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NoticeLevel {
    Info,
    Warning,
    Error,
}

/// Everything the UI hears from the core.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case", rename_all_fields = "camelCase")]
pub enum Event {
    /// A message is safe in the inbox and queued (seed 003 `onMessageReceived`).
    ///
    /// Every event about a message carries `conversation_id` when the message names the
    /// conversation its turn goes to (a scheduled run's: `RoutedMessage::named_conversation`);
    /// absent, the turn goes to the conversation current when it runs. Views compare it with the
    /// conversation they show.
    MessageReceived {
        message: RoutedMessage,
        #[serde(skip_serializing_if = "Option::is_none")]
        conversation_id: Option<String>,
    },
    /// A message passed a pipeline stage.
    Stage {
        message_id: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        conversation_id: Option<String>,
        stage: Stage,
    },
    /// Streamed text of the current model call.
    TextDelta {
        message_id: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        conversation_id: Option<String>,
        text: String,
    },
    /// An edit in place's proposal as the model writes it (`edit_in_place::proposal_hunks`): the
    /// hunks, in the note's lines as at the ask, one per run of changed lines. The final one
    /// comes as the approval request of `toolUseId` "edit-in-place".
    EditProposal { message_id: String, path: String, hunks: Vec<crate::vault::diff::Hunk> },
    /// The current model call failed and will be retried after `delay_ms`; text streamed by the
    /// failed call is void. `delay_seconds` is the same wait rounded up, as views print it.
    Retrying {
        message_id: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        conversation_id: Option<String>,
        attempt: u32,
        delay_ms: u64,
        delay_seconds: u64,
        error_code: String,
        error: String,
    },
    /// The model server has taken the request but not begun to answer for a while: `text` says
    /// what the call waits for (the chat shows it until the answer begins; Stop works).
    Waiting {
        message_id: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        conversation_id: Option<String>,
        text: String,
    },
    /// A tool call is about to run.
    ToolStarted {
        message_id: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        conversation_id: Option<String>,
        tool_use_id: String,
        name: String,
        /// The call in the user's words, for its chip ("Delete Notes/Old.md"): `tools::words`.
        words: String,
        input: Value,
    },
    /// The messages accepted and not answered yet changed (one arrived, was answered, or was
    /// stopped): the chat view is busy while one of its conversation's is listed.
    InFlight { messages: Vec<crate::message::InFlightMessage> },
    /// A tool call finished; `output` is shortened for display.
    ToolFinished {
        message_id: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        conversation_id: Option<String>,
        tool_use_id: String,
        name: String,
        is_error: bool,
        output: String,
    },
    /// The agent's plan for the turn, whole each time it changes (an ACP agent's `plan`): the
    /// chat shows it as a checklist.
    Plan {
        message_id: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        conversation_id: Option<String>,
        entries: Vec<crate::acp::PlanEntry>,
    },
    /// The agent spoke mid-turn (`send_message`), or asked a question (`send_message` with
    /// `is_question`, `needs_input`) — seed 003 `onAgentMessage`.
    AgentMessage {
        message_id: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        conversation_id: Option<String>,
        content: String,
        is_question: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        question_type: Option<crate::conversation::QuestionType>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        options: Vec<String>,
    },
    /// A message finished (seed 003 `onResponse`).
    Response {
        result: ProcessResult,
        #[serde(skip_serializing_if = "Option::is_none")]
        conversation_id: Option<String>,
    },
    /// Something the user must be told that is not a message result (a message moved to
    /// `failed/`, a corrupt file skipped).
    Notice { level: NoticeLevel, text: String },
    /// A conversation's metadata changed (opened, ended, titled, status, question).
    ConversationUpdated { conversation: Box<Conversation> },
    /// The search index's state (`building`, `ready`, `off`): notes done of total, and its size
    /// in memory (the chat view and the status bar show one line while it builds).
    SearchIndex { state: String, done: usize, total: usize, bytes: u64 },
    /// The meaning index's state (`off`, `waiting`, `building`, `ready`, `full`, `paused`):
    /// notes done of total while building, notes and passages held, its size in memory, and
    /// what to do when it stopped (the status bar, the chat view, the headless command).
    MeaningIndex {
        state: String,
        done: usize,
        total: usize,
        notes: usize,
        passages: usize,
        bytes: u64,
        detail: Option<String>,
    },
    /// The hub connection's status changed (the status bar).
    HubStatus { status: crate::hub::HubStatus, detail: Option<String> },
    /// A tool waits for the user's approval (the chat view shows a card, or a notice).
    ApprovalRequested { request: Box<crate::approval::ApprovalRequest> },
    /// An approval request was approved, rejected or expired.
    ApprovalResolved { request: Box<crate::approval::ApprovalRequest> },
    /// A note tool changed the vault (approved, auto-approved, or a new note): the diff and the
    /// hunks applied, so the chat view shows it with Undo.
    ChangeApplied {
        message_id: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        conversation_id: Option<String>,
        /// The tool call that made it (empty outside one).
        tool_use_id: String,
        change: Box<crate::vault::diff::ProposedChange>,
        applied_hunks: Vec<usize>,
    },
    /// A turn's changes were undone, note by note.
    TurnUndone { report: Box<crate::vault::diff::UndoReport> },
    /// A scheduled run finished (or failed): the chat view tells the user.
    ScheduledRun { conversation_id: String, message_id: String, ok: bool, text: String },
    /// Whether the host should keep the `smarthole` tools' listener open changed other than by
    /// the settings (a stored schedule naming an ACP agent created, changed or removed): the host
    /// reconfigures its listeners, asking `agentToolsListener()` again as after a settings change.
    AgentToolsWanted { wanted: bool },
    /// A retrospection finished (seed 003 `onRetrospection`).
    Retrospection { conversation_id: String, conversation_title: String, content: String },
}

impl Event {
    /// Applies `mask` to every text in the event that came from outside the core — a server's
    /// answer or error, a tool's output, a note's content — so a secret they echo is hidden
    /// (`secrets::Masking`). Ids, names and numbers are the core's own and left alone.
    pub(crate) fn mask_texts(&mut self, mask: &dyn Fn(&mut String)) {
        match self {
            Event::MessageReceived { message, .. } => mask(&mut message.text),
            Event::TextDelta { text, .. }
            | Event::Waiting { text, .. }
            | Event::Notice { text, .. }
            | Event::ScheduledRun { text, .. } => mask(text),
            Event::Retrying { error, .. } => mask(error),
            Event::ToolStarted { input, words, .. } => {
                mask_value(input, mask);
                mask(words);
            }
            Event::ToolFinished { output, .. } => mask(output),
            Event::AgentMessage { content, .. } | Event::Retrospection { content, .. } => mask(content),
            Event::Response { result, .. } => result.mask_texts(mask),
            Event::HubStatus { detail, .. } => detail.iter_mut().for_each(mask),
            Event::Plan { entries, .. } => entries.iter_mut().for_each(|e| mask(&mut e.content)),
            Event::EditProposal { hunks, .. } => {
                for line in hunks.iter_mut().flat_map(|h| h.lines.iter_mut()) {
                    mask(&mut line.text);
                    line.words.iter_mut().for_each(|w| mask(&mut w.text));
                }
            }
            Event::Stage { .. }
            | Event::InFlight { .. }
            | Event::ConversationUpdated { .. }
            | Event::SearchIndex { .. }
            | Event::MeaningIndex { .. }
            | Event::ApprovalRequested { .. }
            | Event::ApprovalResolved { .. }
            | Event::ChangeApplied { .. }
            | Event::TurnUndone { .. }
            | Event::AgentToolsWanted { .. } => {}
        }
    }

    /// A `retrying` event; the seconds shown to the user are rounded here, once (up, so a wait
    /// under a second never reads "0 s").
    pub fn retrying(message: &RoutedMessage, attempt: u32, delay_ms: u64, error_code: &str, error: String) -> Self {
        Event::Retrying {
            message_id: message.id.clone(),
            conversation_id: message.named_conversation(),
            attempt,
            delay_ms,
            delay_seconds: delay_ms.div_ceil(1000),
            error_code: error_code.to_owned(),
            error,
        }
    }

    /// Shorthand for a stage event.
    pub fn stage(message: &RoutedMessage, stage: Stage) -> Self {
        Event::Stage { message_id: message.id.clone(), conversation_id: message.named_conversation(), stage }
    }
}

/// Applies `mask` to every string inside a JSON value.
fn mask_value(value: &mut Value, mask: &dyn Fn(&mut String)) {
    match value {
        Value::String(text) => mask(text),
        Value::Array(items) => items.iter_mut().for_each(|v| mask_value(v, mask)),
        Value::Object(map) => map.values_mut().for_each(|v| mask_value(v, mask)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::MessageSource;
    use serde_json::json;

    fn message(source: MessageSource, metadata: Value) -> RoutedMessage {
        RoutedMessage {
            id: "m".into(),
            text: "hi".into(),
            timestamp: "2026-02-05T10:00:00.000Z".into(),
            source,
            metadata: metadata.as_object().cloned(),
            attachments: Vec::new(),
            edit: None,
        }
    }

    fn typed() -> RoutedMessage {
        message(MessageSource::Direct, Value::Null)
    }

    #[test]
    fn events_serialise_as_tagged_camel_case() {
        let e = Event::AgentMessage {
            message_id: "m".into(),
            conversation_id: None,
            content: "hi".into(),
            is_question: true,
            question_type: None,
            options: vec![],
        };
        assert_eq!(
            serde_json::to_value(e).unwrap(),
            json!({"type": "agent_message", "messageId": "m", "content": "hi", "isQuestion": true})
        );
        assert_eq!(
            serde_json::to_value(Event::stage(&typed(), Stage::AckSent)).unwrap(),
            json!({"type": "stage", "messageId": "m", "stage": "ack_sent"})
        );
    }

    #[test]
    fn retry_seconds_are_rounded_up_once() {
        let seconds = |ms| match Event::retrying(&typed(), 1, ms, "overloaded", "busy".into()) {
            Event::Retrying { delay_seconds, .. } => delay_seconds,
            _ => unreachable!(),
        };
        assert_eq!([seconds(0), seconds(400), seconds(1000), seconds(1500), seconds(60_000)], [0, 1, 1, 2, 60]);
        assert_eq!(
            serde_json::to_value(Event::retrying(&typed(), 2, 2000, "overloaded", "busy".into())).unwrap(),
            json!({"type": "retrying", "messageId": "m", "attempt": 2, "delayMs": 2000, "delaySeconds": 2,
                   "errorCode": "overloaded", "error": "busy"})
        );
    }

    #[test]
    fn events_about_a_scheduled_run_name_its_conversation_and_no_other_does() {
        let run = message(MessageSource::Worker, json!({"conversationId": "conv-7"}));
        assert_eq!(
            serde_json::to_value(Event::stage(&run, Stage::ModelRequest)).unwrap(),
            json!({"type": "stage", "messageId": "m", "conversationId": "conv-7", "stage": "model_request"})
        );
        assert_eq!(run.named_conversation().as_deref(), Some("conv-7"));
        // Only the worker's own messages name a conversation: metadata from elsewhere does not.
        let claimed = message(MessageSource::Websocket, json!({"conversationId": "conv-7"}));
        assert_eq!(claimed.named_conversation(), None);
        assert_eq!(message(MessageSource::Worker, json!({})).named_conversation(), None);
    }
}
