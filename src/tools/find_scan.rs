//! `search_files`' reading of the notes it cannot settle from the index (find.rs): many to a host
//! call (`Host::vault_read_many_bytes`), each searched a slice of work at a time within the
//! tool's budget, a note whose raw bytes hold no literal of the pattern settled undecoded.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::task::Poll;

use super::budget::Budget;
use super::call::ToolContext;
use crate::host::Host;
use crate::host_types::HostError;
use crate::vault::search::{settle_raw, FileHit, FileScan, Matcher, LINE_WORK};
use crate::vault::VaultEntry;

/// Work (bytes × the pattern's weight) `search_files` does between two looks at its budget.
const SLICE_WORK: usize = LINE_WORK;

/// A search's findings so far.
#[derive(Default)]
pub(super) struct Found {
    pub(super) hits: Vec<FileHit>,
    pub(super) scanned: usize,
    pub(super) cut_lines: usize,
    pub(super) stopped: bool,
}

/// Most notes one host call reads for a search, and about the most bytes (a note larger alone
/// is read alone): a host may read them synchronously in one go (about 1-2 ms on Node for a
/// call of this size), and the search holds that many at once.
const READ_NOTES: usize = 64;
const READ_BYTES: u64 = 1 << 20;

/// The notes read together next: up to [`READ_NOTES`] and about [`READ_BYTES`], at least one.
fn next_batch<'a, 'e>(notes: &'a [&'e VaultEntry]) -> &'a [&'e VaultEntry] {
    let mut bytes = 0u64;
    let mut n = 0;
    for entry in notes.iter().take(READ_NOTES) {
        bytes = bytes.saturating_add(entry.size);
        if n > 0 && bytes > READ_BYTES {
            break;
        }
        n += 1;
    }
    &notes[..n]
}

/// A batch's read from the host, owning its paths.
type Read<'h> = Pin<Box<dyn Future<Output = Vec<Result<Vec<u8>, HostError>>> + 'h>>;

/// A batch's read, asked of the host: answered at once, or under way.
enum Ahead<'h> {
    Read(Vec<Result<Vec<u8>, HostError>>),
    Reading(Read<'h>),
}

/// Most batches asked ahead of the one searched, when the host reads elsewhere (Node's reader
/// thread): enough that its answers come while the core searches, between two turns of the event
/// loop.
const READS_AHEAD: usize = 8;

/// Asks the host for a batch's notes, and has it begin now (a future does nothing until polled).
async fn start_read<'h, H: Host>(host: &'h H, batch: &[&VaultEntry]) -> Ahead<'h> {
    let paths: Vec<String> = batch.iter().map(|entry| entry.path.clone()).collect();
    let mut read: Read<'h> = Box::pin(async move { host.vault_read_many_bytes(&paths).await });
    match futures::poll!(read.as_mut()) {
        Poll::Ready(texts) => Ahead::Read(texts),
        Poll::Pending => Ahead::Reading(read),
    }
}

/// Reads notes (many per host call; when the host reads elsewhere, several calls ahead of the
/// batch searched) and searches their lines, within the budget.
pub(super) async fn scan<H: Host>(
    ctx: &ToolContext<'_, H>,
    matcher: &Matcher,
    mut notes: &[&VaultEntry],
    budget: &mut Budget<'_, H>,
    found: &mut Found,
) {
    let mut asked: VecDeque<(&[&VaultEntry], Ahead<'_>)> = VecDeque::new();
    // Whether the host reads elsewhere (it did not answer at once); one that answers at once reads
    // on this thread, and asking it ahead would only hold more.
    let mut elsewhere = false;
    loop {
        let under_way = if elsewhere { 1 + READS_AHEAD } else { 1 };
        while asked.len() < under_way && !notes.is_empty() {
            let batch = next_batch(notes);
            notes = &notes[batch.len()..];
            let read = start_read(ctx.host, batch).await;
            elsewhere |= matches!(read, Ahead::Reading(_));
            asked.push_back((batch, read));
        }
        let Some((batch, read)) = asked.pop_front() else { break };
        if !budget.pace().await {
            found.stopped = true;
            break;
        }
        // As bytes: a note's text crossing from the host as a string costs more than searching it
        // (wasm-bindgen copies it a character at a time); bytes cross in one copy. Many a call:
        // one host call per note cost more than its reading (issue 37).
        let texts = match read {
            Ahead::Read(texts) => texts,
            Ahead::Reading(read) => read.await,
        };
        for (entry, text) in batch.iter().zip(texts) {
            if !budget.pace().await {
                found.stopped = true;
                return;
            }
            let Ok(bytes) = text else {
                found.scanned += 1;
                continue;
            };
            // No line can match: the note is not decoded.
            if let Some(hit) = settle_raw(matcher, entry, &bytes) {
                found.hits.extend(hit);
                found.scanned += 1;
                continue;
            }
            // Read as the host reads text: a byte sequence that is not UTF-8 becomes U+FFFD.
            let text = String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
            let mut scan = FileScan::new(matcher, entry, &text);
            while scan.step(matcher, SLICE_WORK) {
                if !budget.pace().await {
                    found.stopped = true;
                    found.cut_lines += scan.cut_lines;
                    found.hits.extend(scan.finish());
                    return;
                }
            }
            found.cut_lines += scan.cut_lines;
            found.hits.extend(scan.finish());
            found.scanned += 1;
        }
    }
}
