//! The conversation index: every conversation's metadata and which one is current. Small,
//! rewritten atomically only when metadata changes — never once per message.

use serde::{Deserialize, Serialize};

use super::model::Conversation;

/// Where the index lives.
pub const INDEX_PATH: &str = "conversations/index.json";

/// The index file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct ConversationIndex {
    /// The conversation new messages go to, if one is open.
    #[serde(default)]
    pub current: Option<String>,
    /// Oldest first.
    #[serde(default)]
    pub conversations: Vec<Conversation>,
}

impl ConversationIndex {
    /// A conversation by id.
    pub fn get(&self, id: &str) -> Option<&Conversation> {
        self.conversations.iter().find(|c| c.id == id)
    }

    /// A conversation by id, to change.
    pub fn get_mut(&mut self, id: &str) -> Option<&mut Conversation> {
        self.conversations.iter_mut().find(|c| c.id == id)
    }

    /// Ended conversations, most recently ended first.
    pub fn recently_ended(&self, n: usize) -> Vec<&Conversation> {
        let mut ended: Vec<&Conversation> = self.conversations.iter().filter(|c| c.ended_at.is_some()).collect();
        ended.sort_by(|a, b| b.ended_at.cmp(&a.ended_at));
        ended.truncate(n);
        ended
    }
}

/// Path of a conversation's history file.
pub fn log_path(conversation_id: &str) -> String {
    format!("conversations/{conversation_id}.jsonl")
}
