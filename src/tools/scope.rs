//! The notes a search in one folder looks at: the listed entries inside the folder that the agent
//! may open and that are notes (not links), with what was left out and the corpus the ranking is
//! computed against. Working this out walks every listed entry; at 100,000 notes that walk, and
//! a name test per entry, cost more than the index's own answer, so a scope made from the index's
//! listing is kept with it (the listing is replaced when the vault or the settings change).

use std::borrow::Cow;

use super::indexer::searchable;
use crate::vault::real::{listable, Skipped};
use crate::vault::search::Corpus;
use crate::vault::VaultEntry;

/// Scopes a listing keeps (the folders searched most recently).
pub(crate) const KEPT_SCOPES: usize = 4;

/// The notes a search covers, by their place in the listing.
pub(crate) struct Scope {
    /// Places in the listing of the notes searched.
    pub(crate) candidates: Vec<u32>,
    /// What the agent may not open, counted by kind.
    pub(crate) skipped: Skipped,
    /// What a ranking is computed against.
    pub(crate) corpus: Corpus,
    /// The candidates' folded paths, each followed by `\n`: a needle of term characters is found
    /// in every name in one pass (it cannot match across the separator).
    names: String,
    /// Where each candidate's path starts in `names`.
    starts: Vec<u32>,
}

impl Scope {
    /// The scope of `prefix` (a folded folder path ending in `/`, or `""` for the whole vault)
    /// over `entries`, whose folded paths `folded` gives by place.
    pub(crate) fn new<'a>(
        entries: &'a [VaultEntry],
        folded: impl Fn(usize) -> Cow<'a, str>,
        prefix: &str,
        protected: &[String],
        follow_linked: bool,
    ) -> Scope {
        let mut scope = Scope {
            candidates: Vec::new(),
            skipped: Skipped::default(),
            corpus: Corpus { notes: 0, avg_size: 0.0 },
            names: String::new(),
            starts: Vec::new(),
        };
        let mut bytes = 0f64;
        for (i, entry) in entries.iter().enumerate() {
            let path = folded(i);
            if !path.starts_with(prefix) {
                continue;
            }
            if let Err(what) = listable(entry, protected, follow_linked) {
                scope.skipped.add(what);
                continue;
            }
            // A link inside the vault is searched under its real path, not twice.
            if searchable(entry, &path) {
                scope.candidates.push(i as u32);
                scope.starts.push(scope.names.len() as u32);
                scope.names.push_str(&path);
                scope.names.push('\n');
                bytes += entry.size as f64;
            }
        }
        let notes = scope.candidates.len();
        scope.corpus = Corpus { notes, avg_size: bytes / notes.max(1) as f64 };
        scope
    }

    /// By candidate (in `candidates`' order): whether its folded path holds `needle`, a folded
    /// run of term characters.
    pub(crate) fn names_holding(&self, needle: &str) -> Vec<bool> {
        let mut holding = vec![false; self.candidates.len()];
        if needle.is_empty() || needle.contains('\n') {
            return holding;
        }
        for (at, _) in self.names.match_indices(needle) {
            // The candidate whose path the match starts in: the last start at or before it.
            let k = self.starts.partition_point(|&s| s as usize <= at) - 1;
            holding[k] = true;
        }
        holding
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vault::EntryKind;

    fn entry(path: &str, size: u64) -> VaultEntry {
        VaultEntry { path: path.into(), size, kind: EntryKind::Plain, ..VaultEntry::default() }
    }

    #[test]
    fn a_folder_s_notes_their_corpus_and_names_found_in_one_pass() {
        let entries = [entry("a/Milk.md", 10), entry("a/b/buttermilk.txt", 30), entry("c/milk.md", 50), entry("a/x.png", 5)];
        let folded = |i: usize| Cow::Owned(crate::lean::fold_case(&entries[i].path));
        let scope = Scope::new(&entries, folded, "a/", &[], false);
        assert_eq!(scope.candidates, vec![0, 1]);
        assert_eq!(scope.corpus.notes, 2);
        assert!((scope.corpus.avg_size - 20.0).abs() < 1e-9);
        assert_eq!(scope.names_holding("milk"), vec![true, true]);
        assert_eq!(scope.names_holding("butter"), vec![false, true]);
        // A needle never matches across two names.
        assert_eq!(scope.names_holding("md\na"), vec![false, false]);
        let whole = Scope::new(&entries, folded, "", &[], false);
        assert_eq!(whole.candidates, vec![0, 1, 2]);
        assert_eq!(whole.names_holding("c"), vec![false, false, true]);
    }
}
