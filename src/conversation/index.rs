//! The conversation index: which conversation is active and when each began and ended. Small,
//! rewritten atomically only when one of those changes — never once per message.

use serde::{Deserialize, Serialize};

/// Where the index lives.
pub const INDEX_PATH: &str = "conversations/index.json";

/// What the index knows of one conversation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConversationMeta {
    pub id: String,
    pub created_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_reason: Option<String>,
}

/// The index file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct ConversationIndex {
    /// The conversation new messages go to, if one is open.
    #[serde(default)]
    pub active: Option<String>,
    #[serde(default)]
    pub conversations: Vec<ConversationMeta>,
}

impl ConversationIndex {
    /// The metadata of a conversation.
    pub fn get_mut(&mut self, id: &str) -> Option<&mut ConversationMeta> {
        self.conversations.iter_mut().find(|c| c.id == id)
    }

    /// The most recently ended conversation.
    pub fn last_ended(&self) -> Option<&ConversationMeta> {
        self.conversations.iter().rev().find(|c| c.ended_at.is_some())
    }
}

/// Path of a conversation's history file.
pub fn log_path(conversation_id: &str) -> String {
    format!("conversations/{conversation_id}.jsonl")
}
