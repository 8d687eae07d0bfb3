//! The notes a search in one folder looks at: the listed entries inside the folder that the agent
//! may open and that are notes (not links), with what was left out and the corpus the ranking is
//! computed against. Working this out walks every listed entry; at 100,000 notes that walk, and
//! a name test per entry, cost more than the index's own answer, so a scope made from the index's
//! listing is kept with it (the listing is replaced when the vault or the settings change).

use std::borrow::Cow;

use crate::vault::joined::Joined;
use crate::vault::real::{listable, Skipped};
use crate::vault::search::{Corpus, Matcher};
use crate::vault::VaultEntry;

/// File types the index holds (what `search_files` reads).
pub(crate) const SEARCHABLE: [&str; 3] = [".md", ".markdown", ".txt"];

/// Whether a listed entry is a note the index holds (and `search_files` reads).
pub(crate) fn searchable(entry: &VaultEntry, folded: &str) -> bool {
    !entry.is_folder && entry.real_path.is_none() && SEARCHABLE.iter().any(|ext| folded.ends_with(ext))
}

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
    /// The candidates' folded paths.
    folded: Joined,
    /// The candidates' paths as they are.
    paths: Joined,
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
            folded: Joined::default(),
            paths: Joined::default(),
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
                scope.folded.push(&path);
                scope.paths.push(&entry.path);
                bytes += entry.size as f64;
            }
        }
        let notes = scope.candidates.len();
        scope.corpus = Corpus { notes, avg_size: bytes / notes.max(1) as f64 };
        scope
    }

    /// By candidate (in `candidates`' order): whether its name matches, as
    /// [`Matcher::name_matches`] says. A plain query is found in all the names in one pass; a
    /// regular expression is tried only on the names holding every one of `literals` (the
    /// folded literals it cannot match without, as the index narrows notes by them).
    pub(crate) fn names_matching(&self, matcher: &Matcher, literals: &[String], entries: &[VaultEntry]) -> Vec<bool> {
        let one_pass = match matcher {
            Matcher::Plain { needle, case_sensitive: false } => self.folded.holding_mask(needle),
            Matcher::Plain { needle, case_sensitive: true } => self.paths.holding_mask(needle),
            Matcher::Regex(..) => None,
        };
        if let Some(named) = one_pass {
            return named;
        }
        let mut may = vec![true; self.candidates.len()];
        for literal in literals {
            let Some(holding) = self.folded.holding_mask(literal) else { continue };
            for (m, h) in may.iter_mut().zip(holding) {
                *m &= h;
            }
        }
        self.candidates
            .iter()
            .zip(may)
            .map(|(&i, may)| may && matcher.name_matches(&entries[i as usize].path))
            .collect()
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
        let entries =
            [entry("a/Milk.md", 10), entry("a/b/buttermilk.txt", 30), entry("c/milk.md", 50), entry("a/x.png", 5)];
        let folded = |i: usize| Cow::Owned(crate::lean::fold_case(&entries[i].path));
        let scope = Scope::new(&entries, folded, "a/", &[], false);
        assert_eq!(scope.candidates, vec![0, 1]);
        assert_eq!(scope.corpus.notes, 2);
        assert!((scope.corpus.avg_size - 20.0).abs() < 1e-9);
        // As the search asks: a regex's names narrowed by the literals it requires.
        let named = |query: &str, regex: bool, case: bool| {
            let matcher = Matcher::new(query, regex, case).unwrap();
            let literals = if regex { crate::vault::search_index::required_literals(query) } else { Vec::new() };
            let fast = scope.names_matching(&matcher, &literals, &entries);
            let one_by_one: Vec<bool> =
                scope.candidates.iter().map(|&i| matcher.name_matches(&entries[i as usize].path)).collect();
            assert_eq!(fast, one_by_one, "{query}");
            fast
        };
        assert_eq!(named("MILK", false, false), vec![true, true]);
        assert_eq!(named("butter", false, false), vec![false, true]);
        assert_eq!(named("Milk", false, true), vec![true, false]);
        assert_eq!(named("a/m", false, false), vec![true, false]);
        // A needle never matches across two names.
        assert_eq!(named("md\na", false, false), vec![false, false]);
        assert_eq!(named("milk\\.txt$", true, false), vec![false, true]);
        assert_eq!(named("^a/", true, false), vec![true, true]);
        assert_eq!(named("(?i)MILK\\.md", true, true), vec![true, false]);
        assert_eq!(named("Milk|butter", true, true), vec![true, true]);
        let whole = Scope::new(&entries, folded, "", &[], false);
        assert_eq!(whole.candidates, vec![0, 1, 2]);
        assert_eq!(
            whole.names_matching(&Matcher::new("c/", false, false).unwrap(), &[], &entries),
            vec![false, false, true]
        );
    }
}
