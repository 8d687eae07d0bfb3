//! The inverted index itself: notes by id, terms by id, and each term's notes as (id delta,
//! occurrences) varint pairs that only grow at their end; a note's own terms and positions (for
//! phrases and for compaction). Added, changed and removed a note at a time, compacted once dead
//! notes outnumber live ones, and asked which notes hold a term, how often, and whether a phrase
//! may be in a note.

use std::collections::HashMap;

use super::postings::Postings;
use super::terms::tokens;
use super::varint::{push_varint, read_ascending, read_varint, write_ascending};
use crate::lean::fold_case;
use crate::vault::joined::Joined;
use crate::vault::search::{bm25_idf, bm25_tf, LINE_WORK};

/// One indexed note.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Doc {
    pub(crate) path: String,
    pub(crate) size: u64,
    pub(crate) modified_ms: u64,
    /// The host could not read it (a scan skips such a note, so the index does too).
    pub(crate) unreadable: bool,
    /// Tokens in the note (its length for BM25).
    pub(crate) tokens: u32,
    /// Lines longer than a regex searches whole ([`LINE_WORK`] bytes): a search that narrows
    /// this note away says they were searched in part, as a scan that read it would.
    pub(crate) long_lines: u32,
    /// Its distinct term ids, ascending, as varint deltas.
    pub(super) terms: Box<[u8]>,
    /// For each term of `terms`, in order: varint count, then varint position deltas.
    pub(super) positions: Box<[u8]>,
}

/// The inverted index: notes by id, terms by id, and each term's notes.
#[derive(Debug, Default)]
pub(crate) struct Index {
    /// By id; `None` for a removed note until the next compaction.
    pub(super) docs: Vec<Option<Doc>>,
    pub(super) dead: usize,
    pub(super) by_path: HashMap<String, u32>,
    pub(super) term_ids: HashMap<Box<str>, u32>,
    /// By id (joined: a needle is looked for in every term in one pass).
    pub(super) terms: Joined,
    pub(super) postings: Vec<Postings>,
    /// Bytes held, about (kept as notes come and go).
    pub(super) held: usize,
}

/// A note's (term, occurrences) pairs, from its own lists.
pub(super) fn term_counts(doc: &Doc) -> impl Iterator<Item = (u32, u32)> + '_ {
    let mut at = 0;
    read_ascending(&doc.terms).map(move |t| {
        let n = read_varint(&doc.positions, &mut at);
        for _ in 0..n {
            read_varint(&doc.positions, &mut at);
        }
        (t, n)
    })
}

/// What a note costs in memory, about (its entry in `docs` and `by_path`).
pub(super) fn doc_bytes(doc: &Doc) -> usize {
    96 + doc.path.len() * 2 + doc.terms.len() + doc.positions.len()
}

impl Index {
    /// Notes indexed.
    pub(crate) fn len(&self) -> usize {
        self.by_path.len()
    }

    /// The note at `path`, if indexed.
    pub(crate) fn doc(&self, path: &str) -> Option<(u32, &Doc)> {
        let id = *self.by_path.get(path)?;
        self.docs.get(id as usize)?.as_ref().map(|d| (id, d))
    }

    /// The note with this id, if live.
    pub(crate) fn by_id(&self, id: u32) -> Option<&Doc> {
        self.docs.get(id as usize)?.as_ref()
    }

    /// Terms known (live or not).
    pub(crate) fn terms(&self) -> usize {
        self.terms.len()
    }

    /// Ids handed out (live and removed notes' slots).
    pub(crate) fn slots(&self) -> usize {
        self.docs.len()
    }

    /// The live notes among the ids `from..to` (a slice of the notes, for work done in turns).
    pub(crate) fn docs_between(&self, from: usize, to: usize) -> impl Iterator<Item = &Doc> {
        self.docs.get(from..to.min(self.docs.len())).unwrap_or_default().iter().flatten()
    }

    /// Every indexed note.
    pub(crate) fn docs(&self) -> impl Iterator<Item = &Doc> {
        self.docs.iter().flatten()
    }

    pub(super) fn term_id(&mut self, term: &str) -> u32 {
        if let Some(&id) = self.term_ids.get(term) {
            return id;
        }
        let id = self.terms.len() as u32;
        self.term_ids.insert(term.into(), id);
        self.terms.push(term);
        self.postings.push(Postings::default());
        self.held += 64 + term.len() * 2;
        id
    }

    /// Adds or replaces a note; `text` `None` when the host could not read it.
    pub(crate) fn upsert(&mut self, path: &str, size: u64, modified_ms: u64, text: Option<&str>) {
        self.remove(path);
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        if let Some(text) = text {
            let folded = fold_case(text);
            for (at, term) in tokens(&folded).enumerate() {
                let t = self.term_id(term);
                pairs.push((t, at as u32));
            }
        }
        let count = u32::try_from(pairs.len()).unwrap_or(u32::MAX);
        pairs.sort_unstable();
        let id = self.docs.len() as u32;
        let mut positions = Vec::new();
        let mut distinct = Vec::new();
        for group in pairs.chunk_by(|a, b| a.0 == b.0) {
            let t = group[0].0;
            distinct.push(t);
            push_varint(&mut positions, group.len() as u32);
            let mut last = 0;
            for &(_, p) in group {
                push_varint(&mut positions, p - last);
                last = p;
            }
            let list = &mut self.postings[t as usize];
            let before = list.bytes.capacity();
            list.push(id, group.len() as u32);
            self.held += list.bytes.capacity() - before;
        }
        let doc = Doc {
            path: path.to_owned(),
            size,
            modified_ms,
            unreadable: text.is_none(),
            tokens: count,
            long_lines: text.map_or(0, |t| t.lines().filter(|l| l.len() > LINE_WORK).count() as u32),
            terms: write_ascending(distinct.into_iter()),
            positions: positions.into(),
        };
        self.held += doc_bytes(&doc);
        self.docs.push(Some(doc));
        self.by_path.insert(path.to_owned(), id);
    }

    /// Forgets a note; returns whether it was indexed. Its postings stay, dead, until
    /// [`Index::compact`].
    pub(crate) fn remove(&mut self, path: &str) -> bool {
        let Some(id) = self.by_path.remove(path) else { return false };
        if let Some(doc) = self.docs.get_mut(id as usize).and_then(Option::take) {
            for t in read_ascending(&doc.terms) {
                if let Some(p) = self.postings.get_mut(t as usize) {
                    p.live = p.live.saturating_sub(1);
                }
            }
            self.held = self.held.saturating_sub(doc_bytes(&doc));
            self.dead += 1;
        }
        true
    }

    /// Gives back the room the postings of terms `from..to` grew into (a list's bytes double as
    /// it grows): after a build or a large repair, a slice of terms at a time, not after each note
    /// (a list shrunk and grown again at every edit would be copied at every edit). The maps keep
    /// their room: rehashing 100,000 paths at once would hold the event loop.
    pub(crate) fn shrink(&mut self, from: usize, to: usize) {
        let end = to.min(self.postings.len());
        for p in self.postings.get_mut(from..end).unwrap_or_default() {
            let before = p.bytes.capacity();
            p.bytes.shrink_to_fit();
            self.held = self.held.saturating_sub(before - p.bytes.capacity());
        }
        if end == self.postings.len() {
            self.postings.shrink_to_fit();
            self.docs.shrink_to_fit();
        }
    }

    /// Renumbers the live notes densely and rewrites the postings without the dead ones, once
    /// they outnumber the live (ids change: callers holding ids take them again).
    pub(crate) fn compact_if_worth_it(&mut self) {
        if self.dead > 1024 && self.dead > self.len() {
            self.compact();
        }
    }

    fn compact(&mut self) {
        let docs: Vec<Doc> = std::mem::take(&mut self.docs).into_iter().flatten().collect();
        for p in &mut self.postings {
            *p = Postings::default();
        }
        self.by_path.clear();
        self.dead = 0;
        for (id, doc) in docs.iter().enumerate() {
            for (t, n) in term_counts(doc) {
                // A note's terms are known ones (a persisted index is checked by its checksums,
                // not term by term: an unknown id is skipped, never a panic).
                if let Some(p) = self.postings.get_mut(t as usize) {
                    p.push(id as u32, n);
                }
            }
            self.by_path.insert(doc.path.clone(), id as u32);
        }
        self.docs = docs.into_iter().map(Some).collect();
        self.held = self.measure();
    }

    /// Ids of the terms held by a live note that contain `sub`.
    fn terms_holding(&self, sub: &str) -> Vec<u32> {
        let mut ids = self.terms.holding(sub).unwrap_or_default();
        ids.retain(|&t| self.postings[t as usize].live > 0);
        ids
    }

    /// By note id: whether the note is live and has a term containing `sub` (a table
    /// entry per id handed out, so a search looks a note up instead of searching a list).
    fn docs_with(&self, sub: &str) -> Vec<bool> {
        let mut seen = vec![false; self.docs.len()];
        for t in self.terms_holding(sub) {
            for (d, _) in self.postings[t as usize].iter() {
                if let Some(s) = seen.get_mut(d as usize) {
                    *s = true;
                }
            }
        }
        for (s, doc) in seen.iter_mut().zip(&self.docs) {
            *s &= doc.is_some();
        }
        seen
    }

    /// Notes whose text contains the term characters `sub` (folded) inside one term, ascending.
    #[cfg(test)]
    fn containing(&self, sub: &str) -> Vec<u32> {
        let holds = self.docs_with(sub);
        (0..holds.len() as u32).filter(|&d| holds[d as usize]).collect()
    }

    /// By note id: whether the note can contain every one of `literals` (folded term
    /// characters).
    pub(crate) fn containing_all(&self, literals: &[String]) -> Vec<bool> {
        let mut out = vec![!literals.is_empty(); self.docs.len()];
        for literal in literals {
            let holds = self.docs_with(literal);
            for (o, h) in out.iter_mut().zip(holds) {
                *o &= h;
            }
        }
        out
    }

    /// A note's terms with their positions.
    fn doc_terms<'d>(&'d self, doc: &'d Doc) -> impl Iterator<Item = (&'d str, Vec<u32>)> + 'd {
        let mut at = 0;
        read_ascending(&doc.terms).map(move |t| {
            let n = read_varint(&doc.positions, &mut at);
            let mut last = 0;
            let list = (0..n)
                .map(|_| {
                    last += read_varint(&doc.positions, &mut at);
                    last
                })
                .collect();
            (self.terms.get(t as usize), list)
        })
    }

    /// How many times a folded term-character needle occurs in each note, by note id (a table
    /// entry per id handed out; 0 for a note without it or a dead id) — what the plain matcher
    /// counts: non-overlapping, never across two terms — from the matching terms' postings: no
    /// note is looked at.
    pub(crate) fn counts(&self, needle: &str) -> Vec<u32> {
        let mut out = vec![0u32; self.docs.len()];
        for t in self.terms_holding(needle) {
            let occurs = self.terms.get(t as usize).matches(needle).count() as u32;
            for (d, n) in self.postings[t as usize].iter() {
                if let Some(c) = out.get_mut(d as usize) {
                    *c = c.saturating_add(occurs.saturating_mul(n));
                }
            }
        }
        for (c, doc) in out.iter_mut().zip(&self.docs) {
            if doc.is_none() {
                *c = 0;
            }
        }
        out
    }

    /// The `k` notes best ranked by BM25 over these whole (folded) words, any of them, by note
    /// id, best first: what ranks a question asked in everyday words, where no note holds the
    /// question as written.
    pub(crate) fn rank_words(&self, words: &[String], k: usize) -> Vec<(u32, f32)> {
        let live = self.len() as f64;
        let average = self.docs().map(|d| f64::from(d.tokens)).sum::<f64>() / live.max(1.0);
        let mut scores: HashMap<u32, f64> = HashMap::new();
        let mut seen: Vec<&str> = Vec::new();
        for word in words {
            if seen.contains(&word.as_str()) {
                continue;
            }
            seen.push(word);
            let Some(&t) = self.term_ids.get(word.as_str()) else { continue };
            let postings: Vec<(u32, u32)> =
                self.postings[t as usize].iter().filter(|(d, _)| self.by_id(*d).is_some()).collect();
            let idf = bm25_idf(live, postings.len() as f64);
            for (d, n) in postings {
                let Some(doc) = self.by_id(d) else { continue };
                *scores.entry(d).or_default() += idf * bm25_tf(f64::from(n), f64::from(doc.tokens), average);
            }
        }
        let mut ranked: Vec<(u32, f32)> = scores.into_iter().map(|(d, score)| (d, score as f32)).collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        ranked.truncate(k);
        ranked
    }

    /// Whether a note may contain the phrase `words` (folded; the first may end a longer term,
    /// the last may begin one, the others are whole terms) at consecutive positions.
    pub(crate) fn may_contain_phrase(&self, doc: &Doc, words: &[&str]) -> bool {
        let Some(last) = words.len().checked_sub(1) else { return true };
        let mut sets: Vec<Vec<u32>> = vec![Vec::new(); words.len()];
        for (term, positions) in self.doc_terms(doc) {
            for (i, w) in words.iter().enumerate() {
                let fits = if i == 0 && last > 0 {
                    term.ends_with(w)
                } else if i == last && last > 0 {
                    term.starts_with(w)
                } else if last == 0 {
                    term.contains(w)
                } else {
                    term == *w
                };
                if fits {
                    sets[i].extend(&positions);
                }
            }
        }
        for set in &mut sets {
            set.sort_unstable();
        }
        sets[0].iter().any(|&p| (1..words.len()).all(|i| sets[i].binary_search(&(p + i as u32)).is_ok()))
    }

    /// Bytes the index holds, about (what the memory ceiling is checked against).
    pub(crate) fn bytes(&self) -> usize {
        self.held + self.docs.capacity() * std::mem::size_of::<Option<Doc>>()
    }

    pub(super) fn measure(&self) -> usize {
        let docs: usize = self.docs().map(doc_bytes).sum();
        let terms: usize = self.terms.iter().map(|t| 64 + t.len() * 2).sum();
        let postings: usize = self.postings.iter().map(|p| p.bytes.capacity()).sum();
        docs + terms + postings
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_positions_counts_and_removal() {
        let mut index = Index::default();
        index.upsert("a.md", 10, 1, Some("Oat milk and Buttermilk\nmilk milk"));
        index.upsert("b.md", 5, 2, Some("tea"));
        let (_, a) = index.doc("a.md").unwrap();
        assert_eq!(a.tokens, 6);
        assert_eq!(a.tokens, 6);
        assert_eq!(index.counts("milk"), vec![4, 0]);
        assert_eq!(index.containing("milk"), vec![0]);
        assert!(index.may_contain_phrase(a, &["oat", "milk"]));
        assert!(!index.may_contain_phrase(a, &["milk", "oat"]));
        assert!(index.may_contain_phrase(a, &["ttermilk", "mil"]));
        index.upsert("a.md", 3, 3, Some("tea"));
        assert!(index.containing("milk").is_empty());
        assert_eq!(index.containing("tea").len(), 2);
        assert!(index.remove("b.md"));
        assert_eq!(index.len(), 1);
        // Ids are not reused: a changed note takes a new one; compaction renumbers densely.
        assert_eq!(index.doc("a.md").unwrap().0, 2);
        assert_eq!(index.counts("tea"), vec![0, 0, 1]);
        index.compact();
        assert_eq!(index.doc("a.md").unwrap().0, 0);
        assert_eq!(index.counts("tea"), vec![1]);
        assert_eq!(index.containing("tea"), vec![0]);
    }

    #[test]
    fn shrinking_gives_room_back_and_keeps_the_answers() {
        let mut index = Index::default();
        for n in 0..3000 {
            index.upsert(&format!("n{n}.md"), 1, 1, Some(&format!("common common w{} w{}", n % 7, n)));
        }
        let (before, counts) = (index.bytes(), index.counts("common"));
        index.shrink(0, 2);
        index.shrink(2, usize::MAX);
        assert!(index.bytes() < before, "{} < {before}", index.bytes());
        assert_eq!(index.counts("common"), counts);
        assert_eq!(counts.iter().filter(|&&c| c == 2).count(), 3000);
        // Postings stay whole across one-byte and longer id deltas, once and many times.
        assert_eq!(index.counts("w2999"), (0..3000).map(|n| u32::from(n == 2999)).collect::<Vec<_>>());
        index.upsert("n5.md", 1, 1, Some("w3 w3 w3"));
        assert_eq!(index.counts("w3")[3000], 3);
    }
}
