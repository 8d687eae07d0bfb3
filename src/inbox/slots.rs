//! Slots: empty inbox files made durable ahead of time, so that a new message's entry costs one
//! flush to disk instead of two (issue 37: the inbox entry's write was most of a message's
//! overhead). A new file is durable only once its folder is flushed too; an entry appended to a
//! file that already is durable needs its own flush alone. It is then renamed to the entry's name,
//! with no flush: a crash before the rename reaches the disk leaves the entry in its slot, and
//! start-up ([`recover`]) renames it then, before any message arrives.

use super::{entry_path, move_oversized_to_failed, InboxEntry, ENTRY_SUFFIX, INBOX_DIR};
use crate::bounded::{read_bounded, too_large, Bounded, MAX_INBOX_BYTES};
use crate::host::Host;
use crate::host_types::HostError;
use crate::ids::file_stem;

/// A slot's file name ends so (never `.json`: a slot is no entry until it holds one).
pub(crate) const SLOT_SUFFIX: &str = ".slot";
/// Slots kept ready: a burst of messages beyond them is saved the two-flush way.
pub(crate) const SLOTS_READY: usize = 4;

/// A new slot's path, unique by the host's randomness.
pub(crate) fn new_slot_path<H: Host>(host: &H) -> String {
    format!("{INBOX_DIR}/{:016x}{SLOT_SUFFIX}", host.random_u64())
}

/// Makes a slot: an empty file, durable (written atomically: flushed with its folder).
pub(crate) async fn make<H: Host>(host: &H, path: &str) -> Result<(), HostError> {
    host.write_file_atomic(path, "").await
}

/// Saves a new message's entry into a ready slot: appended (one flush), then renamed to the
/// entry's name. A slot that failed is removed (it may hold part of an entry), and the message is
/// refused by the caller as when any save fails.
pub(crate) async fn save_into<H: Host>(host: &H, slot: &str, entry: &InboxEntry) -> Result<(), HostError> {
    let text = serde_json::to_string(entry).map_err(|e| HostError::Io(e.to_string()))?;
    let saved = match host.append_file(slot, &text).await {
        Ok(()) => host.rename_file(slot, &entry_path(&entry.message.id)).await,
        Err(e) => Err(e),
    };
    if saved.is_err() {
        let _ = host.remove_file(slot).await;
    }
    saved
}

/// What start-up found in the slots.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Recovered {
    /// Empty slots, ready for new messages.
    pub(crate) ready: Vec<String>,
    /// Stems of the entries found in slots and renamed to their names: pending messages.
    pub(crate) entries: Vec<String>,
}

/// Start-up's look at the slots in the inbox (`names`: its file names), before any message
/// arrives (a re-delivery must find what a slot kept): an empty one is ready; one holding an
/// entry (the crash came before its rename was on disk) is renamed to the entry's name; one
/// holding less than an entry (the crash came in its write, which was never acknowledged) is
/// removed; one too large to read goes to `failed/` as an oversized inbox file does.
pub(crate) async fn recover<H: Host>(host: &H, names: &[String]) -> Result<Recovered, HostError> {
    let mut found = Recovered::default();
    for name in names.iter().filter(|n| n.ends_with(SLOT_SUFFIX)) {
        let path = format!("{INBOX_DIR}/{name}");
        // The usual case, told by its size alone: a start costs one look a slot.
        if matches!(host.file_size(&path).await, Ok(Some(0))) {
            found.ready.push(path);
            continue;
        }
        let text = match read_bounded(host, &path, MAX_INBOX_BYTES).await? {
            Bounded::Missing => continue,
            Bounded::TooLarge(size) => {
                move_oversized_to_failed(host, name, &too_large(&path, size, MAX_INBOX_BYTES)).await?;
                continue;
            }
            Bounded::Text(text) => text,
        };
        if text.is_empty() {
            found.ready.push(path);
            continue;
        }
        match serde_json::from_str::<InboxEntry>(&text) {
            Ok(entry) if !names.iter().any(|n| n.strip_suffix(ENTRY_SUFFIX) == Some(&file_stem(&entry.message.id))) => {
                host.rename_file(&path, &entry_path(&entry.message.id)).await?;
                found.entries.push(file_stem(&entry.message.id));
            }
            // Its entry already has its name (written later than the slot): the slot is stale.
            Ok(_) | Err(_) => host.remove_file(&path).await?,
        }
    }
    Ok(found)
}
