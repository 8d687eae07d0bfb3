//! Reading a conversation for the chat view and the tools: all its lines, a page of them (from
//! the end of the current one's file kept in memory when it holds the page), its text, and its
//! usage added up.

use super::current::UsageSoFar;
use super::error::StoreError;
use super::files::{load_log, load_turns, log_is_still};
use super::open::ConversationStore;
use crate::bounded::{read_bounded, Bounded, MAX_LOG_BYTES};
use crate::conversation::line::HistoryLine;
use crate::conversation::log::parse_page;
use crate::conversation::metadata::log_path;
use crate::host::Host;
use crate::llm::Usage;

impl ConversationStore {
    /// Every line of a conversation's history (for summaries, retrospection, `get_conversation`).
    pub(crate) async fn read_lines<H: Host>(&mut self, host: &H, id: &str) -> Result<Vec<HistoryLine>, StoreError> {
        if self.find(host, id).await?.is_none() {
            return Err(StoreError::Unknown(id.to_owned()));
        }
        Ok(load_turns(host, id).await?.into_iter().flat_map(|t| t.lines).collect())
    }

    /// Every line of a conversation's history for the chat view, and how many lines of its file
    /// this version could not read (kept on disk; the view says so).
    pub(crate) async fn read_view_lines<H: Host>(
        &mut self,
        host: &H,
        id: &str,
    ) -> Result<(Vec<HistoryLine>, usize), StoreError> {
        if self.find(host, id).await?.is_none() {
            return Err(StoreError::Unknown(id.to_owned()));
        }
        let (log, _) = load_log(host, id, None, None).await?;
        Ok((log.turns.into_iter().flat_map(|t| t.lines).collect(), log.unreadable))
    }

    /// A conversation's whole history as text (empty when it has none yet, or is past the bound a
    /// history is read within), for a reader that goes through it a piece at a time.
    pub(crate) async fn read_text<H: Host>(&mut self, host: &H, id: &str) -> Result<String, StoreError> {
        if self.find(host, id).await?.is_none() {
            return Err(StoreError::Unknown(id.to_owned()));
        }
        Ok(match read_bounded(host, &log_path(id), MAX_LOG_BYTES).await? {
            Bounded::Text(text) => text,
            Bounded::Missing | Bounded::TooLarge(_) => String::new(),
        })
    }

    /// One page of a conversation for the view: the newest `limit` turns before `before` (the
    /// end when `None`), parsed from that page's lines only, with the lines of that region this
    /// version could not read and the cursor for the page before it.
    pub(crate) async fn read_view_page<H: Host>(
        &mut self,
        host: &H,
        id: &str,
        before: Option<usize>,
        limit: usize,
    ) -> Result<(Vec<HistoryLine>, usize, Option<usize>), StoreError> {
        if self.find(host, id).await?.is_none() {
            return Err(StoreError::Unknown(id.to_owned()));
        }
        if let Some(page) = self.recent_page(host, id, before, limit).await {
            return Ok(page);
        }
        let text = match read_bounded(host, &log_path(id), MAX_LOG_BYTES).await? {
            Bounded::Text(text) => text,
            Bounded::Missing | Bounded::TooLarge(_) => return Ok((Vec::new(), 0, None)),
        };
        let page = parse_page(&text, before, limit);
        Ok((page.turns.into_iter().flat_map(|t| t.lines).collect(), page.unreadable, page.before))
    }

    /// A page of the current conversation from the end of its file kept in memory, when that end
    /// holds the whole page and the file is still the size it stands for.
    pub(super) async fn recent_page<H: Host>(
        &mut self,
        host: &H,
        id: &str,
        before: Option<usize>,
        limit: usize,
    ) -> Option<(Vec<HistoryLine>, usize, Option<usize>)> {
        let current = self.current.as_mut().filter(|c| c.id == id)?;
        let recent = current.recent.as_ref()?;
        if !log_is_still(host, id, recent.file_len()).await {
            // Changed by someone else (a sync, an edit): read again from the file from now on.
            current.recent = None;
            return None;
        }
        let local = match before {
            Some(at) => Some(at.checked_sub(recent.start)?),
            None => None,
        };
        let page = parse_page(&recent.text, local, limit);
        // A page reaching the start of the kept text may go on before it, and a context stored
        // as an edit of a line before it resolves there: the file says.
        let start = page.before.filter(|_| page.unresolved_contexts == 0)?;
        let lines = page.turns.into_iter().flat_map(|t| t.lines).collect();
        Some((lines, page.unreadable, Some(start + recent.start)))
    }

    /// The current conversation's usage as last added up, if `id` is it and its file is still the
    /// size that sum stands for (anyone else's change to the file means adding up again).
    pub(crate) async fn usage_so_far<H: Host>(&mut self, host: &H, id: &str) -> Option<Usage> {
        let current = self.current.as_mut().filter(|c| c.id == id)?;
        let kept = current.usage.as_ref()?;
        if !log_is_still(host, id, kept.file_len).await {
            current.usage = None;
            return None;
        }
        Some(kept.total.clone())
    }

    /// Keeps a conversation's usage added up from `file_len` bytes of its file, if it is the
    /// current one; appends from now on add to it.
    pub(crate) fn keep_usage(&mut self, id: &str, file_len: usize, total: Usage) {
        if let Some(current) = self.current.as_mut().filter(|c| c.id == id) {
            current.usage = Some(UsageSoFar { file_len, total });
        }
    }
}
