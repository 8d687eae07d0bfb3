//! Conversations opened, ended and changed: a new one opened (for a first turn or an approval),
//! an old one made current again, the current one ended (older archived ones leave the index for
//! the archive), a metadata change written only when something changed, a long scheduled job
//! continued in a new conversation, and everything cleared.

use super::current::{CurrentLog, TailText, CURRENT_TAIL_TURNS};
use super::error::StoreError;
use super::files::load_log;
use super::open::ConversationStore;
use crate::conversation::metadata::{
    log_path, ConversationIndex, ARCHIVE_PATH, CONVERSATIONS_DIR, INDEX_PATH, RECENT_ARCHIVED,
};
use crate::conversation::model::{Conversation, ConversationStatus, StatusEvent};
use crate::host::Host;
use crate::host_types::LogLevel;
use crate::ids::new_id;
use crate::time::format_iso;

impl ConversationStore {
    /// The current conversation's id, opening one (untitled until its first turn) if there is
    /// none — for what must belong to a conversation before its first turn is recorded.
    pub(crate) async fn current_or_open<H: Host>(&mut self, host: &H) -> Result<String, StoreError> {
        match self.current.as_ref() {
            Some(c) => Ok(c.id.clone()),
            None => self.open_conversation(host, None).await,
        }
    }

    pub(super) async fn open_conversation<H: Host>(
        &mut self,
        host: &H,
        title: Option<String>,
    ) -> Result<String, StoreError> {
        let mut id = new_id(host, "c-");
        while self.index.get(&id).is_some() {
            id = new_id(host, "c-");
        }
        let mut conversation = Conversation::new(id.clone(), format_iso(host.now_ms()));
        conversation.title = title;
        let mut index = self.index.clone();
        index.current = Some(id.clone());
        index.conversations.push(conversation);
        self.write_index(host, index).await?;
        let mut current = CurrentLog::new(id.clone());
        current.last_activity_ms = Some(host.now_ms());
        current.recent = Some(TailText::empty());
        self.current = Some(current);
        Ok(id)
    }

    /// Makes an existing conversation current again (the user opened it from the list): an
    /// archived one is reopened, others keep their status. The current one ends first.
    pub(crate) async fn open_existing<H: Host>(
        &mut self,
        host: &H,
        id: &str,
    ) -> Result<Option<Conversation>, StoreError> {
        if self.current.as_ref().is_some_and(|c| c.id == id) {
            return Ok(None);
        }
        let Some(conversation) = self.find(host, id).await? else { return Err(StoreError::Unknown(id.to_owned())) };
        let ended = self.end_current(host, "switched to another conversation").await?;
        if self.index.get(id).is_none() {
            // Back from the archive (its later line there is superseded by the index).
            let mut index = self.index.clone();
            index.conversations.push(conversation);
            self.write_index(host, index).await?;
        }
        let mut current = CurrentLog::new(id.to_owned());
        let (log, recent) = load_log(host, id, Some(&mut self.notices), Some(CURRENT_TAIL_TURNS)).await?;
        for turn in &log.turns {
            current.push(turn);
        }
        current.recent = recent;
        current.context_base = log.context_base;
        let mut index = self.index.clone();
        index.current = Some(id.to_owned());
        if let Some(c) = index.get_mut(id) {
            if c.status == ConversationStatus::Archived {
                c.apply(StatusEvent::Reopened)?;
            }
            c.ended_at = None;
            c.end_reason = None;
        }
        self.write_index(host, index).await?;
        current.last_activity_ms = current.last_activity_ms.or(Some(host.now_ms()));
        self.current = Some(current);
        Ok(ended)
    }

    /// Ends the current conversation; the next turn opens a new one. Returns the conversation
    /// that ended.
    pub(crate) async fn end_current<H: Host>(
        &mut self,
        host: &H,
        reason: &str,
    ) -> Result<Option<Conversation>, StoreError> {
        let Some(id) = self.current.as_ref().map(|c| c.id.clone()) else { return Ok(None) };
        let mut index = self.index.clone();
        index.current = None;
        let ended = match index.get_mut(&id) {
            Some(c) => {
                // An archived conversation marked current (an index edited by hand, or an older
                // inconsistency) is simply closed: ending must never fail start-up.
                if c.apply(StatusEvent::Ended).is_err() {
                    host.log(LogLevel::Warn, &format!("conversation {id} was current but {:?}; closing it", c.status));
                }
                if c.status == ConversationStatus::Archived {
                    // A question left open in an ended chat will not be answered there.
                    c.state.pending_question = None;
                }
                c.ended_at = Some(format_iso(host.now_ms()));
                c.end_reason = Some(reason.to_owned());
                Some(c.clone())
            }
            None => None,
        };
        // Older archived conversations leave the index for the archive (appended first: a crash
        // in between leaves a conversation in both, and the index wins).
        let leaving = index.evict_archived(RECENT_ARCHIVED);
        self.append_archive(host, &leaving).await?;
        self.write_index(host, index).await?;
        self.current = None;
        Ok(ended)
    }

    /// Changes a conversation's metadata; the index is written only when something changed.
    /// Returns the conversation as it is now.
    pub(crate) async fn update<H: Host>(
        &mut self,
        host: &H,
        id: &str,
        change: impl FnOnce(&mut Conversation) -> Result<(), StoreError>,
    ) -> Result<Conversation, StoreError> {
        let mut index = self.index.clone();
        let Some(conversation) = index.get_mut(id) else {
            // Only in the archive: a new line supersedes its record there.
            let mut archived = self.find(host, id).await?.ok_or_else(|| StoreError::Unknown(id.to_owned()))?;
            let before = archived.clone();
            change(&mut archived)?;
            if archived != before {
                self.append_archive(host, std::slice::from_ref(&archived)).await?;
            }
            return Ok(archived);
        };
        change(conversation)?;
        let now = conversation.clone();
        if index != self.index {
            self.write_index(host, index).await?;
        }
        Ok(now)
    }

    /// Moves a conversation's scheduled job — its schedule and state — to a new conversation
    /// that continues it, so a job that runs for years never grows one history past what every
    /// read can take (issue 19). The old one keeps its runs, says where they go on, and ends
    /// unless it is the current chat; the new one says what it continues. One index write.
    /// Returns (old, new).
    pub(crate) async fn continue_schedule<H: Host>(
        &mut self,
        host: &H,
        id: &str,
    ) -> Result<(Conversation, Conversation), StoreError> {
        let mut index = self.index.clone();
        let now = format_iso(host.now_ms());
        let mut next_id = new_id(host, "c-");
        while index.get(&next_id).is_some() {
            next_id = new_id(host, "c-");
        }
        let is_current = index.current.as_deref() == Some(id);
        let old = index.get_mut(id).ok_or_else(|| StoreError::Unknown(id.to_owned()))?;
        let schedule = old.schedule.take().ok_or_else(|| StoreError::Encode(format!("{id} has no schedule")))?;
        let mut next = Conversation::new(next_id.clone(), now.clone());
        next.title = old.title.clone();
        next.state = old.state.clone();
        next.state.pending_question = None;
        next.schedule = Some(schedule);
        next.continues = Some(id.to_owned());
        next.apply(StatusEvent::ScheduleCreated)?;
        old.apply(StatusEvent::ScheduleCleared)?;
        old.continued_in = Some(next_id);
        if !is_current {
            old.apply(StatusEvent::Ended)?;
            old.ended_at = Some(now);
            old.end_reason = Some("its scheduled job went on in a new conversation".to_owned());
        }
        let old = old.clone();
        index.conversations.push(next.clone());
        self.write_index(host, index).await?;
        Ok((old, next))
    }

    /// Deletes every conversation (the user's "Clear history").
    pub(crate) async fn clear<H: Host>(&mut self, host: &H) -> Result<usize, StoreError> {
        let ids: Vec<String> = self.all(host).await?.into_iter().map(|c| c.id).collect();
        self.write_index(host, ConversationIndex::default()).await?;
        self.current = None;
        host.remove_file(ARCHIVE_PATH).await?;
        self.archive = Some(Vec::new());
        for id in &ids {
            host.remove_file(&log_path(id)).await?;
        }
        // What was set aside from them goes too: torn tails, oversized files, quarantined entries.
        for name in host.list_dir(CONVERSATIONS_DIR).await? {
            let path = format!("{CONVERSATIONS_DIR}/{name}");
            if path != INDEX_PATH {
                host.remove_file(&path).await?;
            }
        }
        Ok(ids.len())
    }
}
