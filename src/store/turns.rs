//! A turn's way in and out of the store: the history a turn is answered with, an earlier
//! recording of its message, and the append that records it — for the current conversation or
//! a given one ([`Target`]), O(that turn) whatever the history's size.
use std::rc::Rc;

use super::current::RecordedTurn;
use super::error::StoreError;
use super::files::{encode_lines, load_log, load_turns};
use super::open::ConversationStore;
use crate::conversation::context::ContextCache;
use crate::conversation::line::{HistoryLine, LineRole, Turn};
use crate::conversation::log::add_turn_usage;
use crate::conversation::metadata::log_path;
use crate::host::Host;
use crate::hub::frames::shorten_to_plain_text;
use crate::llm::{ContentBlock, MessagesJson};

/// Which conversation a turn goes to: the one the user is in (opened if none is), or a given one
/// (a scheduled run's background conversation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Target {
    Current,
    Conversation(String),
}

impl ConversationStore {
    /// A conversation for the model: its newest whole turns within `budget` tokens — the
    /// current one's from memory, another's (a scheduled run in a background conversation) read
    /// from its file.
    pub(crate) async fn history<H: Host>(
        &self,
        host: &H,
        target: &Target,
        budget: usize,
    ) -> Result<Rc<MessagesJson>, StoreError> {
        let id = match (target, self.current.as_ref()) {
            (Target::Current, current) => return Ok(current.map(|c| c.context.history(budget)).unwrap_or_default()),
            (Target::Conversation(id), Some(current)) if current.id == *id => {
                return Ok(current.context.history(budget));
            }
            (Target::Conversation(id), _) => id,
        };
        let mut context = ContextCache::new();
        for turn in load_turns(host, id).await? {
            context.push_turn(&turn);
        }
        Ok(context.history(budget))
    }

    /// The recorded turn of a message, if it is recorded where it goes: for the current
    /// conversation, in it or in the one that ended last (where a crash between recording and
    /// cleanup can leave it); for a given one, in that one.
    pub(crate) async fn find_recorded<H: Host>(
        &self,
        host: &H,
        target: &Target,
        message_id: &str,
    ) -> Result<Option<RecordedTurn>, StoreError> {
        let id = match target {
            Target::Current => {
                if let Some(recorded) = self.current.as_ref().and_then(|c| c.recorded.get(message_id)) {
                    return Ok(Some(recorded.clone()));
                }
                let Some(last) = self.index.recently_ended(1).first().map(|c| c.id.clone()) else { return Ok(None) };
                last
            }
            Target::Conversation(id) => {
                if let Some(current) = self.current.as_ref().filter(|c| c.id == *id) {
                    return Ok(current.recorded.get(message_id).cloned());
                }
                id.clone()
            }
        };
        let turns = load_turns(host, &id).await?;
        Ok(turns.iter().find(|t| t.message_id() == message_id).map(RecordedTurn::from))
    }

    /// Appends a turn, in one write: to the current conversation (opening one if none is), or to
    /// a given one (a background conversation's scheduled run) by one append to its log.
    pub(crate) async fn append_turn<H: Host>(
        &mut self,
        host: &H,
        target: &Target,
        lines: Vec<HistoryLine>,
    ) -> Result<(), StoreError> {
        match target {
            Target::Conversation(id) if self.current.as_ref().is_none_or(|c| c.id != *id) => {
                if self.index.get(id).is_none() {
                    return Err(StoreError::Unknown(id.to_owned()));
                }
                // Made safe to append to first (a torn tail, a missing newline).
                let (mut log, _) = load_log(host, id, Some(&mut self.notices), Some(1)).await?;
                host.append_file(&log_path(id), &encode_lines(&lines, &mut log.context_base)?).await?;
                Ok(())
            }
            _ => self.append_to_current(host, lines).await,
        }
    }

    /// Appends a turn to the current conversation (opening one if none is), in one write.
    pub(super) async fn append_to_current<H: Host>(
        &mut self,
        host: &H,
        lines: Vec<HistoryLine>,
    ) -> Result<(), StoreError> {
        if lines.last().and_then(|l| l.turn.as_ref()).is_none() {
            return Err(StoreError::Encode("a turn must end with its closing line".to_owned()));
        }
        let id = match self.current.as_ref() {
            Some(c) => c.id.clone(),
            None => self.open_conversation(host, provisional_title(&lines)).await?,
        };
        let mut base = self.current.as_mut().and_then(|c| c.context_base.take());
        let encoded = encode_lines(&lines, &mut base)?;
        // Taken out above: after a failed append the file's newest base is not known.
        host.append_file(&log_path(&id), &encoded).await?;
        let untitled = self.index.get(&id).is_some_and(|c| c.title.is_none());
        let title = if untitled { provisional_title(&lines) } else { None };
        if let Some(current) = &mut self.current {
            current.context_base = base;
            current.recent = current.recent.take().and_then(|recent| recent.appended(&encoded));
            if let Some(kept) = &mut current.usage {
                add_turn_usage(&encoded, &mut kept.total);
                kept.file_len += encoded.len();
            }
            current.push(&Turn { lines });
        }
        if let Some(title) = title {
            // A conversation opened by a hidden line gets its title from the first message.
            self.update(host, &id, |c| {
                c.title = Some(title);
                Ok(())
            })
            .await?;
        }
        Ok(())
    }

    /// Lets the current conversation's cache forget what no request within `budget` tokens can
    /// include any more (twice the budget is kept, so a larger budget still finds some).
    pub(crate) fn forget_unsendable(&mut self, budget: usize) {
        if let Some(current) = self.current.as_mut() {
            current.context.forget_beyond(budget.saturating_mul(2));
        }
    }
}

/// A title to show until the model's one arrives: the start of the first user message.
fn provisional_title(lines: &[HistoryLine]) -> Option<String> {
    lines.iter().filter(|l| l.role == LineRole::User && l.visible).find_map(|l| {
        l.content.iter().find_map(|b| match b {
            ContentBlock::Text { text } if !text.trim().is_empty() => Some(shorten_to_plain_text(text, 60)),
            _ => None,
        })
    })
}
