//! The durable inbox: a message is written to `inbox/<id>.json` (atomically, or through a slot
//! made ready for it: slots.rs) before anything else happens and removed only after its result
//! is recorded. A message that keeps failing moves to `failed/` with its last error.

pub(crate) mod slots;

use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::bounded::{read_bounded, too_large, Bounded, MAX_INBOX_BYTES};
use crate::host::Host;
use crate::host_types::{HostError, Millis};
use crate::ids::{file_stem, unbounded_stem};
use crate::message::RoutedMessage;
use crate::time::format_iso;

/// Folder of pending messages.
pub(crate) const INBOX_DIR: &str = "inbox";
/// Folder of messages given up on.
pub(crate) const FAILED_DIR: &str = "failed";
/// Processing attempts before a message is given up on.
pub(crate) const MAX_ATTEMPTS: u32 = 5;
pub(crate) const ENTRY_SUFFIX: &str = ".json";
const JOURNAL_SUFFIX: &str = ".turn.jsonl";

/// A pending message with its bookkeeping.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct InboxEntry {
    pub message: RoutedMessage,
    /// Processing runs started, this one included.
    pub attempts: u32,
    /// Runs that ended in a failure recorded here. The runs the turn journal saw begin and that
    /// did not end took the app down before they ended.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub failures: u32,
    pub received_at: Millis,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_error_code: Option<String>,
}

impl InboxEntry {
    /// A message just arrived, about to be processed for the first time.
    pub(crate) fn new(message: RoutedMessage, received_at: Millis) -> Self {
        InboxEntry { message, attempts: 1, failures: 0, received_at, last_error: None, last_error_code: None }
    }
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// Runs of a message that may take the app down before it is set aside: a message whose
/// processing crashed the core (an answer that never ends, a bug) would otherwise be replayed
/// into the same crash at every start.
pub(crate) const MAX_CRASHED_RUNS: u32 = 2;

/// Path of a message's inbox file.
pub(crate) fn entry_path(message_id: &str) -> String {
    format!("{INBOX_DIR}/{}{ENTRY_SUFFIX}", file_stem(message_id))
}

/// Path of a message's turn journal (the steps of a turn already taken, so a retry or a restart
/// never runs a tool twice).
pub(crate) fn journal_path(message_id: &str) -> String {
    format!("{INBOX_DIR}/{}{JOURNAL_SUFFIX}", file_stem(message_id))
}

/// Writes (or rewrites) a message's inbox file.
pub(crate) async fn save<H: Host>(host: &H, entry: &InboxEntry) -> Result<(), HostError> {
    let text = serde_json::to_string(entry).map_err(|e| HostError::Io(e.to_string()))?;
    host.write_file_atomic(&entry_path(&entry.message.id), &text).await
}

/// Removes a finished message: its entry first, then its journal, so a crash in between leaves
/// only an orphan journal (cleaned at start-up), never an entry without its journal.
pub(crate) async fn remove<H: Host>(host: &H, message_id: &str) -> Result<(), HostError> {
    host.remove_file(&entry_path(message_id)).await?;
    host.remove_file(&journal_path(message_id)).await
}

/// An inbox file found at start-up.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Pending {
    Entry(InboxEntry),
    /// A file that does not hold a readable entry.
    Corrupt {
        file: String,
        reason: String,
        raw: String,
    },
    /// A file over the size limit: never read (it would stop the start), moved to `failed/`
    /// whole with its reason beside it.
    Oversized {
        file: String,
        reason: String,
    },
}

/// Reads every pending message, oldest first. Removes leftovers of interrupted writes and
/// journals whose entry is gone.
pub(crate) async fn list_pending<H: Host>(host: &H) -> Result<Vec<Pending>, HostError> {
    let names = host.list_dir(INBOX_DIR).await?;
    let mut entries = Vec::new();
    let mut corrupt = Vec::new();
    for name in &names {
        let path = format!("{INBOX_DIR}/{name}");
        if let Some(stem) = name.strip_suffix(JOURNAL_SUFFIX) {
            if !names.iter().any(|n| n.strip_suffix(ENTRY_SUFFIX) == Some(stem)) {
                host.remove_file(&path).await?;
            }
            continue;
        }
        if name.starts_with('.') || name.contains(".tmp") {
            host.remove_file(&path).await?;
            continue;
        }
        if !name.ends_with(ENTRY_SUFFIX) {
            continue;
        }
        let raw = match read_bounded(host, &path, MAX_INBOX_BYTES).await? {
            Bounded::Missing => continue,
            Bounded::Text(raw) => raw,
            Bounded::TooLarge(size) => {
                corrupt
                    .push(Pending::Oversized { file: name.clone(), reason: too_large(&path, size, MAX_INBOX_BYTES) });
                continue;
            }
        };
        match serde_json::from_str::<InboxEntry>(&raw) {
            Ok(entry) if entry_path(&entry.message.id) == path => entries.push(entry),
            // Left by a version whose file names were not bounded: moved to today's name (its
            // journal with it), so a re-delivery of the id finds it.
            Ok(entry) if name.strip_suffix(ENTRY_SUFFIX) == Some(&unbounded_stem(&entry.message.id)[..]) => {
                let old_journal = format!("{INBOX_DIR}/{}{JOURNAL_SUFFIX}", unbounded_stem(&entry.message.id));
                if names.iter().any(|n| format!("{INBOX_DIR}/{n}") == old_journal) {
                    host.rename_file(&old_journal, &journal_path(&entry.message.id)).await?;
                }
                host.rename_file(&path, &entry_path(&entry.message.id)).await?;
                entries.push(entry);
            }
            Ok(entry) => corrupt.push(Pending::Corrupt {
                file: name.clone(),
                reason: format!("the file name does not match the message id {:?}", entry.message.id),
                raw,
            }),
            Err(e) => corrupt.push(Pending::Corrupt {
                file: name.clone(),
                reason: format!("unreadable inbox file: {e}"),
                raw,
            }),
        }
    }
    crate::lean::sort_by(&mut entries, |a, b| (a.received_at, &a.message.id).cmp(&(b.received_at, &b.message.id)));
    Ok(corrupt.into_iter().chain(entries.into_iter().map(Pending::Entry)).collect())
}

/// Moves a message to `failed/` with the reason, then removes it (and its journal) from the
/// inbox. `file` is the inbox file name.
pub(crate) async fn move_to_failed<H: Host>(
    host: &H,
    file: &str,
    entry: Option<&InboxEntry>,
    raw: Option<&str>,
    reason: &str,
) -> Result<String, HostError> {
    let record = json!({
        "error": reason,
        "failedAt": format_iso(host.now_ms()),
        "entry": entry,
        "raw": raw,
    });
    let target = format!("{FAILED_DIR}/{file}");
    host.write_file_atomic(&target, &record.to_string()).await?;
    host.remove_file(&format!("{INBOX_DIR}/{file}")).await?;
    if let Some(stem) = file.strip_suffix(ENTRY_SUFFIX) {
        host.remove_file(&format!("{INBOX_DIR}/{stem}{JOURNAL_SUFFIX}")).await?;
    }
    Ok(target)
}

/// Moves an inbox file too large to read to `failed/` as it is (renamed, never loaded), with
/// `failed/<file>.reason.json` saying why. Returns the new path.
pub(crate) async fn move_oversized_to_failed<H: Host>(host: &H, file: &str, reason: &str) -> Result<String, HostError> {
    let record = json!({ "error": reason, "failedAt": format_iso(host.now_ms()), "file": file });
    host.write_file_atomic(&format!("{FAILED_DIR}/{file}.reason.json"), &record.to_string()).await?;
    let target = format!("{FAILED_DIR}/{file}");
    host.rename_file(&format!("{INBOX_DIR}/{file}"), &target).await?;
    if let Some(stem) = file.strip_suffix(ENTRY_SUFFIX) {
        host.remove_file(&format!("{INBOX_DIR}/{stem}{JOURNAL_SUFFIX}")).await?;
    }
    Ok(target)
}

/// Reads one message's inbox entry (bounded); `None` when it is missing, too large or
/// unreadable (start-up's [`list_pending`] sets such files aside).
pub(crate) async fn load<H: Host>(host: &H, message_id: &str) -> Option<InboxEntry> {
    match read_bounded(host, &entry_path(message_id), MAX_INBOX_BYTES).await.ok()? {
        Bounded::Text(text) => serde_json::from_str(&text).ok(),
        Bounded::Missing | Bounded::TooLarge(_) => None,
    }
}

/// The inbox file name of a message.
pub(crate) fn entry_file_name(message_id: &str) -> String {
    format!("{}{ENTRY_SUFFIX}", file_stem(message_id))
}
