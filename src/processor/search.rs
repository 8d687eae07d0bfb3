//! The vault's search index as the processor runs it (`tools::indexer` builds and answers it):
//! started in the background once, written back every minute while it changes, told of every
//! change to the vault, and its state for the status line.

use super::handle::MessageProcessor;
use crate::host::Host;
use crate::host_types::LogLevel;
use crate::tools::indexer::Phase;
use crate::tools::meaning::MeaningPhase;
use futures::StreamExt;

/// Quiet after a change before the meaning index looks at it.
const MEANING_SETTLE_MS: u64 = 2_000;
/// Longest the meaning index waits for that quiet (a file touched every second for ever).
const MEANING_SETTLE_MAX_MS: u64 = 30_000;
/// How often the search index is written back while it changes.
const SEARCH_INDEX_SAVE_MS: u64 = 60_000;

impl<H: Host + 'static> MessageProcessor<H> {
    /// Starts building the vault's search index in the background, once (the hosts call it after
    /// `initialize`; the first `search_files` does otherwise); then writes it back every minute
    /// while it changes. Progress arrives as `Event::SearchIndex`; messages are never held up by
    /// it.
    pub fn start_search_index(&self) {
        if self.settings().search_index_max_mb == 0 || !self.inner.search.claim_start() {
            return;
        }
        self.spawn(|this| async move {
            let settings = this.settings();
            let inner = &this.inner;
            inner.search.build(&inner.host, &settings).await;
            let mut wake_ups = inner.meaning.wake_ups();
            let mut changed = true;
            loop {
                // The meaning index follows the search index's listing: after the first build,
                // after every change, and every minute while it has not caught up (not while
                // paused on an error: the next change tries again).
                if changed || !matches!(inner.meaning.phase(), MeaningPhase::Paused(_)) {
                    inner.meaning.round(&inner.host, &this.settings(), &inner.search).await;
                }
                let tick = std::pin::pin!(inner.host.sleep(SEARCH_INDEX_SAVE_MS));
                changed = match futures::future::select(wake_ups.next(), tick).await {
                    futures::future::Either::Left((None, _)) => return,
                    futures::future::Either::Left((Some(()), _)) => true,
                    futures::future::Either::Right(_) => false,
                };
                // A note being typed is saved every few seconds: the round waits for a quiet
                // moment, so the passage is embedded once, not at every save.
                let since = inner.host.now_ms();
                while changed && inner.host.now_ms().saturating_sub(since) < MEANING_SETTLE_MAX_MS {
                    let quiet = std::pin::pin!(inner.host.sleep(MEANING_SETTLE_MS));
                    match futures::future::select(wake_ups.next(), quiet).await {
                        futures::future::Either::Left((None, _)) => return,
                        futures::future::Either::Left((Some(()), _)) => {}
                        futures::future::Either::Right(_) => break,
                    }
                }
                inner.search.save(&inner.host).await;
            }
        });
    }

    /// A note or folder was created, changed, deleted or renamed (`kind`, for the log): the
    /// search index repairs itself before its next answer.
    pub fn vault_changed(&self, path: &str, kind: &str) {
        let inner = &self.inner;
        inner.host.log(LogLevel::Debug, &format!("vault {kind}: {path}"));
        inner.search.changed(Some(path));
        inner.meaning.wake();
        inner.attachments.vault_changed(kind);
    }

    /// The search index's state, notes held and size in memory (bytes).
    pub fn search_index_status(&self) -> (String, usize, usize) {
        let search = &self.inner.search;
        let state = match search.phase() {
            Phase::Idle => "idle".to_owned(),
            Phase::Building(done, total) => format!("building {done}/{total}"),
            Phase::Ready => "ready".to_owned(),
            Phase::Off(why) => format!("off: {why}"),
        };
        (state, search.with(|i| i.len()), search.bytes())
    }
}

/// A note close in meaning to another (the Related notes view): its path, the cosine, and the
/// passage that relates them with its lines.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RelatedNote {
    pub path: String,
    pub score: f32,
    pub first_line: u32,
    pub last_line: u32,
    pub passage: String,
}

/// What the Related notes view shows for a note: the notes, or why there are none.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Related {
    pub notes: Vec<RelatedNote>,
    /// Why the list is empty or partial (not set up, building, paused, note not embedded yet).
    pub note: Option<String>,
}

impl<H: Host + 'static> MessageProcessor<H> {
    /// The notes closest in meaning to the note at `path`, at most `limit`, each with the
    /// passage that relates them (read now, so it is the note's current text).
    pub async fn related_notes(&self, path: &str, limit: usize) -> Related {
        let inner = &self.inner;
        let settings = self.settings();
        let phase = inner.meaning.phase();
        if !crate::tools::meaning::configured(&settings) {
            let note = "Search by meaning is off: set an embedding server in the settings (Search by meaning).";
            return Related { notes: Vec::new(), note: Some(note.to_owned()) };
        }
        let near = inner.meaning.with(|i| i.related(path, limit.clamp(1, 50), |_| true));
        let texts = crate::tools::budget::join_all(near.iter().map(|n| inner.host.vault_read(&n.path))).await;
        let notes: Vec<RelatedNote> = near
            .into_iter()
            .zip(texts)
            .filter_map(|(n, text)| {
                let text = text.ok()?;
                Some(RelatedNote {
                    passage: crate::tools::find_meaning::excerpt(&text, n.lines),
                    path: n.path,
                    score: n.score,
                    first_line: n.lines.0,
                    last_line: n.lines.1,
                })
            })
            .collect();
        let note = match phase {
            MeaningPhase::Building(done, total) => {
                Some(format!("The meaning index is being built ({done} of {total} notes)."))
            }
            MeaningPhase::Paused(why) => Some(why),
            MeaningPhase::Full { .. } | MeaningPhase::Ready
                if notes.is_empty() && inner.meaning.with(|i| i.note(path).is_none()) =>
            {
                Some("This note is not in the meaning index yet.".to_owned())
            }
            MeaningPhase::Waiting | MeaningPhase::Off => Some("The meaning index is starting.".to_owned()),
            _ => None,
        };
        Related { notes, note }
    }
}
