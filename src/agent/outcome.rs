//! What a turn starts from ([`TurnInput`]) and what it produced ([`TurnOutcome`]: the messages
//! it added, the tools used, a question asked, the conversation's changes, its usage).

use serde_json::Value;

use crate::conversation::context::push_merged;
use crate::conversation::{QuestionType, Schedule};
use crate::llm::request::CacheTtl;
use crate::llm::{ApiMessage, MessagesJson, Role, SystemPart, Usage};
use crate::schedule::StatePatch;
use crate::tools::{ToolEffect, ToolRegistry, TurnServices};

/// What a turn starts from.
pub(crate) struct TurnInput<'a> {
    pub system: &'a [SystemPart],
    /// The earlier conversation, serialised.
    pub history: &'a MessagesJson,
    /// The message context that opens the user's message (`prompt::message_context`); a resumed
    /// turn uses the one its journal recorded instead.
    pub context: String,
    /// The prompt-cache lifetime its requests ask for.
    pub ttl: CacheTtl,
    pub tools: &'a ToolRegistry,
    /// Attachments' copies already read and checked.
    pub copies: &'a crate::attachment::Copies,
    /// What its tools are lent: the message it answers, the conversations, the hub, approvals,
    /// integrations and the search index.
    pub services: TurnServices<'a>,
}

/// What a finished turn produced.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct TurnOutcome {
    /// The messages the turn added after the user's: assistant answers and tool results.
    pub messages: Vec<ApiMessage>,
    pub tools_used: Vec<String>,
    /// The question the agent asked and waits on.
    pub question: Option<AskedQuestion>,
    /// The question already went to the hub.
    pub question_sent_to_hub: bool,
    pub end_conversation: Option<String>,
    /// The schedule the agent created (the last one wins).
    pub schedule: Option<Schedule>,
    /// State changes: a schedule's initial state and `state_update` calls, merged in order.
    pub state: StatePatch,
    /// The user's message did not answer the pending question, which stays open.
    pub keep_question: bool,
    /// Something the user must know about how the turn ended (a limit hit, a refusal).
    pub notice: Option<String>,
    /// Model calls answered so far (merged messages would undercount them).
    pub(super) model_calls: u32,
    /// The message context the turn's requests sent, recorded with the user's message.
    pub context: String,
    /// Whether the context is in the journal already.
    pub(super) context_journaled: bool,
    /// What the turn's model calls consumed, summed (the context filled is the newest call's).
    pub usage: Usage,
    /// An ACP agent's turn: its session, stored (`acp::session::stored_session`) as the
    /// conversation's provider session id; its usage is the agent's own figures, not priced.
    pub agent_session: Option<String>,
    /// The session's cumulative cost as the ledger has counted it, kept with the conversation.
    pub agent_session_cost: Option<f64>,
}

/// A question asked in a turn.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AskedQuestion {
    pub question_type: QuestionType,
    pub prompt: String,
    pub options: Vec<String>,
}

impl TurnOutcome {
    /// The agent asked a question and waits for the reply.
    pub(crate) fn waiting(&self) -> bool {
        self.question.is_some()
    }

    /// The assistant's text, as streamed to the user.
    pub(crate) fn text(&self) -> String {
        let parts: Vec<String> = self
            .messages
            .iter()
            .filter(|m| m.role == Role::Assistant)
            .map(ApiMessage::text)
            .filter(|t| !t.trim().is_empty())
            .collect();
        parts.join("\n\n")
    }

    pub(crate) fn push(&mut self, message: ApiMessage) {
        push_merged(&mut self.messages, message);
    }

    /// Applies a tool's effect to the turn.
    pub(crate) fn apply(&mut self, effect: &ToolEffect) {
        match effect {
            ToolEffect::None => {}
            ToolEffect::Question { question_type, prompt, options, sent_to_hub } => {
                self.question = Some(AskedQuestion {
                    question_type: *question_type,
                    prompt: prompt.clone(),
                    options: options.clone(),
                });
                self.question_sent_to_hub |= sent_to_hub;
            }
            ToolEffect::EndConversation { reason } => self.end_conversation = Some(reason.clone()),
            ToolEffect::Schedule { schedule, state } => {
                self.schedule = Some((**schedule).clone());
                self.state.merge(state);
            }
            ToolEffect::StateUpdate { patch } => self.state.merge(patch),
            ToolEffect::KeepQuestion => self.keep_question = true,
        }
    }
}

/// The tool calls of the last message of the turn so far.
pub(super) fn pending_calls(outcome: &TurnOutcome) -> Vec<(String, String, Value)> {
    outcome
        .messages
        .last()
        .map(|m| m.tool_uses().map(|(id, name, input)| (id.to_owned(), name.to_owned(), input.clone())).collect())
        .unwrap_or_default()
}
