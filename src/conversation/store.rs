//! The conversation store: the index plus the active conversation's turns in memory. Recording
//! a turn is one append to the active conversation's JSONL file — O(that turn), whatever the
//! history size.

use std::collections::HashMap;

use thiserror::Error;

use super::context::ContextCache;
use super::index::{log_path, ConversationIndex, ConversationMeta, INDEX_PATH};
use super::line::{HistoryLine, Turn};
use super::log::parse_log;
use crate::host::{Host, HostError, LogLevel};
use crate::ids::new_id;
use crate::llm::MessagesJson;
use crate::time::format_iso;

/// Why the store could not do its job.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum StoreError {
    #[error(transparent)]
    Host(#[from] HostError),
    #[error("could not encode history: {0}")]
    Encode(String),
}

/// What a recorded turn answered, for a message delivered again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedTurn {
    pub response: String,
    pub tools_used: Vec<String>,
    pub waiting: bool,
}

impl From<&Turn> for RecordedTurn {
    fn from(turn: &Turn) -> Self {
        let end = turn.end();
        RecordedTurn { response: turn.response_text(), tools_used: end.tools_used, waiting: end.waiting }
    }
}

/// The active conversation, loaded: its messages ready to send, and what each turn answered.
#[derive(Debug)]
struct ActiveLog {
    id: String,
    context: ContextCache,
    recorded: HashMap<String, RecordedTurn>,
}

impl ActiveLog {
    fn new(id: String) -> Self {
        ActiveLog { id, context: ContextCache::new(), recorded: HashMap::new() }
    }

    fn push(&mut self, turn: &Turn) {
        self.context.push_turn(turn);
        self.recorded.insert(turn.message_id().to_owned(), RecordedTurn::from(turn));
    }
}

/// Conversation history on disk and the active conversation in memory.
#[derive(Debug, Default)]
pub struct ConversationStore {
    index: ConversationIndex,
    active: Option<ActiveLog>,
}

/// Reads a conversation's turns, cutting a torn or unfinished tail off the file so the next
/// append starts on a clean line.
async fn load_turns<H: Host>(host: &H, id: &str, repair: bool) -> Result<Vec<Turn>, StoreError> {
    let path = log_path(id);
    let text = host.read_file(&path).await?.unwrap_or_default();
    let log = parse_log(&text);
    for warning in &log.warnings {
        host.log(LogLevel::Warn, &format!("{path}: {warning}"));
    }
    if repair && log.valid_len < text.len() {
        host.write_file_atomic(&path, &text[..log.valid_len]).await?;
        host.log(LogLevel::Info, &format!("{path}: cut back to its last complete turn"));
    }
    Ok(log.turns)
}

impl ConversationStore {
    /// Reads the index and the active conversation only.
    pub async fn open<H: Host>(host: &H) -> Result<Self, StoreError> {
        let index = match host.read_file(INDEX_PATH).await? {
            None => ConversationIndex::default(),
            Some(text) => serde_json::from_str(&text).unwrap_or_else(|e| {
                host.log(LogLevel::Warn, &format!("{INDEX_PATH} is unreadable ({e}); starting a new conversation"));
                ConversationIndex::default()
            }),
        };
        let mut store = ConversationStore { index, active: None };
        if let Some(id) = store.index.active.clone() {
            let mut active = ActiveLog::new(id);
            let turns = load_turns(host, &active.id, true).await?;
            for turn in &turns {
                active.push(turn);
            }
            let ended_by = turns.last().and_then(|t| t.end().ends_conversation);
            store.active = Some(active);
            // The turn that asked to end the conversation was recorded but the index update was
            // lost to a crash: finish it now.
            if let Some(reason) = ended_by {
                store.end_active(host, &reason).await?;
            }
        }
        Ok(store)
    }

    /// The open conversation's id.
    pub fn active_id(&self) -> Option<&str> {
        self.active.as_ref().map(|a| a.id.as_str())
    }

    /// The open conversation for the model: its newest whole turns within `budget` tokens.
    pub fn history(&self, budget: usize) -> MessagesJson {
        self.active.as_ref().map(|a| a.context.history(budget)).unwrap_or_default()
    }

    /// The index (for listings).
    pub fn index(&self) -> &ConversationIndex {
        &self.index
    }

    /// The recorded turn of a message, if it is recorded in the active conversation or in the
    /// one that ended last (where a crash between recording and cleanup can leave it).
    pub async fn find_recorded<H: Host>(&self, host: &H, message_id: &str) -> Result<Option<RecordedTurn>, StoreError> {
        if let Some(recorded) = self.active.as_ref().and_then(|a| a.recorded.get(message_id)) {
            return Ok(Some(recorded.clone()));
        }
        let Some(last) = self.index.last_ended() else { return Ok(None) };
        let turns = load_turns(host, &last.id, false).await?;
        Ok(turns.iter().find(|t| t.message_id() == message_id).map(RecordedTurn::from))
    }

    /// Appends a turn to the active conversation (opening one if none is), in one write.
    pub async fn append_turn<H: Host>(&mut self, host: &H, lines: Vec<HistoryLine>) -> Result<(), StoreError> {
        if lines.last().and_then(|l| l.turn.as_ref()).is_none() {
            return Err(StoreError::Encode("a turn must end with its closing line".to_owned()));
        }
        let id = match self.active_id() {
            Some(id) => id.to_owned(),
            None => self.open_conversation(host).await?,
        };
        let mut text = String::new();
        for line in &lines {
            text.push_str(&serde_json::to_string(line).map_err(|e| StoreError::Encode(e.to_string()))?);
            text.push('\n');
        }
        host.append_file(&log_path(&id), &text).await?;
        if let Some(active) = &mut self.active {
            active.push(&Turn { lines });
        }
        Ok(())
    }

    async fn open_conversation<H: Host>(&mut self, host: &H) -> Result<String, StoreError> {
        let mut id = new_id(host, "c-");
        while self.index.conversations.iter().any(|c| c.id == id) {
            id = new_id(host, "c-");
        }
        let mut index = self.index.clone();
        index.active = Some(id.clone());
        index.conversations.push(ConversationMeta {
            id: id.clone(),
            created_at: format_iso(host.now_ms()),
            ended_at: None,
            end_reason: None,
        });
        self.write_index(host, index).await?;
        self.active = Some(ActiveLog::new(id.clone()));
        Ok(id)
    }

    /// Closes the active conversation; the next turn opens a new one.
    pub async fn end_active<H: Host>(&mut self, host: &H, reason: &str) -> Result<(), StoreError> {
        let Some(id) = self.active_id().map(str::to_owned) else { return Ok(()) };
        let mut index = self.index.clone();
        index.active = None;
        if let Some(meta) = index.get_mut(&id) {
            meta.ended_at = Some(format_iso(host.now_ms()));
            meta.end_reason = Some(reason.to_owned());
        }
        self.write_index(host, index).await?;
        self.active = None;
        Ok(())
    }

    async fn write_index<H: Host>(&mut self, host: &H, index: ConversationIndex) -> Result<(), StoreError> {
        let text = serde_json::to_string(&index).map_err(|e| StoreError::Encode(e.to_string()))?;
        host.write_file_atomic(INDEX_PATH, &text).await?;
        self.index = index;
        Ok(())
    }
}
