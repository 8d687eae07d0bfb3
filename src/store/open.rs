//! [`ConversationStore`]: opened from the index and the current conversation only (a damaged
//! index recovered from the history files), and what it holds — the live conversations, the
//! archive read once when needed, the notices of damaged files met.

use super::current::{CurrentLog, CURRENT_TAIL_TURNS};
use super::error::StoreError;
use super::files::{load_log, load_turns, read_index};
use crate::bounded::{read_bounded, set_aside, too_large, Bounded, MAX_LOG_BYTES};
use crate::conversation::line::HistoryLine;
use crate::conversation::metadata::{
    log_path, parse_archive, ConversationIndex, ARCHIVE_PATH, CONVERSATIONS_DIR, INDEX_PATH,
};
use crate::conversation::model::{Conversation, ConversationStatus};
use crate::host::Host;
use crate::host_types::{LogLevel, Millis};
use crate::time::parse_iso;

/// Conversation history on disk and the current conversation in memory.
#[derive(Debug, Default)]
pub(crate) struct ConversationStore {
    pub(super) index: ConversationIndex,
    pub(super) current: Option<CurrentLog>,
    /// The archive, once something needed it.
    pub(super) archive: Option<Vec<Conversation>>,
    /// What the user should hear about damaged files met so far (the processor shows them).
    pub(super) notices: Vec<String>,
}

impl ConversationStore {
    /// Reads the index and the current conversation only.
    pub(crate) async fn open<H: Host>(host: &H) -> Result<Self, StoreError> {
        let mut notices = Vec::new();
        let index = read_index(host, &mut notices).await?;
        let index_damaged = !notices.is_empty();
        let mut store = ConversationStore { index, current: None, archive: None, notices };
        if index_damaged {
            store.recover_unlisted(host).await?;
        }
        if let Some(id) = store.index.current.clone() {
            let mut current = CurrentLog::new(id);
            let (log, recent) = load_log(host, &current.id, Some(&mut store.notices), Some(CURRENT_TAIL_TURNS)).await?;
            let turns = log.turns;
            current.recent = recent;
            current.context_base = log.context_base;
            for turn in &turns {
                current.push(turn);
            }
            if current.last_activity_ms.is_none() {
                current.last_activity_ms = store.index.get(&current.id).and_then(|c| parse_iso(&c.created_at));
            }
            let ended_by = turns.last().and_then(|t| t.end().ends_conversation);
            store.current = Some(current);
            // The turn that asked to end the conversation was recorded, but the index update was
            // lost to a crash: finish it now.
            if let Some(reason) = ended_by {
                store.end_current(host, &reason).await?;
            }
        }
        Ok(store)
    }

    /// After a damaged index (set aside whole, or entries quarantined): every history file that
    /// neither the index nor the archive lists is listed again, as an archived "Recovered
    /// conversation" dated by its own lines, so no conversation drops out of the list.
    pub(super) async fn recover_unlisted<H: Host>(&mut self, host: &H) -> Result<(), StoreError> {
        let mut recovered = Vec::new();
        for name in host.list_dir(CONVERSATIONS_DIR).await? {
            let Some(id) = name.strip_suffix(".jsonl") else { continue };
            if log_path(id) == ARCHIVE_PATH || self.index.get(id).is_some() {
                continue;
            }
            if self.archive(host).await?.iter().any(|c| c.id == id) {
                continue;
            }
            let lines: Vec<HistoryLine> = load_turns(host, id).await?.into_iter().flat_map(|t| t.lines).collect();
            let (Some(first), Some(last)) = (lines.first(), lines.last()) else { continue };
            let mut conversation = Conversation::new(id.to_owned(), first.ts.clone());
            conversation.status = ConversationStatus::Archived;
            conversation.title = Some("Recovered conversation".to_owned());
            conversation.ended_at = Some(last.ts.clone());
            conversation.end_reason = Some("recovered: its index entry could not be read".to_owned());
            recovered.push(conversation);
        }
        if recovered.is_empty() {
            return Ok(());
        }
        host.log(LogLevel::Info, &format!("{} conversations recovered from their history files", recovered.len()));
        self.notices.push(format!(
            "{} listed again from {} history file{} (archived, as \"Recovered conversation\").",
            if recovered.len() == 1 {
                "1 conversation was".to_owned()
            } else {
                format!("{} conversations were", recovered.len())
            },
            if recovered.len() == 1 { "its" } else { "their" },
            if recovered.len() == 1 { "" } else { "s" }
        ));
        self.append_archive(host, &recovered).await
    }

    /// What the user should be told about damaged files met since the last call (set aside,
    /// quarantined, kept unread).
    pub(crate) fn take_notices(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notices)
    }

    /// The conversation new messages go to, if one is open.
    pub(crate) fn current(&self) -> Option<&Conversation> {
        self.current.as_ref().and_then(|c| self.index.get(&c.id))
    }

    /// When the current conversation last had a turn (or was opened).
    pub(crate) fn last_activity_ms(&self) -> Option<Millis> {
        self.current.as_ref().and_then(|c| c.last_activity_ms)
    }

    /// The conversations in the index: every one not archived, and the last few archived.
    pub(crate) fn live(&self) -> &[Conversation] {
        &self.index.conversations
    }

    /// A conversation by id, from the index or the archive.
    pub(crate) async fn find<H: Host>(&mut self, host: &H, id: &str) -> Result<Option<Conversation>, StoreError> {
        if let Some(c) = self.index.get(id) {
            return Ok(Some(c.clone()));
        }
        Ok(self.archive(host).await?.iter().find(|c| c.id == id).cloned())
    }

    /// Every conversation, index and archive, oldest first.
    pub(crate) async fn all<H: Host>(&mut self, host: &H) -> Result<Vec<Conversation>, StoreError> {
        let live = self.index.conversations.clone();
        let mut all: Vec<Conversation> =
            self.archive(host).await?.iter().filter(|a| !live.iter().any(|l| l.id == a.id)).cloned().collect();
        all.extend(live);
        crate::lean::sort_by(&mut all, |a, b| a.created_at.cmp(&b.created_at));
        Ok(all)
    }

    /// Ended conversations, most recently ended first.
    pub(crate) fn recently_ended(&self, n: usize) -> Vec<&Conversation> {
        self.index.recently_ended(n)
    }

    /// The archive, read once.
    pub(super) async fn archive<H: Host>(&mut self, host: &H) -> Result<&mut Vec<Conversation>, StoreError> {
        if self.archive.is_none() {
            let text = match read_bounded(host, ARCHIVE_PATH, MAX_LOG_BYTES).await? {
                Bounded::Missing => String::new(),
                Bounded::Text(text) => text,
                Bounded::TooLarge(size) => {
                    let reason = too_large(ARCHIVE_PATH, size, MAX_LOG_BYTES);
                    let aside = set_aside(host, ARCHIVE_PATH, "oversized", &reason).await?;
                    self.notices.push(format!(
                        "The archive of old conversations was too large to load ({reason}); it was set aside, unchanged, as .smarthole/{aside}."
                    ));
                    String::new()
                }
            };
            self.archive = Some(parse_archive(&text));
        }
        Ok(self.archive.get_or_insert_with(Vec::new))
    }

    /// Appends conversations to the archive.
    pub(super) async fn append_archive<H: Host>(
        &mut self,
        host: &H,
        conversations: &[Conversation],
    ) -> Result<(), StoreError> {
        if conversations.is_empty() {
            return Ok(());
        }
        let mut text = String::new();
        for c in conversations {
            text.push_str(&serde_json::to_string(c).map_err(|e| StoreError::Encode(e.to_string()))?);
            text.push('\n');
        }
        host.append_file(ARCHIVE_PATH, &text).await?;
        if let Some(archive) = &mut self.archive {
            for c in conversations {
                match archive.iter_mut().find(|a| a.id == c.id) {
                    Some(slot) => *slot = c.clone(),
                    None => archive.push(c.clone()),
                }
            }
        }
        Ok(())
    }

    pub(super) async fn write_index<H: Host>(&mut self, host: &H, index: ConversationIndex) -> Result<(), StoreError> {
        let text = serde_json::to_string(&index).map_err(|e| StoreError::Encode(e.to_string()))?;
        host.write_file_atomic(INDEX_PATH, &text).await?;
        self.index = index;
        Ok(())
    }
}
