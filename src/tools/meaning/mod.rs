//! Search by meaning as the tools use it: the meaning index (`vault::meaning`) built in the
//! background from the search index's listing — each note new or changed since it was cut is
//! read, cut into passages, and only the passages whose text has no vector yet are embedded, in
//! batches, backing off when the server is busy; kept under `.smarthole/meaning/` (a damaged file
//! is rebuilt, never trusted); bounded by `meaningIndexMaxMb`; its progress reported as
//! `Event::MeaningIndex`. A query is embedded as it comes (the last few kept), then ranked by
//! cosine over the vectors. Its files are read and written in `files.rs`.

mod files;

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

use super::budget::Budget;
use super::indexer::{Phase, SearchIndex, NO_DOC};
use crate::event::Event;
use crate::host::Host;
use crate::host_types::LogLevel;
use crate::llm::embeddings::EmbedAs;
use crate::llm::{ErrorKind, LlmError};
use crate::llm_client::embed::embed;
use crate::settings::Settings;
use crate::vault::meaning::chunks::{chunks, Chunk};
use crate::vault::meaning::index::{MeaningIndex, Near, NotePassages, Passage};
use crate::vault::meaning::saved::{self, Made};

/// Passages sent in one embeddings request.
const BATCH: usize = 32;
/// Characters sent in one request, about (a CPU server answers a batch in seconds).
const BATCH_CHARS: usize = 24_000;
/// Failed requests in a row (busy, unreachable) before the build pauses until the next change.
const TRIES: u32 = 6;
/// Longest wait between two tries.
const MAX_BACKOFF_MS: u64 = 60_000;
/// Shortest text a refused passage is cut down to before it is given up.
const MIN_CUT_CHARS: usize = 200;
/// Query vectors kept (the same question asked again, or searched in another folder).
const KEPT_QUERIES: usize = 16;
/// Note lines read between two looks at the event loop while loading.
const NOTES_PER_STEP: usize = 2_000;
/// How often a build in progress is written back.
const SAVE_EVERY_MS: u64 = 30_000;
/// Largest file read back (a shard at 400,000 passages is about 7 MB).
const MAX_FILE_BYTES: u64 = 256 * 1024 * 1024;

/// Where the meaning index stands.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum MeaningPhase {
    /// Not configured (no embedding server, or a ceiling of 0).
    Off,
    /// Waiting for the search index's first listing.
    Waiting,
    /// Embedding: notes done of total.
    Building(usize, usize),
    /// Every note embedded.
    Ready,
    /// Past its memory ceiling: the notes embedded are searched, the rest are not.
    Full { notes: usize, total: usize },
    /// Stopped on an error until the next vault change or settings change (what to do).
    Paused(String),
}

/// The meaning index, its state and its work.
#[derive(Default)]
pub(crate) struct Meaning {
    index: RefCell<MeaningIndex>,
    phase: RefCell<Option<MeaningPhase>>,
    /// The model the vectors held came from.
    made: RefCell<Option<Made>>,
    /// Notes to cut (again) and embed, with their size and time as listed.
    pending: RefCell<BTreeMap<String, (u64, u64)>>,
    /// Notes in the last listing (for the coverage the status shows).
    listed: Cell<usize>,
    /// What the files do not hold yet.
    unsaved: RefCell<saved::Unsaved>,
    loaded: Cell<bool>,
    /// The last queries' vectors, for the model named.
    queries: RefCell<VecDeque<(String, String, Vec<f32>)>>,
    /// One round of work at a time.
    work: futures::lock::Mutex<()>,
    /// Tells the background build something changed (the vault, the settings).
    wake: RefCell<Option<futures::channel::mpsc::UnboundedSender<()>>>,
}

/// Whether the settings turn search by meaning on.
pub(crate) fn configured(settings: &Settings) -> bool {
    !settings.embeddings_base_url.trim().is_empty()
        && !settings.embeddings_model.trim().is_empty()
        && settings.meaning_index_max_mb > 0
        && settings.search_index_max_mb > 0
}

impl Meaning {
    /// The background build's wake-up calls (taken once, by the build's loop).
    pub(crate) fn wake_ups(&self) -> futures::channel::mpsc::UnboundedReceiver<()> {
        let (tx, rx) = futures::channel::mpsc::unbounded();
        *self.wake.borrow_mut() = Some(tx);
        rx
    }

    /// Something changed that the build should look at (a vault event, new settings).
    pub(crate) fn wake(&self) {
        if let Some(tx) = self.wake.borrow().as_ref() {
            let _ = tx.unbounded_send(());
        }
    }

    /// Where it stands.
    pub(crate) fn phase(&self) -> MeaningPhase {
        self.phase.borrow().clone().unwrap_or(MeaningPhase::Off)
    }

    /// Runs with the index (borrowed: no awaiting inside).
    pub(crate) fn with<T>(&self, f: impl FnOnce(&MeaningIndex) -> T) -> T {
        f(&self.index.borrow())
    }

    /// Whether a search may rank by meaning now (some vectors held, the settings on).
    pub(crate) fn usable(&self, settings: &Settings) -> bool {
        configured(settings) && self.index.borrow().vectors() > 0
    }

    fn set_phase<H: Host>(&self, host: &H, phase: MeaningPhase) {
        let index = self.index.borrow();
        let (state, done, total) = match &phase {
            MeaningPhase::Off => ("off".to_owned(), 0, 0),
            MeaningPhase::Waiting => ("waiting".to_owned(), 0, 0),
            MeaningPhase::Building(done, total) => ("building".to_owned(), *done, *total),
            MeaningPhase::Ready => ("ready".to_owned(), index.notes(), index.notes()),
            MeaningPhase::Full { notes, total } => ("full".to_owned(), *notes, *total),
            MeaningPhase::Paused(_) => ("paused".to_owned(), 0, 0),
        };
        let detail = match &phase {
            MeaningPhase::Paused(why) => Some(why.clone()),
            MeaningPhase::Full { notes, total } => Some(format!(
                "the meaning index reached its ceiling (meaningIndexMaxMb) with {notes} of {total} notes embedded: raise it to cover the rest"
            )),
            _ => None,
        };
        host.emit(&Event::MeaningIndex {
            state,
            done,
            total,
            notes: index.notes(),
            passages: index.vectors(),
            bytes: index.bytes() as u64,
            detail,
        });
        drop(index);
        *self.phase.borrow_mut() = Some(phase);
    }

    /// One round: the persisted index read (once), brought level with the search index's
    /// listing, and every note that needs it embedded; then written back. Returns when there is
    /// nothing left to do, or it had to stop (paused, full, not ready).
    pub(crate) async fn round<H: Host>(&self, host: &H, settings: &Settings, search: &SearchIndex) {
        if !configured(settings) {
            if self.phase() != MeaningPhase::Off {
                self.set_phase(host, MeaningPhase::Off);
            }
            return;
        }
        let _one = self.work.lock().await;
        if !self.loaded.replace(true) {
            self.load(host).await;
        }
        self.check_model(host, settings);
        let Some(listing) = search.current(host, settings).await else {
            let phase = match search.phase() {
                Phase::Off(why) => MeaningPhase::Paused(format!(
                    "search by meaning follows the search index, which is off ({why}): raise searchIndexMaxMb"
                )),
                _ => MeaningPhase::Waiting,
            };
            self.set_phase(host, phase);
            return;
        };
        self.sync(&listing);
        let ceiling = u64::from(settings.meaning_index_max_mb) * 1024 * 1024;
        let outcome = self.embed_pending(host, settings, ceiling).await;
        // Written before "ready" is said: whoever waits for it finds it on disk.
        self.save(host).await;
        let (notes, missing) = self.with(|i| (i.notes(), i.missing()));
        match outcome {
            Err(phase) => self.set_phase(host, phase),
            Ok(()) if missing == 0 && self.pending.borrow().is_empty() => {
                if self.phase() != MeaningPhase::Ready {
                    let passages = self.with(MeaningIndex::vectors);
                    host.log(
                        LogLevel::Info,
                        &format!("Meaning index ready: {notes} notes, {passages} passages embedded"),
                    );
                    self.set_phase(host, MeaningPhase::Ready);
                }
            }
            Ok(()) => {}
        }
    }

    /// A model other than the one the vectors came from: every vector is dropped, and the
    /// rebuild is said before it starts.
    fn check_model<H: Host>(&self, host: &H, settings: &Settings) {
        let model = settings.embeddings_model.trim().to_owned();
        let mut made = self.made.borrow_mut();
        match made.as_ref() {
            Some(m) if m.model == model => {}
            Some(m) => {
                let passages = self.with(|i| i.vectors() + i.missing());
                host.log(
                    LogLevel::Info,
                    &format!(
                        "The embedding model changed from {} to {model}: the meaning index is rebuilt ({passages} passages to embed again)",
                        m.model
                    ),
                );
                self.index.borrow_mut().drop_vectors();
                let mut unsaved = self.unsaved.borrow_mut();
                unsaved.rewrite_notes = true;
                unsaved.rewrite_shards = saved::ShardSet::ALL;
                unsaved.vectors.clear();
                self.queries.borrow_mut().clear();
                *made = Some(Made { model, dims: 0 });
            }
            None => *made = Some(Made { model, dims: 0 }),
        }
    }

    /// Notes gone are dropped; notes new, changed, or with passages not yet embedded are queued.
    fn sync(&self, listing: &super::indexer::Listing) {
        let mut index = self.index.borrow_mut();
        let mut pending = self.pending.borrow_mut();
        let notes: Vec<&crate::vault::VaultEntry> =
            listing.entries.iter().zip(&listing.ids).filter(|(_, &id)| id != NO_DOC).map(|(e, _)| e).collect();
        self.listed.set(notes.len());
        let keep: std::collections::HashSet<&str> = notes.iter().map(|e| e.path.as_str()).collect();
        let gone: Vec<String> =
            index.all_notes().map(|(p, _)| p).filter(|p| !keep.contains(p)).map(str::to_owned).collect();
        for path in gone {
            self.forget(&mut index, &path);
            pending.remove(&path);
        }
        pending.retain(|p, _| keep.contains(p.as_str()));
        for entry in notes {
            let stale = index.note(&entry.path).is_none_or(|n| {
                n.size != entry.size
                    || n.modified_ms != entry.modified_ms
                    || n.passages.iter().any(|p| !index.has_vector(p.key))
            });
            if stale {
                pending.insert(entry.path.clone(), (entry.size, entry.modified_ms));
            }
        }
    }

    /// Drops a note, counting the vectors that went with it as dead lines of their files.
    fn forget(&self, index: &mut MeaningIndex, path: &str) {
        let old: Vec<u64> = index.note(path).map(|n| n.passages.iter().map(|p| p.key).collect()).unwrap_or_default();
        if index.remove_note(path) {
            self.count_dropped(index, &old);
            self.unsaved.borrow_mut().notes.insert(path.to_owned());
        }
    }

    /// Those of `keys` whose vector is gone now are dead lines in their shards.
    fn count_dropped(&self, index: &MeaningIndex, keys: &[u64]) {
        let mut unsaved = self.unsaved.borrow_mut();
        for &key in keys.iter().filter(|&&k| !index.has_vector(k)) {
            unsaved.shard_dead[saved::shard_of(key)] += 1;
        }
    }

    /// Reads, cuts and embeds the pending notes, a batch at a time; `Err` with the phase to stop in.
    async fn embed_pending<H: Host>(&self, host: &H, settings: &Settings, ceiling: u64) -> Result<(), MeaningPhase> {
        let total = self.pending.borrow().len();
        if total == 0 {
            return Ok(());
        }
        let mut pace = Budget::unbounded(host);
        let mut done = 0;
        let mut saved_at = host.now_ms();
        self.set_phase(host, MeaningPhase::Building(0, total));
        loop {
            if self.index.borrow().bytes() as u64 > ceiling {
                let notes = self
                    .with(|i| i.all_notes().filter(|(_, n)| n.passages.iter().all(|p| i.has_vector(p.key))).count());
                return Err(MeaningPhase::Full { notes, total: self.listed.get() });
            }
            // Notes are read until a batch of passages without vectors is gathered.
            let mut batch: Vec<(u64, String)> = Vec::new();
            let mut chars = 0;
            while batch.len() < BATCH && chars < BATCH_CHARS {
                let Some((path, stat)) = self.pending.borrow_mut().pop_first() else { break };
                pace.pace().await;
                let Ok(text) = host.vault_read(&path).await else {
                    done += 1;
                    continue;
                };
                let cut = chunks(&path, &text);
                for chunk in self.set_note(&path, stat, &cut) {
                    chars += chunk.1.len();
                    batch.push(chunk);
                }
                done += 1;
            }
            if batch.is_empty() {
                return Ok(());
            }
            self.embed_batch(host, settings, batch).await?;
            self.set_phase(host, MeaningPhase::Building(done.min(total), total));
            // Written as it goes, so a build of hours resumes where it was after a restart.
            if host.now_ms().saturating_sub(saved_at) >= SAVE_EVERY_MS {
                self.save(host).await;
                saved_at = host.now_ms();
            }
        }
    }

    /// Puts a note's passages as just cut; gives those without a vector (key, text to embed).
    fn set_note(&self, path: &str, (size, modified_ms): (u64, u64), cut: &[Chunk]) -> Vec<(u64, String)> {
        let passages: Vec<Passage> = cut.iter().map(|c| Passage { key: c.key(), lines: c.lines }).collect();
        let mut index = self.index.borrow_mut();
        let same = index.note(path).is_some_and(|n| n.passages == passages);
        if same {
            index.restamp(path, size, modified_ms);
        } else {
            let old: Vec<u64> = index
                .note(path)
                .map(|n| n.passages.iter().map(|p| p.key).filter(|&k| index.has_vector(k)).collect())
                .unwrap_or_default();
            index.set_note(path, NotePassages { size, modified_ms, passages });
            self.count_dropped(&index, &old);
        }
        self.unsaved.borrow_mut().notes.insert(path.to_owned());
        let mut seen = BTreeSet::new();
        cut.iter()
            .filter(|c| !index.has_vector(c.key()) && seen.insert(c.key()))
            .map(|c| (c.key(), c.embed_text()))
            .collect()
    }

    /// Embeds one batch, backing off while the server is busy or away; a passage the model
    /// refuses as too long is cut and tried alone. `Err` with the phase to stop in.
    async fn embed_batch<H: Host>(
        &self,
        host: &H,
        settings: &Settings,
        batch: Vec<(u64, String)>,
    ) -> Result<(), MeaningPhase> {
        let mut queue: VecDeque<Vec<(u64, String)>> = VecDeque::from([batch]);
        let mut failures = 0u32;
        while let Some(batch) = queue.pop_front() {
            let texts: Vec<String> = batch.iter().map(|(_, t)| t.clone()).collect();
            match embed(host, settings, &texts, EmbedAs::Passage).await {
                Ok(embedded) => {
                    failures = 0;
                    self.store(host, &batch, &embedded.vectors)?;
                }
                Err(e) if e.kind == ErrorKind::TooLarge => {
                    if batch.len() > 1 {
                        queue.extend(batch.into_iter().map(|one| vec![one]));
                    } else if let Some((key, text)) = batch.into_iter().next() {
                        let chars = text.chars().count();
                        if chars / 2 >= MIN_CUT_CHARS {
                            queue.push_back(vec![(key, text.chars().take(chars / 2).collect())]);
                        } else {
                            host.log(LogLevel::Warn, &format!("a passage could not be embedded: {}", e.detail));
                        }
                    }
                }
                Err(e) if e.retryable() => {
                    failures += 1;
                    if failures >= TRIES {
                        return Err(MeaningPhase::Paused(paused(&e, settings)));
                    }
                    let wait = e.retry_after_ms.unwrap_or(1000u64 << failures.min(6)).min(MAX_BACKOFF_MS);
                    host.log(LogLevel::Debug, &format!("embeddings: {}; trying again in {wait} ms", e.detail));
                    host.sleep(wait).await;
                    queue.push_front(batch);
                }
                Err(e) => return Err(MeaningPhase::Paused(paused(&e, settings))),
            }
        }
        Ok(())
    }

    /// Keeps a batch's vectors; a dimension other than those held stops the build and keeps
    /// the index as it was.
    fn store<H: Host>(&self, host: &H, batch: &[(u64, String)], vectors: &[Vec<f32>]) -> Result<(), MeaningPhase> {
        let mut index = self.index.borrow_mut();
        if let (Some(held), Some(got)) = (index.dims(), vectors.first().map(Vec::len)) {
            if held != got {
                return Err(MeaningPhase::Paused(format!(
                    "the embedding server answers with {got} dimensions where the meaning index holds {held}: set the model it was built with, or change the model's name to rebuild it"
                )));
            }
        }
        for ((key, _), vector) in batch.iter().zip(vectors) {
            match index.add_vector(*key, vector) {
                Ok(true) => self.unsaved.borrow_mut().vectors.push(*key),
                Ok(false) => {}
                Err(e) => host.log(LogLevel::Warn, &format!("an embedding was not kept: {e}")),
            }
        }
        if let (Some(made), Some(dims)) = (self.made.borrow_mut().as_mut(), index.dims()) {
            made.dims = dims;
        }
        Ok(())
    }

    /// The vector of a query, embedded now or kept from before.
    pub(crate) async fn query_vector<H: Host>(
        &self,
        host: &H,
        settings: &Settings,
        query: &str,
    ) -> Result<Vec<f32>, LlmError> {
        let model = settings.embeddings_model.trim();
        if let Some((_, _, v)) = self.queries.borrow().iter().find(|(m, q, _)| m == model && q == query) {
            return Ok(v.clone());
        }
        let embedded = embed(host, settings, &[query.to_owned()], EmbedAs::Query).await?;
        let vector = embedded.vectors.into_iter().next().unwrap_or_default();
        let mut kept = self.queries.borrow_mut();
        kept.push_front((model.to_owned(), query.to_owned(), vector.clone()));
        kept.truncate(KEPT_QUERIES);
        Ok(vector)
    }

    /// The notes closest to a query's vector, each by its best passage.
    pub(crate) fn nearest(&self, query: &[f32], k: usize, keep: impl Fn(&str) -> bool) -> Vec<Near> {
        self.with(|i| i.nearest_notes(query, k, keep))
    }
}

/// What the status says when the build stops on an error: what went wrong and what to do.
fn paused(e: &LlmError, settings: &Settings) -> String {
    format!(
        "search by meaning paused: {} (embedding server {}, model {}); it tries again at the next change in the vault or the settings",
        e.user_message(&settings.embeddings_model),
        settings.embeddings_base_url,
        settings.embeddings_model
    )
}
