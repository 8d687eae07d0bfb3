//! The conversation store: the index (every conversation's metadata) plus the current
//! conversation in memory, ready to send. Recording a turn is one append to the current
//! conversation's JSONL — O(that turn), whatever the history size; the index is rewritten only
//! when metadata changes.

use std::collections::HashMap;

use thiserror::Error;

use super::context::ContextCache;
use super::index::{
    log_path, parse_archive, parse_index, ConversationIndex, Quarantined, ARCHIVE_PATH, CONVERSATIONS_DIR, INDEX_PATH,
    QUARANTINE_PATH, RECENT_ARCHIVED,
};
use super::line::{HistoryLine, LineRole, Turn};
use super::log::{add_turn_usage, page_start, parse_log, parse_page, parse_tail, LoadedLog};
use super::model::{Conversation, ConversationStatus, StatusEvent, TransitionError};
use crate::bounded::{read_bounded, set_aside, too_large, Bounded, MAX_INDEX_BYTES, MAX_LOG_BYTES};
use crate::host::Host;
use crate::host_types::{HostError, LogLevel, Millis};
use crate::hub::frames::shorten_to_plain_text;
use crate::ids::new_id;
use crate::llm::{ContentBlock, MessagesJson, Usage};
use crate::time::{format_iso, parse_iso};

/// Which conversation a turn goes to: the one the user is in (opened if none is), or a given one
/// (a scheduled run's background conversation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Target {
    Current,
    Conversation(String),
}

/// Why the store could not do its job.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum StoreError {
    #[error(transparent)]
    Host(#[from] HostError),
    #[error("could not encode history: {0}")]
    Encode(String),
    #[error("no conversation {0}")]
    Unknown(String),
    #[error(transparent)]
    Transition(#[from] TransitionError),
}

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
const CURRENT_TAIL_TURNS: usize = 1_000;

/// Turns of the current conversation's file end kept in memory: five of the chat view's pages.
const RECENT_TURNS: usize = 200;
/// The most of it kept: past this the view reads the file.
const RECENT_MAX_BYTES: usize = 1024 * 1024;

/// The end of the current conversation's file, from a turn's start: the chat view's newest pages
/// are read from it instead of reading the whole file again (issue 19: opening a conversation of
/// 20,000 messages read its 4 MB twice). Kept in step with each append; checked against the
/// file's size before use, so a file changed by anyone else is read again.
#[derive(Debug)]
struct TailText {
    /// Where `text` begins in the file.
    start: usize,
    text: String,
    /// Turns appended since the text was last cut back.
    appended: usize,
}

impl TailText {
    /// The newest turns of a whole file's text, if they fit.
    fn of(text: &str) -> Option<Self> {
        let start = page_start(text, text.len(), RECENT_TURNS).unwrap_or(0);
        (text.len() - start <= RECENT_MAX_BYTES).then(|| TailText {
            start,
            text: text[start..].to_owned(),
            appended: 0,
        })
    }

    /// A new, empty file's.
    fn empty() -> Self {
        TailText { start: 0, text: String::new(), appended: 0 }
    }

    /// After a turn was appended: the text grows, and every [`RECENT_TURNS`] turns it is cut
    /// back to the newest [`RECENT_TURNS`] (one walk over them each time, not at every turn).
    fn appended(mut self, lines: &str) -> Option<Self> {
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
    fn file_len(&self) -> usize {
        self.start + self.text.len()
    }
}

/// What the current conversation has cost, added up from its file once and kept in step with
/// each append: the chat view asks after every answer, and a long conversation's file is
/// megabytes. Checked against the file's size before use, like [`TailText`].
#[derive(Debug)]
struct UsageSoFar {
    file_len: usize,
    total: Usage,
}

/// The current conversation, loaded: its newest turns' messages ready to send, what each of them
/// answered, and when it was last active.
#[derive(Debug)]
struct CurrentLog {
    id: String,
    context: ContextCache,
    recorded: HashMap<String, RecordedTurn>,
    last_activity_ms: Option<Millis>,
    /// The end of its file as last read or written, for the chat view's pages.
    recent: Option<TailText>,
    usage: Option<UsageSoFar>,
}

impl CurrentLog {
    fn new(id: String) -> Self {
        CurrentLog {
            id,
            context: ContextCache::new(),
            recorded: HashMap::new(),
            last_activity_ms: None,
            recent: None,
            usage: None,
        }
    }

    fn push(&mut self, turn: &Turn) {
        self.context.push_turn(turn);
        self.recorded.insert(turn.message_id().to_owned(), RecordedTurn::from(turn));
        if let Some(at) = turn.lines.last().and_then(|l| parse_iso(&l.ts)) {
            self.last_activity_ms = Some(at);
        }
    }
}

/// Conversation history on disk and the current conversation in memory.
#[derive(Debug, Default)]
pub(crate) struct ConversationStore {
    index: ConversationIndex,
    current: Option<CurrentLog>,
    /// The archive, once something needed it.
    archive: Option<Vec<Conversation>>,
    /// What the user should hear about damaged files met so far (the processor shows them).
    notices: Vec<String>,
}

/// Whether a conversation's file is still `len` bytes long: what the store keeps in memory of the
/// current one stands for that many, and a file changed by anyone else is read again.
async fn log_is_still<H: Host>(host: &H, id: &str, len: usize) -> bool {
    let size = host.file_size(&log_path(id)).await.ok().flatten().unwrap_or(0);
    usize::try_from(size).ok() == Some(len)
}

/// Reads a conversation's history. With `repair` (before appending to it), the file is made
/// safe to append to without losing a byte: one over the size limit is set aside (renamed) and
/// a new one begins; a torn tail is copied aside to `<id>.torn-<ms>.jsonl`, then cut; a last
/// line without its newline gets one. Lines this version cannot read stay as they are.
async fn load_log<H: Host>(
    host: &H,
    id: &str,
    repair: Option<&mut Vec<String>>,
    tail: Option<usize>,
) -> Result<(LoadedLog, Option<TailText>), StoreError> {
    let path = log_path(id);
    let text = match read_bounded(host, &path, MAX_LOG_BYTES).await? {
        Bounded::Missing => return Ok((LoadedLog::default(), None)),
        Bounded::Text(text) => text,
        Bounded::TooLarge(size) => {
            let reason = too_large(&path, size, MAX_LOG_BYTES);
            match repair {
                Some(notices) => {
                    let aside = set_aside(host, &path, "oversized", &reason).await?;
                    notices.push(format!(
                        "A conversation's history was too large to load ({reason}); it was set aside, unchanged, as .smarthole/{aside}, and the conversation goes on in a new file."
                    ));
                }
                None => host.log(LogLevel::Warn, &format!("{reason}: not read")),
            }
            return Ok((LoadedLog::default(), None));
        }
    };
    let log = match tail {
        Some(turns) => parse_tail(&text, turns),
        None => parse_log(&text),
    };
    for warning in &log.warnings {
        host.log(LogLevel::Warn, &format!("{path}: {warning}"));
    }
    // The file's end, kept for the chat view's pages, unless it is about to be repaired.
    let recent = (!log.torn(text.len()) && !log.needs_newline).then(|| TailText::of(&text)).flatten();
    let Some(notices) = repair else { return Ok((log, recent)) };
    if log.torn(text.len()) {
        let tail = &text[log.valid_len..];
        let aside = crate::bounded::aside_name(&path, "torn", host.now_ms());
        host.write_file_atomic(&aside, tail).await?;
        if text[..log.valid_len].contains('\u{FFFD}') {
            // The host may have replaced bytes that were not UTF-8 there: rewriting the file
            // would change them. The torn line is ended instead, and stays as an unreadable line.
            host.append_file(&path, "\n").await?;
        } else {
            host.write_file_atomic(&path, &text[..log.valid_len]).await?;
        }
        host.log(
            LogLevel::Info,
            &format!("{path}: torn tail copied to {aside} and cut back to its last complete turn"),
        );
    } else if log.needs_newline {
        host.append_file(&path, "\n").await?;
    }
    if log.unreadable > 0 {
        notices.push(format!(
            "{} in a conversation's history could not be read by this version; kept unchanged in .smarthole/{path}.",
            lines_phrase(log.unreadable)
        ));
    }
    Ok((log, recent))
}

/// "1 line" / "3 lines".
fn lines_phrase(n: usize) -> String {
    if n == 1 {
        "1 line".to_owned()
    } else {
        format!("{n} lines")
    }
}

/// Reads a conversation's turns (no repair).
async fn load_turns<H: Host>(host: &H, id: &str) -> Result<Vec<Turn>, StoreError> {
    Ok(load_log(host, id, None, None).await?.0.turns)
}

/// Reads the index: entry by entry, a bad entry set aside in the quarantine file (appended
/// first, so it is on disk before the index is written without it); a file that is too large or
/// not a JSON object is set aside whole and a new index begins.
async fn read_index<H: Host>(host: &H, notices: &mut Vec<String>) -> Result<ConversationIndex, StoreError> {
    let text = match read_bounded(host, INDEX_PATH, MAX_INDEX_BYTES).await? {
        Bounded::Missing => return Ok(ConversationIndex::default()),
        Bounded::Text(text) => text,
        Bounded::TooLarge(size) => {
            let reason = too_large(INDEX_PATH, size, MAX_INDEX_BYTES);
            let aside = set_aside(host, INDEX_PATH, "oversized", &reason).await?;
            notices.push(format!(
                "The conversation index was too large to load ({reason}); it was set aside, unchanged, as .smarthole/{aside}, and a new one begins. The conversations' histories are all kept."
            ));
            return Ok(ConversationIndex::default());
        }
    };
    let (index, quarantined) = match parse_index(&text) {
        Ok(read) => read,
        Err(e) => {
            let aside = set_aside(host, INDEX_PATH, "unreadable", &e).await?;
            notices.push(format!(
                "The conversation index could not be read ({e}); it was set aside, unchanged, as .smarthole/{aside}, and a new one begins. The conversations' histories are all kept."
            ));
            return Ok(ConversationIndex::default());
        }
    };
    if quarantined.is_empty() {
        return Ok(index);
    }
    let mut lines = String::new();
    let at = format_iso(host.now_ms());
    for Quarantined { raw, reason } in &quarantined {
        host.log(LogLevel::Warn, &format!("{INDEX_PATH}: entry set aside in {QUARANTINE_PATH}: {reason}"));
        let record = serde_json::json!({ "from": INDEX_PATH, "reason": reason, "at": at, "raw": raw });
        lines.push_str(&record.to_string());
        lines.push('\n');
    }
    host.append_file(QUARANTINE_PATH, &lines).await?;
    let text = serde_json::to_string(&index).map_err(|e| StoreError::Encode(e.to_string()))?;
    host.write_file_atomic(INDEX_PATH, &text).await?;
    let entries = if quarantined.len() == 1 { "1 entry".to_owned() } else { format!("{} entries", quarantined.len()) };
    notices.push(format!(
        "{entries} of the conversation index could not be read and {} set aside in .smarthole/{QUARANTINE_PATH} ({}); every other conversation is kept.",
        if quarantined.len() == 1 { "was" } else { "were" },
        quarantined[0].reason
    ));
    Ok(index)
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
    async fn recover_unlisted<H: Host>(&mut self, host: &H) -> Result<(), StoreError> {
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

    /// The archive, read once.
    async fn archive<H: Host>(&mut self, host: &H) -> Result<&mut Vec<Conversation>, StoreError> {
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
    async fn append_archive<H: Host>(&mut self, host: &H, conversations: &[Conversation]) -> Result<(), StoreError> {
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

    /// Lets the current conversation's cache forget what no request within `budget` tokens can
    /// include any more (twice the budget is kept, so a larger budget still finds some).
    pub(crate) fn forget_unsendable(&mut self, budget: usize) {
        if let Some(current) = self.current.as_mut() {
            current.context.forget_beyond(budget.saturating_mul(2));
        }
    }

    /// A conversation for the model: its newest whole turns within `budget` tokens — the
    /// current one's from memory, another's (a scheduled run in a background conversation) read
    /// from its file.
    pub(crate) async fn history<H: Host>(
        &self,
        host: &H,
        target: &Target,
        budget: usize,
    ) -> Result<MessagesJson, StoreError> {
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
                load_log(host, id, Some(&mut self.notices), Some(1)).await?;
                host.append_file(&log_path(id), &encode_lines(&lines)?).await?;
                Ok(())
            }
            _ => self.append_to_current(host, lines).await,
        }
    }

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
    async fn recent_page<H: Host>(
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
        // A page reaching the start of the kept text may go on before it: the file says.
        let start = page.before?;
        let lines = page.turns.into_iter().flat_map(|t| t.lines).collect();
        Some((lines, page.unreadable, Some(start + recent.start)))
    }

    /// Appends a turn to the current conversation (opening one if none is), in one write.
    async fn append_to_current<H: Host>(&mut self, host: &H, lines: Vec<HistoryLine>) -> Result<(), StoreError> {
        if lines.last().and_then(|l| l.turn.as_ref()).is_none() {
            return Err(StoreError::Encode("a turn must end with its closing line".to_owned()));
        }
        let id = match self.current.as_ref() {
            Some(c) => c.id.clone(),
            None => self.open_conversation(host, provisional_title(&lines)).await?,
        };
        let encoded = encode_lines(&lines)?;
        host.append_file(&log_path(&id), &encoded).await?;
        let untitled = self.index.get(&id).is_some_and(|c| c.title.is_none());
        let title = if untitled { provisional_title(&lines) } else { None };
        if let Some(current) = &mut self.current {
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

    /// The current conversation's id, opening one (untitled until its first turn) if there is
    /// none — for what must belong to a conversation before its first turn is recorded.
    pub(crate) async fn current_or_open<H: Host>(&mut self, host: &H) -> Result<String, StoreError> {
        match self.current.as_ref() {
            Some(c) => Ok(c.id.clone()),
            None => self.open_conversation(host, None).await,
        }
    }

    async fn open_conversation<H: Host>(&mut self, host: &H, title: Option<String>) -> Result<String, StoreError> {
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

    async fn write_index<H: Host>(&mut self, host: &H, index: ConversationIndex) -> Result<(), StoreError> {
        let text = serde_json::to_string(&index).map_err(|e| StoreError::Encode(e.to_string()))?;
        host.write_file_atomic(INDEX_PATH, &text).await?;
        self.index = index;
        Ok(())
    }
}

/// Lines as JSONL text.
fn encode_lines(lines: &[HistoryLine]) -> Result<String, StoreError> {
    let mut text = String::new();
    for line in lines {
        text.push_str(&serde_json::to_string(line).map_err(|e| StoreError::Encode(e.to_string()))?);
        text.push('\n');
    }
    Ok(text)
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
