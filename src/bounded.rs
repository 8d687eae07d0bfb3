//! Reading `.smarthole/` within a bound. Every file the core keeps there is asked for its size
//! before it is read, so a huge file (a sync tool's leftover, a runaway writer) is set aside
//! instead of loaded: it can never stop the start or exhaust memory (DESIGN.md §4, "damaged
//! files never cost data": the bytes are kept, under a name that says why). What is not a regular
//! file (a FIFO, socket, device or folder where a file should be) is never opened: the host says
//! so when asked its size, and it is set aside the same way.

use crate::host::Host;
use crate::host_types::{HostError, LogLevel};

/// The largest inbox entry read: a message is at most 100 000 characters, so a bigger entry was
/// not written by this plugin.
pub const MAX_INBOX_BYTES: u64 = 8 * 1024 * 1024;
/// The largest index read (metadata only: a few KB per conversation).
pub const MAX_INDEX_BYTES: u64 = 16 * 1024 * 1024;
/// The largest history, archive or journal file read.
pub const MAX_LOG_BYTES: u64 = 64 * 1024 * 1024;
/// The largest small record read (approvals, retrospection).
pub(crate) const MAX_RECORD_BYTES: u64 = 16 * 1024 * 1024;

/// What a bounded read found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Bounded {
    /// No such file.
    Missing,
    /// The file's text.
    Text(String),
    /// The file is over the bound: not read. Its size in bytes.
    TooLarge(u64),
}

/// Reads a file of `.smarthole/` unless it is larger than `limit` bytes. One that is not a regular
/// file (a FIFO would block the read for good) is never opened: it is set aside, with a warning,
/// and reads as missing.
pub(crate) async fn read_bounded<H: Host>(host: &H, path: &str, limit: u64) -> Result<Bounded, HostError> {
    match regular(host, path, host.file_size(path).await).await? {
        None => return Ok(Bounded::Missing),
        Some(size) if size > limit => return Ok(Bounded::TooLarge(size)),
        Some(_) => {}
    }
    Ok(match regular(host, path, host.read_file(path).await).await? {
        None => Bounded::Missing,
        // Grown past the bound between the two calls: treated as if it had been seen so.
        Some(text) if text.len() as u64 > limit => Bounded::TooLarge(text.len() as u64),
        Some(text) => Bounded::Text(text),
    })
}

/// A file of bytes of `.smarthole/` that must be exactly `size` bytes long (a persisted search
/// index piece, whose length its manifest records): `None` when it is missing or of another
/// size (then never read), or not a regular file (set aside, as [`read_bounded`] does).
pub(crate) async fn read_bytes_exactly<H: Host>(host: &H, path: &str, size: u64) -> Result<Option<Vec<u8>>, HostError> {
    if regular(host, path, host.file_size(path).await).await? != Some(size) {
        return Ok(None);
    }
    let bytes = regular(host, path, host.read_file_bytes(path).await).await?;
    Ok(bytes.filter(|b| b.len() as u64 == size))
}

/// A host's answer about a file, with a file that is not a regular one set aside and taken as
/// missing.
async fn regular<H: Host, T>(
    host: &H,
    path: &str,
    answer: Result<Option<T>, HostError>,
) -> Result<Option<T>, HostError> {
    match answer {
        Err(e @ HostError::NotAFile { .. }) => {
            set_aside(host, path, "not-a-file", &e.to_string()).await?;
            Ok(None)
        }
        other => other,
    }
}

/// Appends to a file of `.smarthole/`; one that is not a regular file is set aside first (with a
/// warning), so the text goes to a new regular file instead of failing or blocking on it.
pub(crate) async fn append_regular<H: Host>(host: &H, path: &str, text: &str) -> Result<(), HostError> {
    regular(host, path, host.file_size(path).await).await?;
    host.append_file(path, text).await
}

/// Reads a file that must fit in `limit` bytes; a larger one is an error naming the file.
pub(crate) async fn read_within<H: Host>(host: &H, path: &str, limit: u64) -> Result<Option<String>, HostError> {
    match read_bounded(host, path, limit).await? {
        Bounded::Missing => Ok(None),
        Bounded::Text(text) => Ok(Some(text)),
        Bounded::TooLarge(size) => Err(HostError::Io(too_large(path, size, limit))),
    }
}

/// Why a file was not read.
pub(crate) fn too_large(path: &str, size: u64, limit: u64) -> String {
    format!("{path} is {size} bytes, over the {limit}-byte limit for this file")
}

/// The name a file is set aside under: `<name>.<why>-<ms>` beside it (the original bytes kept,
/// the name saying why and when, and no longer ending in `.json`/`.jsonl`, so nothing that reads
/// those meets it again).
pub(crate) fn aside_name(path: &str, why: &str, now_ms: u64) -> String {
    format!("{path}.{why}-{now_ms}")
}

/// Renames a file that cannot be used aside (see [`aside_name`]) and logs it. Returns the new
/// path.
pub(crate) async fn set_aside<H: Host>(host: &H, path: &str, why: &str, reason: &str) -> Result<String, HostError> {
    let target = aside_name(path, why, host.now_ms());
    host.rename_file(path, &target).await?;
    host.log(LogLevel::Warn, &format!("{path} set aside as {target}: {reason}"));
    Ok(target)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aside_names_say_why_and_end_in_neither_json_nor_jsonl() {
        assert_eq!(aside_name("conversations/index.json", "oversized", 7), "conversations/index.json.oversized-7");
        assert_eq!(aside_name("conversations/c-1.jsonl", "torn", 7), "conversations/c-1.jsonl.torn-7");
    }
}
