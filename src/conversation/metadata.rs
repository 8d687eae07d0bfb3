//! The conversation index: which conversation is current and the metadata of the conversations
//! start-up needs — every one not archived, and the few archived most recently. Older archived
//! conversations live in the append-only archive (`archive.jsonl`), read only when someone lists
//! or opens them, so the index stays small however long the history: start-up reads little, and
//! a metadata change rewrites little.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::model::{Conversation, ConversationStatus};

/// Where the index lives.
pub const INDEX_PATH: &str = "conversations/index.json";
/// Where archived conversations go when they leave the index: one JSON line each, appended; a
/// later line for the same id supersedes an earlier one.
pub(crate) const ARCHIVE_PATH: &str = "conversations/archive.jsonl";
/// Where index entries this version cannot read are set aside, one JSON line each (not named
/// `.jsonl`: it holds no history)
/// (`{"from", "reason", "at", "raw"}`), so one bad field never costs the other conversations.
pub const QUARANTINE_PATH: &str = "conversations/index.quarantine";
/// Archived conversations kept in the index (the system prompt recalls the last two).
pub(crate) const RECENT_ARCHIVED: usize = 5;

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
        crate::lean::sort_by(&mut ended, |a, b| b.ended_at.cmp(&a.ended_at));
        ended.truncate(n);
        ended
    }

    /// Takes out the archived conversations beyond the most recent `keep`, for the archive.
    pub fn evict_archived(&mut self, keep: usize) -> Vec<Conversation> {
        let mut archived: Vec<(Option<String>, String)> = self
            .conversations
            .iter()
            .filter(|c| c.status == ConversationStatus::Archived && Some(&c.id) != self.current.as_ref())
            .map(|c| (c.ended_at.clone(), c.id.clone()))
            .collect();
        if archived.len() <= keep {
            return Vec::new();
        }
        crate::lean::sort_by(&mut archived, |a, b| a.cmp(b));
        let leaving: Vec<String> = archived[..archived.len() - keep].iter().map(|(_, id)| id.clone()).collect();
        let (out, kept): (Vec<Conversation>, Vec<Conversation>) =
            std::mem::take(&mut self.conversations).into_iter().partition(|c| leaving.contains(&c.id));
        self.conversations = kept;
        out
    }
}

/// A part of the index this version could not read, kept with its raw JSON.
#[derive(Debug, Clone, PartialEq)]
pub struct Quarantined {
    /// The entry as it was (for `current`, `{"current": …}`).
    pub raw: Value,
    /// Why it was set aside.
    pub reason: String,
}

/// Reads the index entry by entry: an entry with a field of the wrong type (a newer version, a
/// sync conflict, a hand edit) is set aside with its reason, the others are kept. `Err` when the
/// text is not a JSON object at all (then there is nothing to read entry by entry).
pub fn parse_index(text: &str) -> Result<(ConversationIndex, Vec<Quarantined>), String> {
    let value: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let Value::Object(mut fields) = value else { return Err("the index is not a JSON object".to_owned()) };
    let mut quarantined = Vec::new();
    let mut current = match fields.remove("current") {
        None | Some(Value::Null) => None,
        Some(Value::String(id)) => Some(id),
        Some(other) => {
            quarantined.push(Quarantined {
                raw: serde_json::json!({ "current": other }),
                reason: "\"current\" is not a conversation id".to_owned(),
            });
            None
        }
    };
    let items = match fields.remove("conversations") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items,
        Some(other) => {
            quarantined.push(Quarantined {
                raw: serde_json::json!({ "conversations": other }),
                reason: "\"conversations\" is not a list".to_owned(),
            });
            Vec::new()
        }
    };
    let mut conversations = Vec::with_capacity(items.len());
    for item in items {
        match crate::lean::from_value::<Conversation>(&item) {
            Ok(conversation) => conversations.push(conversation),
            Err(e) => {
                quarantined.push(Quarantined { raw: item, reason: format!("unreadable conversation entry: {e}") })
            }
        }
    }
    if current
        .as_ref()
        .is_some_and(|id| quarantined.iter().any(|q| q.raw.get("id").and_then(Value::as_str) == Some(id)))
    {
        // Its entry was set aside: its history stays on disk, and the next message opens a new one.
        current = None;
    }
    Ok((ConversationIndex { current, conversations }, quarantined))
}

/// Reads the archive: the latest record of each conversation, in order of first appearance. A
/// torn or unreadable line is skipped.
pub(crate) fn parse_archive(text: &str) -> Vec<Conversation> {
    let mut out: Vec<Conversation> = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(c) = serde_json::from_str::<Conversation>(line) else { continue };
        match out.iter_mut().find(|o| o.id == c.id) {
            Some(slot) => *slot = c,
            None => out.push(c),
        }
    }
    out
}

/// The folder of the index, the archive and the history files.
pub(crate) const CONVERSATIONS_DIR: &str = "conversations";

/// Path of a conversation's history file.
pub fn log_path(conversation_id: &str) -> String {
    format!("{CONVERSATIONS_DIR}/{conversation_id}.jsonl")
}
