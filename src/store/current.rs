//! The current conversation in memory: its newest turns' messages ready to send
//! (`ContextCache`), what each of them answered (`RecordedTurn`, for a message delivered again),
//! when it was last active, and — for the chat view — the end of its file (`TailText`) and its
//! usage added up (`UsageSoFar`), both kept in step with each append.

use std::collections::HashMap;

use crate::conversation::context::ContextCache;
use crate::conversation::context_edit::ContextBase;
use crate::conversation::line::Turn;
use crate::conversation::log::page_start;
use crate::host_types::Millis;
use crate::llm::Usage;
use crate::time::parse_iso;

/// What a recorded turn answered, for a message delivered again.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RecordedTurn {
    pub response: String,
    pub tools_used: Vec<String>,
    pub waiting: bool,
    pub usage: Option<crate::llm::Usage>,
}

impl From<&Turn> for RecordedTurn {
    fn from(turn: &Turn) -> Self {
        let end = turn.end();
        RecordedTurn {
            response: turn.response_text(),
            tools_used: end.tools_used,
            waiting: end.waiting,
            usage: end.usage,
        }
    }
}

/// The newest turns of the current conversation read when it is loaded (at start, on reopening):
/// far more than any context budget sends, and every turn a crash can have left to finish (the
/// newest few), so loading costs the same for 100 messages as for 20,000 (issue 19).
pub(super) const CURRENT_TAIL_TURNS: usize = 1_000;

/// Turns of the current conversation's file end kept in memory: five of the chat view's pages.
const RECENT_TURNS: usize = 200;

/// The most of it kept: past this the view reads the file.
const RECENT_MAX_BYTES: usize = 1024 * 1024;

/// The end of the current conversation's file, from a turn's start: the chat view's newest pages
/// are read from it instead of reading the whole file again (issue 19: opening a conversation of
/// 20,000 messages read its 4 MB twice). Kept in step with each append; checked against the
/// file's size before use, so a file changed by anyone else is read again.
#[derive(Debug)]
pub(super) struct TailText {
    /// Where `text` begins in the file.
    pub(super) start: usize,
    pub(super) text: String,
    /// Turns appended since the text was last cut back.
    pub(super) appended: usize,
}

impl TailText {
    /// The newest turns of a whole file's text, if they fit.
    pub(super) fn of(text: &str) -> Option<Self> {
        let start = page_start(text, text.len(), RECENT_TURNS).unwrap_or(0);
        (text.len() - start <= RECENT_MAX_BYTES).then(|| TailText {
            start,
            text: text[start..].to_owned(),
            appended: 0,
        })
    }

    /// A new, empty file's.
    pub(super) fn empty() -> Self {
        TailText { start: 0, text: String::new(), appended: 0 }
    }

    /// After a turn was appended: the text grows, and every [`RECENT_TURNS`] turns it is cut
    /// back to the newest [`RECENT_TURNS`] (one walk over them each time, not at every turn).
    pub(super) fn appended(mut self, lines: &str) -> Option<Self> {
        self.text.push_str(lines);
        self.appended += 1;
        if self.appended >= RECENT_TURNS {
            let cut = page_start(&self.text, self.text.len(), RECENT_TURNS).unwrap_or(0);
            self.text.drain(..cut);
            self.start += cut;
            self.appended = 0;
        }
        (self.text.len() <= 2 * RECENT_MAX_BYTES).then_some(self)
    }

    /// The file's size it stands for.
    pub(super) fn file_len(&self) -> usize {
        self.start + self.text.len()
    }
}

/// What the current conversation has cost, added up from its file once and kept in step with
/// each append: the chat view asks after every answer, and a long conversation's file is
/// megabytes. Checked against the file's size before use, like [`TailText`].
#[derive(Debug)]
pub(super) struct UsageSoFar {
    pub(super) file_len: usize,
    pub(super) total: Usage,
}

/// The current conversation, loaded: its newest turns' messages ready to send, what each of them
/// answered, and when it was last active.
#[derive(Debug)]
pub(super) struct CurrentLog {
    pub(super) id: String,
    pub(super) context: ContextCache,
    pub(super) recorded: HashMap<String, RecordedTurn>,
    pub(super) last_activity_ms: Option<Millis>,
    /// The end of its file as last read or written, for the chat view's pages.
    pub(super) recent: Option<TailText>,
    pub(super) usage: Option<UsageSoFar>,
    /// The newest full message context of its file, that the next user line's is stored as an
    /// edit of (`context_edit.rs`); `None` writes the next one in full.
    pub(super) context_base: Option<ContextBase>,
}

impl CurrentLog {
    pub(super) fn new(id: String) -> Self {
        CurrentLog {
            id,
            context: ContextCache::new(),
            recorded: HashMap::new(),
            last_activity_ms: None,
            recent: None,
            usage: None,
            context_base: None,
        }
    }

    pub(super) fn push(&mut self, turn: &Turn) {
        self.context.push_turn(turn);
        self.recorded.insert(turn.message_id().to_owned(), RecordedTurn::from(turn));
        if let Some(at) = turn.lines.last().and_then(|l| parse_iso(&l.ts)) {
            self.last_activity_ms = Some(at);
        }
    }
}
