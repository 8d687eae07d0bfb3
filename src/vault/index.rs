//! The search index: an inverted index of the vault's notes kept in the core, so `search_files`
//! reads only the notes that can match instead of every note on every call (issue 18).
//!
//! Why a module of its own and not a crate: tantivy-class engines (tantivy, milli) are megabytes
//! of wasm with threads, mmap and their own segment files — far past the plugin's 400 KB gzip
//! bundle ceiling — and lighter ones (probly-search, elasticlunr-rs) match whole words only, have
//! no positions, or rebuild to delete. `search_files` matches substrings (`milk` finds
//! `buttermilk`), so what it needs is small: terms with their positions, per-note token counts
//! for BM25, and cheap add/remove per note as vault events arrive. That is this file.
//!
//! A term is a maximal run of alphanumeric characters of the note's text lower-cased with
//! `fold_case` (the plain matcher's own folding), so a plain query made of such characters only
//! lies inside one term: the notes it matches, and how many times, are read from the index
//! exactly. Other queries are narrowed here (phrases by positions, regexes by the literals they
//! require) and confirmed on the candidate notes' text by the caller.

use std::collections::HashMap;

use crate::lean::fold_case;

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
    /// Its distinct term ids, ascending.
    terms: Box<[u32]>,
    /// How many times each of `terms` occurs (saturating).
    counts: Box<[u16]>,
    /// For each term of `terms`, in order: varint count, then varint position deltas.
    positions: Box<[u8]>,
}

/// The inverted index: notes by id, terms by id, and each term's notes.
#[derive(Debug, Default)]
pub(crate) struct Index {
    docs: Vec<Option<Doc>>,
    free: Vec<u32>,
    by_path: HashMap<String, u32>,
    term_ids: HashMap<Box<str>, u32>,
    terms: Vec<Box<str>>,
    /// Each term's notes, ascending ids.
    postings: Vec<Vec<u32>>,
}

fn push_varint(out: &mut Vec<u8>, mut n: u32) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

fn read_varint(bytes: &[u8], at: &mut usize) -> u32 {
    let mut n = 0u32;
    let mut shift = 0;
    while let Some(&b) = bytes.get(*at) {
        *at += 1;
        n |= u32::from(b & 0x7f).checked_shl(shift).unwrap_or(0);
        if b & 0x80 == 0 {
            break;
        }
        shift += 7;
    }
    n
}

/// The terms of already folded text, in order.
pub(crate) fn tokens(folded: &str) -> impl Iterator<Item = &str> {
    folded.split(|c: char| !c.is_alphanumeric()).filter(|t| !t.is_empty())
}

/// Whether every character of a folded needle is a term character (then the index answers it
/// exactly).
pub(crate) fn is_term(needle: &str) -> bool {
    !needle.is_empty() && needle.chars().all(char::is_alphanumeric)
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

    /// Every indexed note.
    pub(crate) fn docs(&self) -> impl Iterator<Item = &Doc> {
        self.docs.iter().flatten()
    }

    /// Adds or replaces a note; `text` `None` when the host could not read it.
    pub(crate) fn upsert(&mut self, path: &str, size: u64, modified_ms: u64, text: Option<&str>) {
        self.remove(path);
        let mut grouped: HashMap<u32, Vec<u32>> = HashMap::new();
        let mut count = 0u32;
        if let Some(text) = text {
            let folded = fold_case(text);
            for term in tokens(&folded) {
                let id = match self.term_ids.get(term) {
                    Some(&id) => id,
                    None => {
                        let id = self.terms.len() as u32;
                        self.term_ids.insert(term.into(), id);
                        self.terms.push(term.into());
                        self.postings.push(Vec::new());
                        id
                    }
                };
                grouped.entry(id).or_default().push(count);
                count = count.saturating_add(1);
            }
        }
        let mut terms: Vec<u32> = grouped.keys().copied().collect();
        terms.sort_unstable();
        let mut positions = Vec::new();
        for t in &terms {
            let list = &grouped[t];
            push_varint(&mut positions, list.len() as u32);
            let mut last = 0;
            for &p in list {
                push_varint(&mut positions, p - last);
                last = p;
            }
        }
        let id = self.free.pop().unwrap_or(self.docs.len() as u32);
        for &t in &terms {
            let list = &mut self.postings[t as usize];
            let at = list.partition_point(|&d| d < id);
            list.insert(at, id);
        }
        let doc = Doc {
            path: path.to_owned(),
            size,
            modified_ms,
            unreadable: text.is_none(),
            tokens: count,
            counts: terms.iter().map(|t| u16::try_from(grouped[t].len()).unwrap_or(u16::MAX)).collect(),
            terms: terms.into(),
            positions: positions.into(),
        };
        if id as usize == self.docs.len() {
            self.docs.push(Some(doc));
        } else {
            self.docs[id as usize] = Some(doc);
        }
        self.by_path.insert(path.to_owned(), id);
    }

    /// Forgets a note; returns whether it was indexed.
    pub(crate) fn remove(&mut self, path: &str) -> bool {
        let Some(id) = self.by_path.remove(path) else { return false };
        if let Some(doc) = self.docs.get_mut(id as usize).and_then(Option::take) {
            for &t in doc.terms.iter() {
                let list = &mut self.postings[t as usize];
                if let Ok(at) = list.binary_search(&id) {
                    list.remove(at);
                }
            }
        }
        self.free.push(id);
        true
    }

    /// Ids of the terms for which `keep` holds (a scan of the term list: thousands per ms).
    fn terms_where(&self, keep: impl Fn(&str) -> bool) -> Vec<u32> {
        (0..self.terms.len() as u32)
            .filter(|&t| !self.postings[t as usize].is_empty() && keep(&self.terms[t as usize]))
            .collect()
    }

    /// Notes with a term for which `keep` holds, ascending.
    fn docs_with(&self, keep: impl Fn(&str) -> bool) -> Vec<u32> {
        let mut out: Vec<u32> =
            self.terms_where(keep).iter().flat_map(|&t| self.postings[t as usize].clone()).collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Notes whose text contains the term characters `sub` (folded) inside one term.
    pub(crate) fn containing(&self, sub: &str) -> Vec<u32> {
        self.docs_with(|term| term.contains(sub))
    }

    /// Notes that can contain every one of `literals` (folded term characters).
    pub(crate) fn containing_all(&self, literals: &[String]) -> Vec<u32> {
        let mut sets: Vec<Vec<u32>> = literals.iter().map(|l| self.containing(l)).collect();
        sets.sort_by_key(Vec::len);
        let mut out = sets.first().cloned().unwrap_or_default();
        for set in &sets[1.min(sets.len())..] {
            out.retain(|d| set.binary_search(d).is_ok());
        }
        out
    }

    /// A note's terms with their positions.
    fn doc_terms<'d>(&'d self, doc: &'d Doc) -> impl Iterator<Item = (&'d str, Vec<u32>)> + 'd {
        let mut at = 0;
        doc.terms.iter().map(move |&t| {
            let n = read_varint(&doc.positions, &mut at);
            let mut last = 0;
            let list = (0..n)
                .map(|_| {
                    last += read_varint(&doc.positions, &mut at);
                    last
                })
                .collect();
            (&*self.terms[t as usize], list)
        })
    }

    /// How many times a folded term-character needle occurs in each note that has it, by note id
    /// ascending (what the plain matcher counts: non-overlapping, never across two terms), from
    /// the matching terms' postings — no note is looked at that does not match.
    pub(crate) fn counts(&self, needle: &str) -> Vec<(u32, usize)> {
        let mut out: HashMap<u32, usize> = HashMap::new();
        for t in self.terms_where(|term| term.contains(needle)) {
            let occurs = self.terms[t as usize].matches(needle).count();
            for &d in &self.postings[t as usize] {
                let Some(doc) = self.docs.get(d as usize).and_then(Option::as_ref) else { continue };
                let tf = doc.terms.binary_search(&t).ok().map_or(0, |k| usize::from(doc.counts[k]));
                *out.entry(d).or_default() += occurs * tf;
            }
        }
        let mut out: Vec<(u32, usize)> = out.into_iter().collect();
        out.sort_unstable();
        out
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
        let docs: usize = self.docs().map(|d| 80 + d.path.len() * 2 + d.terms.len() * 6 + d.positions.len()).sum();
        let terms: usize = self.terms.iter().map(|t| 48 + t.len() * 2).sum();
        let postings: usize = self.postings.iter().map(|p| 24 + p.capacity() * 4).sum();
        docs + terms + postings + self.docs.capacity() * 8
    }

    /// The index as text (`.smarthole/search-index.txt`): a header line with a checksum of the
    /// rest, the terms, then one line per note.
    pub(crate) fn to_text(&self) -> String {
        let mut body = String::new();
        // Terms renumbered densely in the order written.
        let mut renumber: Vec<Option<u32>> = vec![None; self.terms.len()];
        let mut written = 0u32;
        for (t, term) in self.terms.iter().enumerate() {
            if !self.postings[t].is_empty() {
                renumber[t] = Some(written);
                written += 1;
                body.push_str(term);
                body.push('\n');
            }
        }
        body.push('\n');
        for doc in self.docs() {
            let mut at = 0;
            let mut fields = Vec::with_capacity(doc.terms.len());
            for &t in doc.terms.iter() {
                let n = read_varint(&doc.positions, &mut at);
                let mut field = format!("{}", renumber[t as usize].unwrap_or(0));
                for _ in 0..n {
                    field.push(',');
                    field.push_str(&read_varint(&doc.positions, &mut at).to_string());
                }
                fields.push(field);
            }
            body.push_str(&format!(
                "{}\t{}\t{}\t{}\t{}\t{}\n",
                doc.path.replace(['\t', '\n'], " "),
                doc.size,
                doc.modified_ms,
                u8::from(doc.unreadable),
                doc.tokens,
                fields.join(" ")
            ));
        }
        format!("{FORMAT} {} {}\n{body}", self.len(), checksum(&body))
    }

    /// An index read back from [`Index::to_text`]; `None` when anything is off (the caller
    /// rebuilds: a damaged index is never trusted).
    pub(crate) fn from_text(text: &str) -> Option<Index> {
        let (header, body) = text.split_once('\n')?;
        let mut head = header.split(' ');
        if head.next()? != FORMAT {
            return None;
        }
        let count: usize = head.next()?.parse().ok()?;
        if head.next()? != checksum(body) {
            return None;
        }
        let (terms, notes) = body.split_once("\n\n").or_else(|| body.strip_prefix('\n').map(|n| ("", n)))?;
        let terms: Vec<&str> = if terms.is_empty() { Vec::new() } else { terms.split('\n').collect() };
        let mut index = Index::default();
        for term in &terms {
            if !is_term(term) || index.term_ids.contains_key(*term) {
                return None;
            }
            index.term_ids.insert((*term).into(), index.terms.len() as u32);
            index.terms.push((*term).into());
            index.postings.push(Vec::new());
        }
        for line in notes.lines() {
            let mut f = line.split('\t');
            let path = f.next()?;
            let size = f.next()?.parse().ok()?;
            let modified_ms = f.next()?.parse().ok()?;
            let unreadable = f.next()? == "1";
            let tokens: u32 = f.next()?.parse().ok()?;
            let fields = f.next()?;
            let mut grouped: Vec<(u32, Vec<u32>)> = Vec::new();
            for field in fields.split(' ').filter(|s| !s.is_empty()) {
                let mut numbers = field.split(',');
                let t: u32 = numbers.next()?.parse().ok()?;
                if t as usize >= terms.len() || grouped.last().is_some_and(|(last, _)| *last >= t) {
                    return None;
                }
                let deltas: Vec<u32> = numbers.map(|n| n.parse().ok()).collect::<Option<_>>()?;
                grouped.push((t, deltas));
            }
            if index.by_path.contains_key(path) {
                return None;
            }
            let id = index.docs.len() as u32;
            let mut positions = Vec::new();
            for (t, deltas) in &grouped {
                push_varint(&mut positions, deltas.len() as u32);
                for &d in deltas {
                    push_varint(&mut positions, d);
                }
                index.postings[*t as usize].push(id);
            }
            let doc = Doc {
                path: path.to_owned(),
                size,
                modified_ms,
                unreadable,
                tokens,
                terms: grouped.iter().map(|(t, _)| *t).collect(),
                counts: grouped.iter().map(|(_, d)| u16::try_from(d.len()).unwrap_or(u16::MAX)).collect(),
                positions: positions.into(),
            };
            index.docs.push(Some(doc));
            index.by_path.insert(path.to_owned(), id);
        }
        (index.len() == count).then_some(index)
    }
}

/// The persisted format's name and version.
const FORMAT: &str = "smarthole-search-index-1";

fn checksum(body: &str) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(body.as_bytes());
    digest.iter().take(16).map(|b| format!("{b:02x}")).collect()
}

/// The literal runs of term characters a regular expression cannot match without (folded): a
/// conservative reading — any alternation, and anything it does not understand, gives none (then
/// every note is a candidate).
pub(crate) fn required_literals(pattern: &str) -> Vec<String> {
    if pattern.contains('|') {
        return Vec::new();
    }
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = Vec::new();
    let mut run = String::new();
    let mut depth = 0usize;
    let mut i = 0;
    let flush = |run: &mut String, out: &mut Vec<String>| {
        if !run.is_empty() {
            out.push(std::mem::take(run));
        }
    };
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' => {
                flush(&mut run, &mut out);
                i += 2;
                continue;
            }
            '[' => {
                flush(&mut run, &mut out);
                // Skip the class: a ']' first is literal.
                i += 1;
                if chars.get(i) == Some(&'^') {
                    i += 1;
                }
                if chars.get(i) == Some(&']') {
                    i += 1;
                }
                while i < chars.len() && chars[i] != ']' {
                    if chars[i] == '\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            '(' => {
                flush(&mut run, &mut out);
                depth += 1;
            }
            ')' => {
                flush(&mut run, &mut out);
                depth = depth.saturating_sub(1);
            }
            '?' | '*' | '{' => {
                // The atom before may be absent: drop it from the run.
                run.pop();
                flush(&mut run, &mut out);
                if c == '{' {
                    while i < chars.len() && chars[i] != '}' {
                        i += 1;
                    }
                }
            }
            c if c.is_alphanumeric() && depth == 0 => {
                // Folded as the text is; a character whose folding is not one term character
                // ends the run.
                let folded = fold_case(&c.to_string());
                if is_term(&folded) {
                    run.push_str(&folded);
                } else {
                    flush(&mut run, &mut out);
                }
            }
            _ => flush(&mut run, &mut out),
        }
        i += 1;
    }
    flush(&mut run, &mut out);
    // A quantifier after a run ends it one character early; a run of one character narrows
    // little.
    out.retain(|r| !r.is_empty());
    out
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
        assert_eq!(index.counts("milk"), vec![(0, 4)]);
        assert_eq!(index.containing("milk"), vec![0]);
        assert!(index.may_contain_phrase(a, &["oat", "milk"]));
        assert!(!index.may_contain_phrase(a, &["milk", "oat"]));
        assert!(index.may_contain_phrase(a, &["ttermilk", "mil"]));
        index.upsert("a.md", 3, 3, Some("tea"));
        assert!(index.containing("milk").is_empty());
        assert_eq!(index.containing("tea").len(), 2);
        assert!(index.remove("b.md"));
        assert_eq!(index.len(), 1);
    }

    #[test]
    fn the_text_form_round_trips_and_damage_is_refused() {
        let mut index = Index::default();
        index.upsert("x/a.md", 10, 1, Some("alpha beta alpha"));
        index.upsert("b.md", 5, 2, None);
        let text = index.to_text();
        let back = Index::from_text(&text).unwrap();
        assert_eq!(back.to_text(), text);
        assert!(back.doc("b.md").unwrap().1.unreadable);
        assert!(Index::from_text(&text.replace("alpha", "alphb")).is_none());
        assert!(Index::from_text(&text[..text.len() - 3]).is_none());
        assert!(Index::from_text("").is_none());
    }

    #[test]
    fn literals_a_regex_requires() {
        assert_eq!(required_literals(r"\bstep (one|two)$"), Vec::<String>::new());
        assert_eq!(required_literals(r"Zebra\d+ crossing"), vec!["zebra", "crossing"]);
        assert_eq!(required_literals("colou?r"), vec!["colo", "r"]);
        assert_eq!(required_literals("a{0,1000}b"), vec!["b"]);
        assert_eq!(required_literals("[abc]+xyz(q)*"), vec!["xyz"]);
    }
}
