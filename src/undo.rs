//! Undo of a turn's changes to the notes. Every change a note tool applies (edit, overwrite,
//! create, move, delete to the trash) is appended, with what reverses it, to
//! `undo/<file stem of the message id>.jsonl` before the tool answers, so it survives a restart.
//! Undoing a turn reverses its records newest first, each only when the note is still as the turn
//! left it (by the hash of its bytes; a move, only the file it moved): a note changed since is
//! refused, with the reason, never overwritten. The paths a journal names are held to the tools'
//! rules (protected folders, real locations), whoever wrote it. Records stay, marked undone, so a
//! reopened conversation redraws every diff and what became of it.

use std::cell::RefCell;
use std::rc::Rc;

use serde::{Deserialize, Serialize};

use crate::host::Host;
use crate::host_types::{HostError, LogLevel};
use crate::ids::file_stem;
use crate::settings::Settings;
use crate::vault::diff::{bytes_hash, content_hash, ChangeKind, ProposedChange, UndoRefusal, UndoReport};
use crate::vault::path::{normalize, protected_folders, PathError};
use crate::vault::real::{locate, Access};
use crate::vault::VaultEntry;

/// Where the journals are kept (under `.smarthole/`).
pub(crate) const UNDO_DIR: &str = "undo";
/// Largest journal read back: a turn may change a few large notes, each recorded whole.
const MAX_UNDO_BYTES: u64 = crate::bounded::MAX_LOG_BYTES;
/// Largest file a move records the hash of (read whole to hash it): undo moves back a larger one
/// only by hand, as it cannot check that it is what the agent moved.
pub(crate) const MAX_MOVE_CHECK_BYTES: u64 = 32 * 1024 * 1024;

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
    /// The hash of the content the change left (edit, overwrite, create), or of the bytes a
    /// move moved (undo moves back only those).
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
    if let Err(e) = crate::bounded::append_regular(host, &journal_path(message_id), &format!("{line}\n")).await {
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
/// (a record that could not be reversed stays as it was: a later undo may succeed). The journal
/// is a file anyone could have written: every path it names is held to the tools' path rules.
pub(crate) async fn undo_turn<H: Host>(host: &H, message_id: &str, settings: &Settings) -> UndoReport {
    let path = journal_path(message_id);
    let mut report = UndoReport { message_id: message_id.to_owned(), restored: Vec::new(), refused: Vec::new() };
    let mut all = match records(host, &path).await {
        Ok(all) => all,
        Err(e) => {
            report.refused.push(UndoRefusal { path, reason: format!("the undo journal could not be read: {e}") });
            return report;
        }
    };
    let protected = protected_folders(&host.config_folder(), &settings.protected_folders);
    let rules = Rules { protected, follow: settings.follow_linked_folders };
    for record in all.iter_mut().rev().filter(|r| !r.undone) {
        match reverse(host, record, &rules).await {
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

/// The path rules of the tools, as the settings make them.
struct Rules {
    protected: Vec<String>,
    follow: bool,
}

/// The vault as listed now (each check of a record looks again: undoing one record changes it).
async fn listing<H: Host>(host: &H, rules: &Rules) -> Result<Vec<VaultEntry>, String> {
    host.vault_list(rules.follow).await.map_err(|e| format!("the vault could not be listed: {e}"))
}

/// Refuses a path the tools could not have changed there: one `vault::path` refuses, or whose
/// real location (links followed, `vault::real`) is not the path itself.
fn allowed(path: &str, all: &[VaultEntry], rules: &Rules, access: Access) -> Result<(), String> {
    let refused = |e: PathError| format!("undo may not touch it: {e}");
    let normal = normalize(path, &rules.protected).map_err(refused)?;
    let real = locate(&normal, all, &rules.protected, access, rules.follow).map_err(refused)?;
    if real != path {
        return Err(format!("undo may not touch it: its real location is {real}, not where the journal says"));
    }
    Ok(())
}

/// Whether a vault path names an existing entry.
fn exists(all: &[VaultEntry], path: &str) -> bool {
    all.iter().any(|e| e.path == path)
}

/// The hash of a file's exact bytes now.
async fn hash_now<H: Host>(host: &H, path: &str) -> Result<String, String> {
    let bytes = host.vault_read_bytes(path).await.map_err(|e| format!("it could not be read: {e}"))?;
    Ok(bytes_hash(&bytes))
}

/// Whether a note's bytes are still the text whose hash the turn recorded: valid UTF-8 (a host's
/// text of other bytes is a lossy decoding, never compared), with or without a byte order mark
/// (a host may leave it out of the text it edits and writes back).
async fn still_left<H: Host>(host: &H, path: &str, hash: &str) -> Result<bool, String> {
    let bytes = host.vault_read_bytes(path).await.map_err(|e| format!("it could not be read: {e}"))?;
    let Ok(text) = String::from_utf8(bytes) else { return Ok(false) };
    Ok(content_hash(&text) == hash || text.strip_prefix('\u{feff}').is_some_and(|t| content_hash(t) == hash))
}

async fn reverse<H: Host>(host: &H, record: &UndoRecord, rules: &Rules) -> Result<(), String> {
    let changed = "it has changed since the turn changed it".to_owned();
    let path = &record.change.path;
    let all = listing(host, rules).await?;
    let access = match record.change.kind {
        ChangeKind::Create | ChangeKind::Move => Access::Entry,
        ChangeKind::Edit | ChangeKind::Overwrite | ChangeKind::Delete => Access::Write,
    };
    // A move is undone by moving its target back to its path: the path is created again.
    allowed(path, &all, rules, if record.change.kind == ChangeKind::Move { Access::Write } else { access })?;
    match record.change.kind {
        ChangeKind::Edit | ChangeKind::Overwrite => {
            let (Some(before), Some(after)) = (record.before.clone(), record.after_hash.clone()) else {
                return Err("the journal lacks its content before".to_owned());
            };
            // Its exact bytes first (a host may decode a note lossily), then atomically its text.
            if !still_left(host, path, &after).await? {
                return Err(changed);
            }
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
            let Some(after) = &record.after_hash else { return Err("the journal lacks its content after".to_owned()) };
            if !still_left(host, path, after).await? {
                return Err(changed);
            }
            host.vault_trash(path).await.map_err(|e| format!("it could not be deleted: {e}"))
        }
        ChangeKind::Move => {
            let Some(to) = &record.change.to else { return Err("the journal lacks where it was moved".to_owned()) };
            allowed(to, &all, rules, access)?;
            let Some(now) = all.iter().find(|e| e.path == *to && !e.is_folder) else {
                return Err(format!("{to} is no longer there"));
            };
            if exists(&all, path) {
                return Err(format!("{} exists again", path));
            }
            let Some(moved) = &record.after_hash else {
                return Err(format!(
                    "undo cannot check that {to} is the note the agent moved (too large to check, or recorded by an \
older version); move it back yourself if it is"
                ));
            };
            if now.size > MAX_MOVE_CHECK_BYTES || hash_now(host, to).await? != *moved {
                return Err(format!("{to} is not the note the agent moved (changed since, or another one put there)"));
            }
            host.vault_rename(to, path).await.map_err(|e| format!("it could not be moved back: {e}"))
        }
        ChangeKind::Delete => {
            let Some(before) = &record.before else {
                return Err(
                    "the journal holds no copy of its text (not a UTF-8 note): restore it from the trash".to_owned()
                );
            };
            if exists(&all, path) {
                return Err(format!("{} exists again", path));
            }
            host.vault_create(path, before).await.map_err(|e| format!("it could not be recreated: {e}"))
        }
    }
}
