//! What the chat view asks of the processor besides messages: reading a conversation (whole, a
//! page, its usage), the list of conversations and the current one; and the changes — the hidden
//! "chat opened" line (UC014), starting a new conversation, reopening an old one, clearing
//! history — each of which waits its turn in the same queue as messages, so none of them lands
//! in the middle of a turn.

use serde::Serialize;

use super::error::ProcessorError;
use super::handle::MessageProcessor;
use super::state::loaded;
use crate::conversation::boundary::starts_new_conversation;
use crate::conversation::{add_turn_usage, Conversation, HistoryLine, LineRole, TurnEnd};
use crate::host::Host;
use crate::ids::new_id;
use crate::llm::{ContentBlock, Usage};
use crate::message::MessageSource;
use crate::store::{StoreError, Target};
use crate::time::format_iso;
use crate::tools::budget::Budget;

/// Bytes of history read between two turns of the event loop when adding up its usage.
const USAGE_PIECE: usize = 256 * 1024;

/// A page of a conversation for the chat view, which draws the newest messages first and older
/// ones as the user scrolls up, never the whole history at once.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConversationPage {
    /// The page's lines, oldest first (hidden ones included, as `conversation_lines` has them).
    pub lines: Vec<HistoryLine>,
    /// The cursor for the page before this one; absent when this page reaches the start.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<u64>,
}

impl<H: Host + 'static> MessageProcessor<H> {
    /// Appends a hidden system line to the current conversation (UC014: the chat view opened) —
    /// kept in history, never sent to the model — and returns the conversation it went to. Like
    /// a message, it first checks the idle boundary, so opening the chat after a long break
    /// starts the new conversation it belongs to.
    pub async fn record_system_line(&self, text: &str) -> Result<String, ProcessorError> {
        self.initialize().await?;
        let ticket = self.inner.run.ticket();
        ticket.wait().await;
        let host = &self.inner.host;
        let settings = self.settings();
        let mut ended = None;
        let conversation_id = {
            let mut guard = self.inner.store.lock().await;
            let store = loaded(&mut guard)?;
            if let (Some(current), Some(last)) = (store.current(), store.last_activity_ms()) {
                if starts_new_conversation(
                    current,
                    last,
                    host.now_ms(),
                    settings.idle_timeout_ms(),
                    settings.state_timeout_ms(),
                ) {
                    ended = store.end_current(host, "idle").await?;
                }
            }
            let id = new_id(host, "sys-");
            let line = HistoryLine {
                id: format!("{id}#0"),
                message_id: id,
                role: LineRole::System,
                content: vec![ContentBlock::text(text)],
                source: MessageSource::System,
                visible: false,
                ts: format_iso(host.now_ms()),
                turn: Some(TurnEnd::default()),
                context: None,
            };
            store.append_turn(host, &Target::Current, vec![line]).await?;
            store.current().map(|c| c.id.clone()).unwrap_or_default()
        };
        if let Some(ended) = ended {
            self.conversation_ended(ended);
        }
        Ok(conversation_id)
    }

    /// A conversation's lines, oldest first (hidden ones included; the view skips them). Lines
    /// of the file this version could not read are announced by one visible `system` line
    /// first (`unreadable#0`), which the view shows as a notice; they stay on disk untouched.
    pub async fn conversation_lines(&self, id: &str) -> Result<Vec<HistoryLine>, ProcessorError> {
        self.initialize().await?;
        let mut guard = self.inner.store.lock().await;
        let store = loaded(&mut guard)?;
        let (mut lines, unreadable) = store.read_view_lines(&self.inner.host, id).await?;
        if unreadable > 0 {
            lines.insert(0, unreadable_line(unreadable));
        }
        Ok(lines)
    }

    /// A page of a conversation's lines for the chat view: the newest `limit` turns before the
    /// cursor `before` (from an earlier page; the end when `None`), oldest first, read without
    /// parsing the rest of its history, with the unreadable-lines notice of that page's region
    /// first, as `conversation_lines` has it.
    pub async fn conversation_page(
        &self,
        id: &str,
        before: Option<u64>,
        limit: usize,
    ) -> Result<ConversationPage, ProcessorError> {
        self.initialize().await?;
        let mut guard = self.inner.store.lock().await;
        let store = loaded(&mut guard)?;
        let before = before.and_then(|b| usize::try_from(b).ok());
        let (mut lines, unreadable, before) = store.read_view_page(&self.inner.host, id, before, limit).await?;
        if unreadable > 0 {
            lines.insert(0, unreadable_line(unreadable));
        }
        Ok(ConversationPage { lines, before: before.map(|b| b as u64) })
    }

    /// What a conversation has cost so far: every turn's usage added up (the chat view's "This
    /// conversation", whichever of its pages are drawn), read from its history a piece at a time
    /// (a long one is megabytes), the event loop turning between pieces. The current
    /// conversation's sum is kept and added to as turns are recorded, so asking again after each
    /// answer costs a size check.
    pub async fn conversation_usage(&self, id: &str) -> Result<Usage, ProcessorError> {
        self.initialize().await?;
        let text = {
            let mut guard = self.inner.store.lock().await;
            let store = loaded(&mut guard)?;
            if let Some(total) = store.usage_so_far(&self.inner.host, id).await {
                return Ok(total);
            }
            store.read_text(&self.inner.host, id).await?
        };
        let mut total = Usage::default();
        let mut pace = Budget::unbounded(&self.inner.host);
        let mut rest = text.as_str();
        while !rest.is_empty() {
            let cut = match rest.as_bytes().get(USAGE_PIECE..) {
                Some(tail) => tail.iter().position(|&b| b == b'\n').map_or(rest.len(), |at| USAGE_PIECE + at + 1),
                None => rest.len(),
            };
            let (piece, after) = rest.split_at(cut);
            add_turn_usage(piece, &mut total);
            rest = after;
            pace.pace().await;
        }
        // A turn appended meanwhile makes the file longer than `text`: the next ask adds up again.
        if let Some(store) = self.inner.store.lock().await.as_mut() {
            store.keep_usage(id, text.len(), total.clone());
        }
        Ok(total)
    }

    /// The conversation new messages go to, if one is open.
    pub async fn current_conversation(&self) -> Option<Conversation> {
        self.inner.store.lock().await.as_ref().and_then(|s| s.current().cloned())
    }

    /// Every conversation, oldest first (a snapshot for lists; reads the archive once).
    pub async fn conversations(&self) -> Result<Vec<Conversation>, ProcessorError> {
        let mut guard = self.inner.store.lock().await;
        match guard.as_mut() {
            Some(store) => Ok(store.all(&self.inner.host).await?),
            None => Ok(Vec::new()),
        }
    }

    /// Ends the current conversation ("New chat"); the next message starts a new one.
    pub async fn new_conversation(&self) -> Result<(), ProcessorError> {
        self.initialize().await?;
        let ticket = self.inner.run.ticket();
        ticket.wait().await;
        let ended = {
            let mut guard = self.inner.store.lock().await;
            let store = loaded(&mut guard)?;
            store.end_current(&self.inner.host, "new chat").await?
        };
        if let Some(ended) = ended {
            self.conversation_ended(ended);
        }
        Ok(())
    }

    /// Makes a past conversation current again.
    pub async fn open_conversation(&self, id: &str) -> Result<Conversation, ProcessorError> {
        self.initialize().await?;
        let ticket = self.inner.run.ticket();
        ticket.wait().await;
        let (ended, opened) = {
            let mut guard = self.inner.store.lock().await;
            let store = loaded(&mut guard)?;
            let ended = store.open_existing(&self.inner.host, id).await?;
            (ended, store.current().cloned().ok_or_else(|| StoreError::Unknown(id.to_owned()))?)
        };
        if let Some(ended) = ended {
            self.conversation_ended(ended);
        }
        self.conversation_changed(opened.clone());
        Ok(opened)
    }

    /// "Clear history": deletes every conversation, what was set aside from their files, their
    /// turns' undo records and the attachment copies only they needed (a message still waiting
    /// or set aside keeps its own, a chip not sent yet too); returns how many conversations.
    pub async fn clear_history(&self) -> Result<usize, ProcessorError> {
        self.initialize().await?;
        let ticket = self.inner.run.ticket();
        ticket.wait().await;
        let mut guard = self.inner.store.lock().await;
        let store = loaded(&mut guard)?;
        let cleared = store.clear(&self.inner.host).await?;
        self.scheduled_agents_cleared();
        crate::attachment::remove_unneeded_copies(&self.inner.host, &self.inner.attachments.copies)
            .await
            .map_err(StoreError::from)?;
        crate::undo::remove_cleared(&self.inner.host).await.map_err(StoreError::from)?;
        Ok(cleared)
    }
}

/// The line the view shows for lines of a history file that could not be read.
fn unreadable_line(count: usize) -> HistoryLine {
    let text = if count == 1 {
        "1 line of this conversation could not be read; it is kept unchanged in its file.".to_owned()
    } else {
        format!("{count} lines of this conversation could not be read; they are kept unchanged in its file.")
    };
    HistoryLine {
        id: "unreadable#0".to_owned(),
        message_id: "unreadable".to_owned(),
        role: LineRole::System,
        content: vec![ContentBlock::text(text)],
        source: MessageSource::System,
        visible: true,
        ts: String::new(),
        turn: None,
        context: None,
    }
}
