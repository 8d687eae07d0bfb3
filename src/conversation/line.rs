//! One line of a conversation's JSONL history, and the marker that closes a turn.

use serde::{Deserialize, Serialize};

use crate::llm::{ApiMessage, ContentBlock, Role, Usage};
use crate::message::MessageSource;

/// Who wrote a line. `system` lines are the plugin's own (hidden markers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LineRole {
    User,
    Assistant,
    System,
}

/// Written on the last line of a turn. A turn counts as recorded only once this line is on
/// disk, so a crash mid-append never leaves half a turn that looks whole.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct TurnEnd {
    #[serde(default)]
    pub tools_used: Vec<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub waiting: bool,
    /// The turn ended its conversation (`end_conversation`), with the reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ends_conversation: Option<String>,
    /// What the turn's model calls consumed, as the server reported it.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::llm::stored_usage::read_turn_usage"
    )]
    pub usage: Option<Usage>,
}

/// A history line. Read from the file's form or this whole one (`stored_line.rs`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", from = "super::stored_line::ReadLine")]
pub struct HistoryLine {
    /// Unique line id (`<message id>#<n>`).
    pub id: String,
    /// The message whose turn this line belongs to.
    pub message_id: String,
    pub role: LineRole,
    pub content: Vec<ContentBlock>,
    pub source: MessageSource,
    /// Hidden lines are kept but never sent to the model.
    pub visible: bool,
    /// ISO 8601 time written.
    pub ts: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<TurnEnd>,
    /// The message context sent ahead of the user's text (time, source, conversation state),
    /// kept apart from what the user wrote and sent again exactly as it was, so the conversation
    /// stays a prompt-cache prefix.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
}

impl HistoryLine {
    /// The line as a model message, `None` for hidden and system lines.
    pub fn api_message(&self) -> Option<ApiMessage> {
        let role = match (self.visible, self.role) {
            (true, LineRole::User) => Role::User,
            (true, LineRole::Assistant) => Role::Assistant,
            _ => return None,
        };
        let mut content = Vec::with_capacity(self.content.len() + 1);
        if let (Role::User, Some(context)) = (role, &self.context) {
            content.push(ContentBlock::text(context.clone()));
        }
        content.extend(self.content.iter().cloned());
        Some(ApiMessage { role, content })
    }
}

/// A recorded turn: the lines of one message, the last carrying [`TurnEnd`].
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    pub lines: Vec<HistoryLine>,
}

impl Turn {
    /// The message the turn answers.
    pub fn message_id(&self) -> &str {
        self.lines.first().map(|l| l.message_id.as_str()).unwrap_or("")
    }

    /// The closing marker.
    pub fn end(&self) -> TurnEnd {
        self.lines.last().and_then(|l| l.turn.clone()).unwrap_or_default()
    }

    /// The assistant's text of the turn, as the user saw it.
    pub fn response_text(&self) -> String {
        let parts: Vec<String> = self
            .lines
            .iter()
            .filter(|l| l.role == LineRole::Assistant)
            .map(|l| {
                l.content
                    .iter()
                    .filter_map(|b| match b {
                        ContentBlock::Text { text } => Some(text.as_str()),
                        _ => None,
                    })
                    .collect::<String>()
            })
            .filter(|t| !t.trim().is_empty())
            .collect();
        parts.join("\n\n")
    }
}
