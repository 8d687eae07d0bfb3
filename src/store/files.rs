//! The store's files as read and written: a conversation's history (repaired before appending:
//! an oversized file set aside, a torn tail copied aside and cut, a missing newline added), the
//! index entry by entry (a bad entry quarantined, a damaged file set aside whole), and turns
//! encoded as JSONL lines.

use super::current::TailText;
use super::error::StoreError;
use crate::bounded::{read_bounded, set_aside, too_large, Bounded, MAX_INDEX_BYTES, MAX_LOG_BYTES};

use crate::conversation::context_edit::ContextBase;
use crate::conversation::line::{HistoryLine, Turn};
use crate::conversation::log::{parse_log, parse_tail, LoadedLog};
use crate::conversation::metadata::{
    log_path, parse_index, ConversationIndex, Quarantined, INDEX_PATH, QUARANTINE_PATH,
};
use crate::conversation::stored_line::StoredLine;
use crate::host::Host;
use crate::host_types::LogLevel;
use crate::time::format_iso;

/// Whether a conversation's file is still `len` bytes long: what the store keeps in memory of the
/// current one stands for that many, and a file changed by anyone else is read again.
pub(super) async fn log_is_still<H: Host>(host: &H, id: &str, len: usize) -> bool {
    let size = host.file_size(&log_path(id)).await.ok().flatten().unwrap_or(0);
    usize::try_from(size).ok() == Some(len)
}

/// Reads a conversation's history. With `repair` (before appending to it), the file is made
/// safe to append to without losing a byte: one over the size limit is set aside (renamed) and
/// a new one begins; a torn tail is copied aside to `<id>.torn-<ms>.jsonl`, then cut; a last
/// line without its newline gets one. Lines this version cannot read stay as they are.
pub(super) async fn load_log<H: Host>(
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
pub(super) fn lines_phrase(n: usize) -> String {
    if n == 1 {
        "1 line".to_owned()
    } else {
        format!("{n} lines")
    }
}

/// Reads a conversation's turns (no repair).
pub(super) async fn load_turns<H: Host>(host: &H, id: &str) -> Result<Vec<Turn>, StoreError> {
    Ok(load_log(host, id, None, None).await?.0.turns)
}

/// Reads the index: entry by entry, a bad entry set aside in the quarantine file (appended
/// first, so it is on disk before the index is written without it); a file that is too large or
/// not a JSON object is set aside whole and a new index begins.
pub(super) async fn read_index<H: Host>(host: &H, notices: &mut Vec<String>) -> Result<ConversationIndex, StoreError> {
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

/// Lines as JSONL text in their stored form (`conversation::stored_line`), each user line's
/// context stored as an edit of `base` where that is shorter (`base` goes on with the lines;
/// `None` writes the next context in full).
pub(super) fn encode_lines(lines: &[HistoryLine], base: &mut Option<ContextBase>) -> Result<String, StoreError> {
    let mut text = String::new();
    for (n, line) in lines.iter().enumerate() {
        let edit = line.context.as_deref().and_then(|context| ContextBase::store(base, context));
        // The first line of this line's turn in this append, when it is an earlier one.
        let first = lines[..n].iter().rev().take_while(|l| l.message_id == line.message_id).last();
        let stored = serde_json::to_string(&StoredLine::of(line, edit.as_ref(), first));
        text.push_str(&stored.map_err(|e| StoreError::Encode(e.to_string()))?);
        text.push('\n');
    }
    Ok(text)
}
