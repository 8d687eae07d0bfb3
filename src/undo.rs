//! Undo of a turn's changes to the notes. Every change a note tool applies (edit, overwrite,
//! create, move, delete to the trash) is appended, with what reverses it, to
//! `undo/<file stem of the message id>.jsonl` before the tool answers, so it survives a restart.
//! Undoing a turn reverses its records newest first, each only when the note is still as the turn
//! left it (by hash): a note changed since is refused, with the reason, never overwritten.

use std::cell::RefCell;
use std::rc::Rc;

use serde::{Deserialize, Serialize};

use crate::host::Host;
use crate::host_types::LogLevel;
use crate::ids::file_stem;
use crate::vault::diff::{content_hash, ChangeKind, UndoRefusal, UndoReport};

/// Where the journals are kept (under `.smarthole/`).
pub(crate) const UNDO_DIR: &str = "undo";
/// Largest journal read back: a turn may change a few large notes, each recorded whole.
const MAX_UNDO_BYTES: u64 = crate::bounded::MAX_LOG_BYTES;

/// One applied change and what reverses it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct UndoRecord {
    pub kind: ChangeKind,
    pub path: String,
    /// A move's new path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    /// The content before (edit, overwrite, and a delete of a text note).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
    /// The hash of the content the change left (edit, overwrite, create).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_hash: Option<String>,
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
        host.log(LogLevel::Warn, &format!("could not record the undo of {}: {e}", record.path));
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

/// Reverses a turn's changes, newest first. Records that could not be reversed stay in the
/// journal (a later undo may succeed); the journal goes once all are.
pub(crate) async fn undo_turn<H: Host>(host: &H, message_id: &str) -> UndoReport {
    let path = journal_path(message_id);
    let mut report = UndoReport { message_id: message_id.to_owned(), restored: Vec::new(), refused: Vec::new() };
    let all = match records(host, &path).await {
        Ok(all) => all,
        Err(e) => {
            report.refused.push(UndoRefusal { path, reason: format!("the undo journal could not be read: {e}") });
            return report;
        }
    };
    let mut kept = Vec::new();
    for record in all.into_iter().rev() {
        match reverse(host, &record).await {
            Ok(()) => report.restored.push(record.path.clone()),
            Err(reason) => {
                report.refused.push(UndoRefusal { path: record.path.clone(), reason });
                kept.push(record);
            }
        }
    }
    kept.reverse();
    let left: String = kept.iter().filter_map(|r| serde_json::to_string(r).ok()).map(|l| l + "\n").collect();
    let saved =
        if left.is_empty() { host.remove_file(&path).await } else { host.write_file_atomic(&path, &left).await };
    if let Err(e) = saved {
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
    match record.kind {
        ChangeKind::Edit | ChangeKind::Overwrite => {
            let (Some(before), Some(after)) = (record.before.clone(), record.after_hash.clone()) else {
                return Err("the journal lacks its content before".to_owned());
            };
            let moved_on = Rc::new(RefCell::new(false));
            let seen = Rc::clone(&moved_on);
            host.vault_process(
                &record.path,
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
            let text = host.vault_read(&record.path).await.map_err(|e| format!("it could not be read: {e}"))?;
            if record.after_hash.as_deref() != Some(content_hash(&text).as_str()) {
                return Err(changed);
            }
            host.vault_trash(&record.path).await.map_err(|e| format!("it could not be deleted: {e}"))
        }
        ChangeKind::Move => {
            let Some(to) = &record.to else { return Err("the journal lacks where it was moved".to_owned()) };
            if !exists(host, to).await? {
                return Err(format!("{to} is no longer there"));
            }
            if exists(host, &record.path).await? {
                return Err(format!("{} exists again", record.path));
            }
            host.vault_rename(to, &record.path).await.map_err(|e| format!("it could not be moved back: {e}"))
        }
        ChangeKind::Delete => {
            let Some(before) = &record.before else {
                return Err("it was not a text note: restore it from the trash".to_owned());
            };
            if exists(host, &record.path).await? {
                return Err(format!("{} exists again", record.path));
            }
            host.vault_create(&record.path, before).await.map_err(|e| format!("it could not be recreated: {e}"))
        }
    }
}
