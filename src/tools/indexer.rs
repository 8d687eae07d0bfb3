//! The search index as the note tools use it: built in the background after start (or at the
//! first search), a slice of notes at a time so messages are never blocked; kept current by the
//! host's vault events (`vault_changed`: the next search or listing first lists the vault again
//! and re-reads only the notes whose size or modification time changed — the same repair that
//! runs at start against the persisted index); persisted in `.smarthole/search-index.txt` and the pieces it names
//! (`vault::search_index::saved`; a damaged one is rebuilt, never trusted); its progress and size reported as `Event::SearchIndex`.
//! The data structure itself is `vault::index`.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

use super::budget::Budget;
use super::index_listing::{compare, ids, Compared};
use super::scope::{Scope, KEPT_SCOPES};
use crate::bounded::{read_bounded, read_bytes_exactly, Bounded, MAX_RECORD_BYTES};
use crate::event::Event;
use crate::host::Host;
use crate::host_types::{HostError, LogLevel};
use crate::settings::Settings;
use crate::vault::path::protected_folders;
use crate::vault::search_index::saved::{Damaged, Manifest, Writer, Written, FOLDER, MANIFEST};
use crate::vault::search_index::saved_read::Reader;
use crate::vault::search_index::Index;
use crate::vault::VaultEntry;

/// Notes read between two progress events.
const PROGRESS_EVERY: usize = 500;
/// Notes asked of the host at once while building: their reads overlap (the host's file system
/// works on several at a time) instead of waiting for each in turn.
const READ_BATCH: usize = 16;

/// Notes read in one sync past which the index gives back the room its lists grew into.
const SHRINK_AFTER: usize = 1024;
/// Terms whose postings are shrunk between two turns of the event loop.
const SHRINK_SLICE: usize = 4096;

/// Where the index stands.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Phase {
    /// Not started.
    Idle,
    /// The first build is under way: notes done of total.
    Building(usize, usize),
    /// Answers searches.
    Ready,
    /// Given up (too large for its ceiling, or the vault could not be listed): searches scan.
    Off(String),
}

/// The vault's listing as the tools see it (protected folders left out), with each path folded
/// once, for whom it was made.
pub(crate) struct Listing {
    pub(crate) entries: Vec<VaultEntry>,
    pub(crate) folded: Vec<String>,
    /// Each entry's note id in the index ([`NO_DOC`] for none), valid until the next sync.
    pub(crate) ids: Vec<u32>,
    follow: bool,
    protected: Vec<String>,
    /// The scopes of the folders searched most recently (made once per listing).
    scopes: RefCell<Vec<(String, Rc<Scope>)>>,
}

impl Listing {
    /// The notes a search under `prefix` (a folded folder path ending in `/`, or `""`) covers,
    /// made at the first search of this listing and kept with it; `protected` is the settings'
    /// protected folders, which this listing was made for.
    pub(crate) fn scope(&self, prefix: &str, protected: &[String]) -> Rc<Scope> {
        if let Some((_, kept)) = self.scopes.borrow().iter().find(|(p, _)| p == prefix) {
            return Rc::clone(kept);
        }
        let folded = |i: usize| Cow::Borrowed(self.folded[i].as_str());
        let scope = Rc::new(Scope::new(&self.entries, folded, prefix, protected, self.follow));
        let mut scopes = self.scopes.borrow_mut();
        scopes.insert(0, (prefix.to_owned(), Rc::clone(&scope)));
        scopes.truncate(KEPT_SCOPES);
        scope
    }
}

/// The index, its listing and its state.
#[derive(Default)]
pub(crate) struct SearchIndex {
    index: RefCell<Index>,
    listing: RefCell<Option<Rc<Listing>>>,
    phase: RefCell<Option<Phase>>,
    /// Bumped by every vault event: a listing older than it is stale.
    generation: Cell<u64>,
    /// Paths named by vault events since the last sync: read again even when their size and
    /// modification time look the same (an edit within the same millisecond).
    touched: RefCell<std::collections::HashSet<String>>,
    listed_at: Cell<u64>,
    /// The persisted file was looked at.
    loaded: Cell<bool>,
    /// Changed since last written.
    unsaved: Cell<bool>,
    /// One sync at a time.
    work: futures::lock::Mutex<()>,
}

pub(crate) use super::index_listing::NO_DOC;

impl SearchIndex {
    /// Where it stands.
    pub(crate) fn phase(&self) -> Phase {
        self.phase.borrow().clone().unwrap_or(Phase::Idle)
    }

    /// Marks it as started; returns whether it was idle (the caller then runs [`Self::build`]).
    pub(crate) fn claim_start(&self) -> bool {
        let mut phase = self.phase.borrow_mut();
        if phase.is_some() {
            return false;
        }
        *phase = Some(Phase::Building(0, 0));
        true
    }

    /// A note or folder was created, changed, deleted or renamed (a host event): the next use
    /// lists the vault again and re-reads what changed.
    pub(crate) fn changed(&self, path: Option<&str>) {
        self.generation.set(self.generation.get() + 1);
        if let Some(path) = path {
            self.touched.borrow_mut().insert(path.to_owned());
        }
    }

    /// The index's size in memory, about.
    pub(crate) fn bytes(&self) -> usize {
        self.index.borrow().bytes()
    }

    /// Runs with the index (borrowed: no awaiting inside).
    pub(crate) fn with<T>(&self, f: impl FnOnce(&Index) -> T) -> T {
        f(&self.index.borrow())
    }

    fn emit<H: Host>(&self, host: &H, state: &str, done: usize, total: usize) {
        host.emit(&Event::SearchIndex { state: state.to_owned(), done, total, bytes: self.bytes() as u64 });
    }

    /// The first build: loads the persisted index, repairs it against the vault (or builds it),
    /// reports progress, then writes it back.
    pub(crate) async fn build<H: Host>(&self, host: &H, settings: &Settings) {
        match self.sync(host, settings, true).await {
            Ok(()) => {
                *self.phase.borrow_mut() = Some(Phase::Ready);
                let n = self.index.borrow().len();
                self.emit(host, "ready", n, n);
                self.save(host).await;
            }
            Err(why) => {
                host.log(LogLevel::Warn, &format!("search index off: {why}"));
                *self.phase.borrow_mut() = Some(Phase::Off(why));
                self.emit(host, "off", 0, 0);
            }
        }
    }

    /// The listing to answer from, brought up to date first (vault events since the last one,
    /// changed settings); `None` while the index is not ready (the caller scans).
    pub(crate) async fn current<H: Host>(&self, host: &H, settings: &Settings) -> Option<Rc<Listing>> {
        if self.phase() != Phase::Ready {
            return None;
        }
        let fresh = self
            .listing
            .borrow()
            .as_ref()
            .filter(|l| {
                self.listed_at.get() == self.generation.get()
                    && l.follow == settings.follow_linked_folders
                    && l.protected == settings.protected_folders
            })
            .cloned();
        if fresh.is_some() {
            return fresh;
        }
        if let Err(why) = self.sync(host, settings, false).await {
            host.log(LogLevel::Warn, &format!("search index could not be updated: {why}"));
            // Past its ceiling it was dropped: off for this session, not rebuilt at every search.
            if self.index.borrow().len() == 0 {
                *self.phase.borrow_mut() = Some(Phase::Off(why));
                self.emit(host, "off", 0, 0);
            }
            return None;
        }
        self.listing.borrow().clone()
    }

    /// Lists the vault and brings the index level with it: notes gone are dropped, notes new or
    /// with another size or modification time (re-)read; the rest is kept as indexed.
    async fn sync<H: Host>(&self, host: &H, settings: &Settings, report: bool) -> Result<(), String> {
        let _one = self.work.lock().await;
        if !self.loaded.replace(true) {
            self.load(host, settings).await;
        }
        let generation = self.generation.get();
        let touched = std::mem::take(&mut *self.touched.borrow_mut());
        let protected = protected_folders(&host.config_folder(), &settings.protected_folders);
        let all = host.vault_list(settings.follow_linked_folders).await.map_err(|e| e.to_string())?;
        let mut pace = Budget::unbounded(host);
        let follow = settings.follow_linked_folders;
        let Compared { entries, folded, stale, dropped } =
            compare(&mut pace, &self.index, all, &protected, follow, &touched).await;
        if dropped {
            self.unsaved.set(true);
        }
        let stale: Vec<&VaultEntry> = stale.iter().map(|&k| &entries[k]).collect();
        let ceiling = u64::from(settings.search_index_max_mb) * 1024 * 1024;
        let total = stale.len();
        let mut reported = None;
        for (batch, entries) in stale.chunks(READ_BATCH).enumerate() {
            let done = batch * READ_BATCH;
            pace.pace().await;
            if report && reported != Some(done / PROGRESS_EVERY) {
                reported = Some(done / PROGRESS_EVERY);
                *self.phase.borrow_mut() = Some(Phase::Building(done, total));
                self.emit(host, "building", done, total);
            }
            let texts = super::budget::join_all(entries.iter().map(|e| host.vault_read(&e.path))).await;
            for (n, (entry, text)) in entries.iter().zip(texts).enumerate() {
                // A turn of the event loop between notes, not between batches: sixteen long
                // notes indexed in one go held Stop for 70 ms (bench/hostile-tools.mjs).
                pace.pace().await;
                let mut index = self.index.borrow_mut();
                index.upsert(&entry.path, entry.size, entry.modified_ms, text.ok().as_deref());
                self.unsaved.set(true);
                if index.bytes() as u64 > ceiling {
                    *index = Index::default();
                    *self.listing.borrow_mut() = None;
                    return Err(format!(
                        "the index passed its ceiling of {} MB (searchIndexMaxMb) after {} of {total} notes",
                        settings.search_index_max_mb,
                        done + n + 1
                    ));
                }
            }
        }
        self.index.borrow_mut().compact_if_worth_it();
        if total >= SHRINK_AFTER {
            let terms = self.index.borrow().terms();
            for from in (0..terms.max(1)).step_by(SHRINK_SLICE) {
                pace.pace().await;
                self.index.borrow_mut().shrink(from, from + SHRINK_SLICE);
            }
        }
        let ids = ids(&mut pace, &self.index, &entries).await;
        self.listed_at.set(generation);
        *self.listing.borrow_mut() = Some(Rc::new(Listing {
            entries,
            folded,
            ids,
            follow: settings.follow_linked_folders,
            protected: settings.protected_folders.clone(),
            scopes: RefCell::default(),
        }));
        if total > 0 || report {
            host.log(LogLevel::Debug, &format!("search index: {total} notes read, {} held", self.index.borrow().len()));
        }
        Ok(())
    }

    /// Reads the persisted index a piece at a time, unless it is larger than the ceiling or
    /// damaged (then the build starts from nothing, and says so in the log).
    async fn load<H: Host>(&self, host: &H, settings: &Settings) {
        let ceiling = u64::from(settings.search_index_max_mb) * 1024 * 1024;
        // Not a regular file: set aside by the bounded read, and rebuilt.
        let Ok(Bounded::Text(text)) = read_bounded(host, MANIFEST, MAX_RECORD_BYTES).await else { return };
        let read = match Manifest::read(&text) {
            // Past twice the ceiling it is not read (rebuilt instead).
            Ok(m) if m.pieces.iter().map(|p| p.len as u64).sum::<u64>() > ceiling.saturating_mul(2) => None,
            Ok(manifest) => read_pieces(host, Reader::new(manifest)).await,
            Err(Damaged) => None,
        };
        match read {
            Some(index) => *self.index.borrow_mut() = index,
            None => {
                host.log(LogLevel::Warn, "the persisted search index is damaged or of another version; rebuilding it");
                self.unsaved.set(true);
            }
        }
    }

    /// Writes the index if it changed since last written: a piece at a time, under the lock a
    /// sync takes, so the index holds still while its pieces are made; the manifest last, then
    /// the last save's pieces are removed.
    pub(crate) async fn save<H: Host>(&self, host: &H) {
        let _one = self.work.lock().await;
        if !self.unsaved.replace(false) {
            return;
        }
        if let Err(e) = self.write_pieces(host).await {
            self.unsaved.set(true);
            host.log(LogLevel::Warn, &format!("could not write the search index: {e}"));
        }
    }

    async fn write_pieces<H: Host>(&self, host: &H) -> Result<(), HostError> {
        let mut pace = Budget::unbounded(host);
        let mut writer = Writer::new(host.random_u64());
        let mut written = std::collections::HashSet::new();
        loop {
            let step = writer.step(&self.index.borrow());
            match step {
                Some(Written::Piece(path, bytes)) => {
                    host.write_file_atomic_bytes(&path, &bytes).await?;
                    written.insert(path.trim_start_matches(&format!("{FOLDER}/")).to_owned());
                }
                Some(Written::Manifest(text)) => {
                    host.write_file_atomic(MANIFEST, &text).await?;
                    break;
                }
                None => {}
            }
            pace.pace().await;
        }
        for name in host.list_dir(FOLDER).await? {
            if !written.contains(&name) {
                host.remove_file(&format!("{FOLDER}/{name}")).await?;
            }
        }
        Ok(())
    }
}

/// The pieces a manifest names, read and checked one at a time; `None` when one is missing,
/// not what the manifest says, or does not read back.
async fn read_pieces<H: Host>(host: &H, mut reader: Reader) -> Option<Index> {
    let mut pace = Budget::unbounded(host);
    loop {
        if let Some(piece) = reader.wants() {
            let (path, len) = (piece.path.clone(), piece.len as u64);
            let bytes = read_bytes_exactly(host, &path, len).await.ok()??;
            reader.feed(bytes).ok()?;
        }
        if let Some(index) = reader.step().ok()? {
            return Some(index);
        }
        pace.pace().await;
    }
}
