//! The vault's listing laid against the search index, a slice of entries at a time: at 100,000
//! notes, keeping, folding and comparing every entry in one go held the event loop for hundreds
//! of milliseconds at each start and at the first search after a change. The caller's budget
//! gives the event loop a turn between slices.

use std::cell::RefCell;
use std::collections::HashSet;

use super::budget::Budget;
use super::scope::searchable;
use crate::host::Host;
use crate::lean::fold_case;
use crate::vault::path::is_protected;
use crate::vault::real::listable;
use crate::vault::search_index::Index;
use crate::vault::VaultEntry;

/// The id of an entry the index does not hold.
pub(crate) const NO_DOC: u32 = u32::MAX;

/// Entries handled between two turns of the event loop.
const SLICE: usize = 2048;

/// What the listing holds and what the index must read again.
pub(crate) struct Compared {
    /// The entries the tools see (protected folders left out), with each path folded.
    pub(crate) entries: Vec<VaultEntry>,
    pub(crate) folded: Vec<String>,
    /// Indices into `entries` of the notes to read (new, or with another size or time, or
    /// touched, or unreadable before).
    pub(crate) stale: Vec<usize>,
    /// Whether notes the index held are gone (dropped from it).
    pub(crate) dropped: bool,
}

/// Lays the listing `all` against the index: drops what is gone, and says what to read.
pub(crate) async fn compare<H: Host>(
    pace: &mut Budget<'_, H>,
    index: &RefCell<Index>,
    all: Vec<VaultEntry>,
    protected: &[String],
    follow: bool,
    touched: &HashSet<String>,
) -> Compared {
    let mut entries = Vec::with_capacity(all.len());
    let mut folded = Vec::with_capacity(all.len());
    for (k, e) in all.into_iter().enumerate() {
        if k % SLICE == 0 {
            pace.pace().await;
        }
        if is_protected(&e.path, protected).is_none() {
            folded.push(fold_case(&e.path));
            entries.push(e);
        }
    }
    let mut notes = Vec::new();
    let mut keep = HashSet::new();
    for (k, (e, f)) in entries.iter().zip(&folded).enumerate() {
        if k % SLICE == 0 {
            pace.pace().await;
        }
        if searchable(e, f) && listable(e, protected, follow).is_ok() {
            notes.push(k);
            keep.insert(e.path.as_str());
        }
    }
    let slots = index.borrow().slots();
    let mut gone = Vec::new();
    for start in (0..slots).step_by(SLICE) {
        pace.pace().await;
        let index = index.borrow();
        let slice = index.docs_between(start, start + SLICE);
        gone.extend(slice.filter(|d| !keep.contains(d.path.as_str())).map(|d| d.path.clone()));
    }
    drop(keep);
    for (k, path) in gone.iter().enumerate() {
        if k % SLICE == 0 {
            pace.pace().await;
        }
        index.borrow_mut().remove(path);
    }
    let mut stale = Vec::new();
    for slice in notes.chunks(SLICE) {
        pace.pace().await;
        let index = index.borrow();
        stale.extend(slice.iter().copied().filter(|&k| {
            let e = &entries[k];
            touched.contains(&e.path)
                || index
                    .doc(&e.path)
                    .is_none_or(|(_, d)| d.size != e.size || d.modified_ms != e.modified_ms || d.unreadable)
        }));
    }
    Compared { entries, folded, stale, dropped: !gone.is_empty() }
}

/// Each entry's note id in the index ([`NO_DOC`] for none).
pub(crate) async fn ids<H: Host>(pace: &mut Budget<'_, H>, index: &RefCell<Index>, entries: &[VaultEntry]) -> Vec<u32> {
    let mut ids = Vec::with_capacity(entries.len());
    for slice in entries.chunks(SLICE) {
        pace.pace().await;
        let index = index.borrow();
        ids.extend(slice.iter().map(|e| index.doc(&e.path).map_or(NO_DOC, |(id, _)| id)));
    }
    ids
}
