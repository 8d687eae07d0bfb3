//! Undo of a turn's changes to the notes. Every change a note tool applies (edit, overwrite,
//! create, move, delete to the trash) is appended, with what reverses it, to
//! `undo/<file stem of the message id>.jsonl` before the tool answers, so it survives a restart.
//! Undoing a turn reverses its records newest first, each only when the note is still as the turn
//! left it (by hash): a note changed since is refused, with the reason, never overwritten. Records
//! stay, marked undone, so a reopened conversation redraws every diff and what became of it.

use std::cell::RefCell;
use std::rc::Rc;

use serde::{Deserialize, Serialize};

use crate::host::Host;
use crate::host_types::{HostError, LogLevel};
use crate::ids::file_stem;
use crate::vault::diff::{content_hash, ChangeKind, ProposedChange, UndoRefusal, UndoReport};

/// Where the journals are kept (under `.smarthole/`).
pub(crate) const UNDO_DIR: &str = "undo";
/// Largest journal read back: a turn may change a few large notes, each recorded whole.
const MAX_UNDO_BYTES: u64 = crate::bounded::MAX_LOG_BYTES;

/// After Clear history: the records of turns that are gone with their conversations (those of a
/// message still in the inbox stay: its turn may resume and finish). Returns how many went.
pub(crate) async fn remove_cleared<H: Host>(host: &H) -> Result<usize, HostError> {
    use crate::inbox::{ENTRY_SUFFIX, INBOX_DIR};
    let waiting = host.list_dir(INBOX_DIR).await?;
    let mut removed = 0;
    for name in host.list_dir(UNDO_DIR).await? {
        let stem = name.strip_suffix(".jsonl").unwrap_or(&name);
        if waiting.iter().any(|w| w.strip_suffix(ENTRY_SUFFIX) == Some(stem)) {
            continue;
        }
        host.remove_file(&format!("{UNDO_DIR}/{name}")).await?;
        removed += 1;
    }
    Ok(removed)
}

/// One applied change and what reverses it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct UndoRecord {
    /// The change as shown (its kind, path, a move's new path, the diff).
    pub change: ProposedChange,
    /// The hunks applied (all of them unless the user picked some; none for a move).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub applied_hunks: Vec<usize>,
    /// The content before (edit, overwrite, and a delete of a text note).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
    /// The hash of the content the change left (edit, overwrite, create).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_hash: Option<String>,
    /// The tool call that made it: the chat view draws the diff at its chip.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub tool_use_id: String,
    /// Reversed by an undo: kept so a reopened conversation still shows what happened.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub undone: bool,
}

/// A change a turn applied, as the chat view redraws it when a conversation is reopened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AppliedChange {
    pub tool_use_id: String,
    pub change: ProposedChange,
    pub applied_hunks: Vec<usize>,
    pub undone: bool,
}

fn journal_path(message_id: &str) -> String {
    format!("{UNDO_DIR}/{}.jsonl", file_stem(message_id))
}

/// Records an applied change. A failure is logged: the change stands, only its undo is lost.
pub(crate) async fn record<H: Host>(host: &H, message_id: &str, record: &UndoRecord) {
    let line = match serde_json::to_string(record) {
        Ok(line) => line,
        Err(e) => return host.log(LogLevel::Warn, &format!("could not record an undo step: {e}")),
    };
    if let Err(e) = host.append_file(&journal_path(message_id), &format!("{line}\n")).await {
        host.log(LogLevel::Warn, &format!("could not record the undo of {}: {e}", record.change.path));
    }
}

/// The records of a turn, oldest first (unreadable lines skipped and logged).
async fn records<H: Host>(host: &H, path: &str) -> Result<Vec<UndoRecord>, String> {
    let text = crate::bounded::read_within(host, path, MAX_UNDO_BYTES).await.map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for line in text.unwrap_or_default().lines().filter(|l| !l.trim().is_empty()) {
        match serde_json::from_str(line) {
            Ok(record) => out.push(record),
            Err(e) => host.log(LogLevel::Warn, &format!("ignoring an unreadable line of {path}: {e}")),
        }
    }
    Ok(out)
}

/// The changes a turn applied, oldest first (none when its journal is gone or unreadable).
pub(crate) async fn applied_changes<H: Host>(host: &H, message_id: &str) -> Vec<AppliedChange> {
    let all = records(host, &journal_path(message_id)).await.unwrap_or_else(|e| {
        host.log(LogLevel::Warn, &format!("could not read the undo journal of {message_id}: {e}"));
        Vec::new()
    });
    all.into_iter()
        .map(|r| AppliedChange {
            tool_use_id: r.tool_use_id,
            change: r.change,
            applied_hunks: r.applied_hunks,
            undone: r.undone,
        })
        .collect()
}

/// Reverses a turn's changes not undone yet, newest first. Each reversed record is marked undone
/// (a record that could not be reversed stays as it was: a later undo may succeed).
pub(crate) async fn undo_turn<H: Host>(host: &H, message_id: &str) -> UndoReport {
    let path = journal_path(message_id);
    let mut report = UndoReport { message_id: message_id.to_owned(), restored: Vec::new(), refused: Vec::new() };
    let mut all = match records(host, &path).await {
        Ok(all) => all,
        Err(e) => {
            report.refused.push(UndoRefusal { path, reason: format!("the undo journal could not be read: {e}") });
            return report;
        }
    };
    for record in all.iter_mut().rev().filter(|r| !r.undone) {
        match reverse(host, record).await {
            Ok(()) => {
                record.undone = true;
                report.restored.push(record.change.path.clone());
            }
            Err(reason) => report.refused.push(UndoRefusal { path: record.change.path.clone(), reason }),
        }
    }
    if report.restored.is_empty() {
        return report;
    }
    let text: String = all.iter().filter_map(|r| serde_json::to_string(r).ok()).map(|l| l + "\n").collect();
    if let Err(e) = host.write_file_atomic(&path, &text).await {
        host.log(LogLevel::Warn, &format!("could not update {path}: {e}"));
    }
    report
}

/// Whether a vault path names an existing file.
async fn exists<H: Host>(host: &H, path: &str) -> Result<bool, String> {
    let all = host.vault_list(true).await.map_err(|e| format!("the vault could not be listed: {e}"))?;
    Ok(all.iter().any(|e| e.path == path))
}

async fn reverse<H: Host>(host: &H, record: &UndoRecord) -> Result<(), String> {
    let changed = "it has changed since the turn changed it".to_owned();
    let path = &record.change.path;
    match record.change.kind {
        ChangeKind::Edit | ChangeKind::Overwrite => {
            let (Some(before), Some(after)) = (record.before.clone(), record.after_hash.clone()) else {
                return Err("the journal lacks its content before".to_owned());
            };
            let moved_on = Rc::new(RefCell::new(false));
            let seen = Rc::clone(&moved_on);
            host.vault_process(
                path,
                Box::new(move |text| {
                    if content_hash(text) == after {
                        Some(before.clone())
                    } else {
                        *seen.borrow_mut() = true;
                        None
                    }
                }),
            )
            .await
            .map_err(|e| format!("it could not be rewritten (moved or deleted since?): {e}"))?;
            if *moved_on.borrow() {
                return Err(changed);
            }
            Ok(())
        }
        ChangeKind::Create => {
            let text = host.vault_read(path).await.map_err(|e| format!("it could not be read: {e}"))?;
            if record.after_hash.as_deref() != Some(content_hash(&text).as_str()) {
                return Err(changed);
            }
            host.vault_trash(path).await.map_err(|e| format!("it could not be deleted: {e}"))
        }
        ChangeKind::Move => {
            let Some(to) = &record.change.to else { return Err("the journal lacks where it was moved".to_owned()) };
            if !exists(host, to).await? {
                return Err(format!("{to} is no longer there"));
            }
            if exists(host, path).await? {
                return Err(format!("{} exists again", path));
            }
            host.vault_rename(to, path).await.map_err(|e| format!("it could not be moved back: {e}"))
        }
        ChangeKind::Delete => {
            let Some(before) = &record.before else {
                return Err("it was not a text note: restore it from the trash".to_owned());
            };
            if exists(host, path).await? {
                return Err(format!("{} exists again", path));
            }
            host.vault_create(path, before).await.map_err(|e| format!("it could not be recreated: {e}"))
        }
    }
}
