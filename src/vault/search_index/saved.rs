//! The search index on disk: a small manifest, `.smarthole/search-index.txt` (format, counts, and
//! each piece's file, length and checksum, then a checksum of those lines), naming pieces in
//! `.smarthole/search-index/` of at most [`PIECE_BYTES`] bytes each (base64 text, as the data
//! folder's host calls carry text). The pieces hold the index as it is in memory — every term with
//! its postings, then every note slot (a removed note's too, so ids stay as they were) — so a
//! restart copies postings back instead of rebuilding them from each note's terms.
//!
//! Why pieces: at 100,000 notes the index is about 100 MB; written or read as one text it crossed
//! the wasm boundary in one string and was held whole beside the index (the wasm memory, which
//! never shrinks, grew to about 800 MB) and stalled the event loop for over a second. A piece is
//! made, written and dropped, or read, checked and dropped, before the next; the caller gives the
//! event loop a turn between steps (`tools::budget::Budget::pace`).
//!
//! Anything off — a checksum, a length, a record, a count — and the whole is damaged: the caller
//! rebuilds, never trusting it. A file of another format (the one-text form of before) is damaged
//! the same way, and replaced at the next save.

use base64::Engine;

use super::inverted::{Doc, Index, Postings};
use super::terms::is_term;
use super::varint::{push_varint, push_varint64};

/// The manifest's file, in the plugin's data folder.
pub(crate) const MANIFEST: &str = "search-index.txt";
/// The pieces' folder.
pub(crate) const FOLDER: &str = "search-index";
/// The persisted format's name and version (the manifest's first word).
const FORMAT: &str = "smarthole-search-index-2";
/// Bytes of index in one piece (before base64).
pub(crate) const PIECE_BYTES: usize = 1 << 20;
/// Terms or notes written or read in one step.
const PER_STEP: usize = 256;

/// The index's files are not an index this version wrote whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Damaged;

/// A checksum of a piece's text: finds damage (a torn write, a sync tool's merge, a changed
/// byte), not tampering. Word at a time: SHA-256 over 130 MB cost a restart about a second.
pub(crate) fn checksum(bytes: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mix = |h: u64| {
        let h = h.wrapping_mul(K);
        h ^ (h >> 29)
    };
    let mut h = mix(bytes.len() as u64 ^ K);
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        let mut word = [0u8; 8];
        word.copy_from_slice(w);
        h = mix(h ^ u64::from_le_bytes(word));
    }
    let mut last = [0u8; 8];
    last[..words.remainder().len()].copy_from_slice(words.remainder());
    mix(mix(h ^ u64::from_le_bytes(last)))
}

/// One piece as the manifest names it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PieceRef {
    /// Its file, in the data folder.
    pub(crate) path: String,
    /// Its text's length in bytes.
    pub(crate) chars: usize,
    sum: u64,
}

/// What the manifest says.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Manifest {
    /// Live notes.
    notes: usize,
    /// Note slots (live and removed).
    slots: usize,
    terms: usize,
    pub(crate) pieces: Vec<PieceRef>,
}

impl Manifest {
    /// The manifest's text: a header, a line per piece, the checksum of those lines.
    fn text(&self) -> String {
        let mut out = format!("{FORMAT} {} {} {}\n", self.notes, self.slots, self.terms);
        for p in &self.pieces {
            out.push_str(&format!("{} {} {:016x}\n", p.path, p.chars, p.sum));
        }
        let sum = checksum(out.as_bytes());
        out.push_str(&format!("end {sum:016x}\n"));
        out
    }

    /// A manifest read back; damaged when anything in it is off (another format included).
    pub(crate) fn read(text: &str) -> Result<Manifest, Damaged> {
        let body_end = text.trim_end_matches('\n').rfind('\n').ok_or(Damaged)? + 1;
        let (body, end) = text.split_at(body_end);
        let sum = end.strip_prefix("end ").and_then(|s| u64::from_str_radix(s.trim_end(), 16).ok()).ok_or(Damaged)?;
        if sum != checksum(body.as_bytes()) || end.trim_end().len() + 1 != end.len() {
            return Err(Damaged);
        }
        let mut lines = body.lines();
        let mut head = lines.next().ok_or(Damaged)?.split(' ');
        if head.next() != Some(FORMAT) {
            return Err(Damaged);
        }
        let mut count = || head.next().and_then(|c| c.parse::<usize>().ok()).ok_or(Damaged);
        let (notes, slots, terms) = (count()?, count()?, count()?);
        let mut pieces = Vec::new();
        for line in lines {
            let mut f = line.split(' ');
            let path = f
                .next()
                .filter(|p| p.strip_prefix(FOLDER).is_some_and(|r| r.starts_with('/')) && !p.contains(".."))
                .ok_or(Damaged)?;
            let chars = f.next().and_then(|c| c.parse().ok()).ok_or(Damaged)?;
            let sum = f.next().and_then(|s| u64::from_str_radix(s, 16).ok()).ok_or(Damaged)?;
            pieces.push(PieceRef { path: path.to_owned(), chars, sum });
        }
        // Every record takes at least a byte: counts past the bytes are a damaged header (and
        // would otherwise size allocations).
        let bytes: usize = pieces.iter().map(|p| p.chars).sum();
        if notes > slots || slots.saturating_add(terms) > bytes.saturating_add(1) {
            return Err(Damaged);
        }
        Ok(Manifest { notes, slots, terms, pieces })
    }
}

/// What a writer's step made.
pub(crate) enum Written {
    /// A piece to write to its file.
    Piece(String, String),
    /// The manifest, once every piece is made (written last: until then the old one stands).
    Manifest(String),
}

/// An index written a piece at a time. The index must not change between steps (the indexer
/// writes under the lock its changes take).
pub(crate) struct Writer {
    generation: u64,
    next_term: usize,
    next_doc: usize,
    bytes: Vec<u8>,
    pieces: Vec<PieceRef>,
}

impl Writer {
    /// `generation` names this save's pieces apart from the last one's (still the manifest's
    /// until this one is written).
    pub(crate) fn new(generation: u64) -> Self {
        Writer { generation, next_term: 0, next_doc: 0, bytes: Vec::new(), pieces: Vec::new() }
    }

    /// The next piece made, or the manifest once all are; `None` while a step only added to a
    /// piece.
    pub(crate) fn step(&mut self, index: &Index) -> Option<Written> {
        let (terms, docs) = (index.terms.len(), index.docs.len());
        for _ in 0..PER_STEP {
            if self.bytes.len() >= PIECE_BYTES {
                return Some(self.piece());
            }
            if self.next_term < terms {
                let p = &index.postings[self.next_term];
                let term = index.terms.get(self.next_term);
                for field in [term.as_bytes(), &p.bytes] {
                    push_varint(&mut self.bytes, field.len() as u32);
                    self.bytes.extend_from_slice(field);
                }
                push_varint(&mut self.bytes, p.last);
                push_varint(&mut self.bytes, p.live);
                self.next_term += 1;
            } else if self.next_doc < docs {
                write_doc(&mut self.bytes, index.docs[self.next_doc].as_ref());
                self.next_doc += 1;
            } else if !self.bytes.is_empty() {
                return Some(self.piece());
            } else {
                let pieces = std::mem::take(&mut self.pieces);
                let manifest = Manifest { notes: index.len(), slots: docs, terms, pieces };
                return Some(Written::Manifest(manifest.text()));
            }
        }
        None
    }

    fn piece(&mut self) -> Written {
        let text = base64::engine::general_purpose::STANDARD.encode(&self.bytes);
        self.bytes.clear();
        let path = format!("{FOLDER}/{:016x}-{}.txt", self.generation, self.pieces.len());
        self.pieces.push(PieceRef { path: path.clone(), chars: text.len(), sum: checksum(text.as_bytes()) });
        Written::Piece(path, text)
    }
}

/// A note slot: a flag byte (0 removed, 1 live, 3 live but unreadable), then for a live note its
/// path, size, time, tokens, long lines, terms and positions.
fn write_doc(out: &mut Vec<u8>, doc: Option<&Doc>) {
    let Some(doc) = doc else {
        out.push(0);
        return;
    };
    out.push(1 | u8::from(doc.unreadable) << 1);
    push_varint(out, doc.path.len() as u32);
    out.extend_from_slice(doc.path.as_bytes());
    push_varint64(out, doc.size);
    push_varint64(out, doc.modified_ms);
    push_varint(out, doc.tokens);
    push_varint(out, doc.long_lines);
    for field in [&doc.terms, &doc.positions] {
        push_varint(out, field.len() as u32);
        out.extend_from_slice(field);
    }
}

/// Reads records out of a piece's bytes; `None` past its end or for a number too long.
struct Cursor<'b> {
    bytes: &'b [u8],
    at: usize,
}

impl<'b> Cursor<'b> {
    fn varint64(&mut self) -> Option<u64> {
        let mut n = 0u64;
        for shift in (0..64).step_by(7) {
            let b = *self.bytes.get(self.at)?;
            self.at += 1;
            n |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Some(n);
            }
        }
        None
    }

    fn varint(&mut self) -> Option<u32> {
        self.varint64().and_then(|n| u32::try_from(n).ok())
    }

    fn bytes(&mut self) -> Option<&'b [u8]> {
        let n = self.varint()? as usize;
        let out = self.bytes.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(out)
    }
}

/// An index read back a piece at a time: the caller reads the file [`Reader::wants`] and gives
/// it to [`Reader::feed`], and calls [`Reader::step`] until the index comes out.
pub(crate) struct Reader {
    manifest: Manifest,
    /// The next piece to be fed.
    next_piece: usize,
    bytes: Vec<u8>,
    at: usize,
    index: Index,
}

impl Reader {
    pub(crate) fn new(manifest: Manifest) -> Self {
        let mut index = Index::default();
        index.docs.reserve_exact(manifest.slots);
        index.postings.reserve_exact(manifest.terms);
        index.by_path.reserve(manifest.notes);
        index.term_ids.reserve(manifest.terms);
        Reader { manifest, next_piece: 0, bytes: Vec::new(), at: 0, index }
    }

    /// The piece to read next, once the one before is used up.
    pub(crate) fn wants(&self) -> Option<&PieceRef> {
        (self.at >= self.bytes.len()).then(|| self.manifest.pieces.get(self.next_piece)).flatten()
    }

    /// The text of the piece [`Reader::wants`] named; damaged unless it is what the manifest says.
    pub(crate) fn feed(&mut self, text: &str) -> Result<(), Damaged> {
        let want = self.manifest.pieces.get(self.next_piece).ok_or(Damaged)?;
        if text.len() != want.chars || checksum(text.as_bytes()) != want.sum {
            return Err(Damaged);
        }
        self.bytes = base64::engine::general_purpose::STANDARD.decode(text).map_err(|_| Damaged)?;
        self.at = 0;
        self.next_piece += 1;
        if self.bytes.is_empty() {
            return Err(Damaged);
        }
        Ok(())
    }

    /// Reads some records of the piece fed; the index once the last is read.
    pub(crate) fn step(&mut self) -> Result<Option<Index>, Damaged> {
        let Manifest { notes, slots, terms, .. } = self.manifest;
        for _ in 0..PER_STEP {
            let (t, d) = (self.index.terms.len(), self.index.docs.len());
            if t == terms && d == slots {
                let done = self.at >= self.bytes.len() && self.next_piece == self.manifest.pieces.len();
                if !done || self.index.len() != notes {
                    return Err(Damaged);
                }
                let mut index = std::mem::take(&mut self.index);
                index.held = index.measure();
                return Ok(Some(index));
            }
            if self.at >= self.bytes.len() {
                // The piece is used up: the next one is wanted (or there is none: damaged).
                return if self.next_piece < self.manifest.pieces.len() { Ok(None) } else { Err(Damaged) };
            }
            let mut cursor = Cursor { bytes: &self.bytes, at: self.at };
            let read = if t < terms {
                read_term(&mut self.index, &mut cursor, slots)
            } else {
                read_doc(&mut self.index, &mut cursor)
            };
            read.ok_or(Damaged)?;
            self.at = cursor.at;
        }
        Ok(None)
    }
}

/// One term and its postings into the index; `None` when anything in it is off.
fn read_term(index: &mut Index, c: &mut Cursor, slots: usize) -> Option<()> {
    let term = std::str::from_utf8(c.bytes()?).ok().filter(|t| is_term(t))?;
    let bytes = c.bytes()?.to_vec();
    let (last, live) = (c.varint()?, c.varint()?);
    if (!bytes.is_empty() && last as usize >= slots) || live as usize > slots || index.term_ids.contains_key(term) {
        return None;
    }
    index.term_ids.insert(term.into(), index.terms.len() as u32);
    index.terms.push(term);
    index.postings.push(Postings { bytes, last, live });
    Some(())
}

/// One note slot into the index; `None` when anything in it is off.
fn read_doc(index: &mut Index, c: &mut Cursor) -> Option<()> {
    let flags = *c.bytes.get(c.at)?;
    c.at += 1;
    if flags == 0 {
        index.docs.push(None);
        index.dead += 1;
        return Some(());
    }
    if flags & !2 != 1 {
        return None;
    }
    let path = std::str::from_utf8(c.bytes()?).ok()?;
    let (size, modified_ms) = (c.varint64()?, c.varint64()?);
    let (tokens, long_lines) = (c.varint()?, c.varint()?);
    let (terms, positions) = (c.bytes()?.into(), c.bytes()?.into());
    let id = index.docs.len() as u32;
    if index.by_path.insert(path.to_owned(), id).is_some() {
        return None;
    }
    let unreadable = flags & 2 != 0;
    index.docs.push(Some(Doc {
        path: path.to_owned(),
        size,
        modified_ms,
        unreadable,
        tokens,
        long_lines,
        terms,
        positions,
    }));
    Some(())
}

#[cfg(test)]
impl Index {
    /// Every file of the persisted form at once: (path, text), the manifest last.
    pub(crate) fn to_files(&self) -> Vec<(String, String)> {
        let mut writer = Writer::new(7);
        let mut files = Vec::new();
        loop {
            match writer.step(self) {
                Some(Written::Piece(path, text)) => files.push((path, text)),
                Some(Written::Manifest(text)) => {
                    files.push((MANIFEST.to_owned(), text));
                    return files;
                }
                None => {}
            }
        }
    }

    /// An index read back from [`Index::to_files`] at once; `None` when anything is off.
    pub(crate) fn from_files(files: &[(String, String)]) -> Option<Index> {
        let find = |path: &str| files.iter().find(|(p, _)| p == path).map(|(_, t)| t.as_str());
        let mut reader = Reader::new(Manifest::read(find(MANIFEST)?).ok()?);
        loop {
            if let Some(piece) = reader.wants() {
                let text = find(&piece.path)?;
                reader.feed(text).ok()?;
            }
            if let Some(index) = reader.step().ok()? {
                return Some(index);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An index of `notes` notes, each with 80 terms of its own, some removed (their slots and
    /// dead postings are kept as they are).
    fn big(notes: usize) -> Index {
        let mut index = Index::default();
        for n in 0..notes {
            let words: Vec<String> = (0..80).map(|w| format!("w{}", n * 80 + w)).collect();
            index.upsert(&format!("n{n}.md"), 10 + n as u64, n as u64, Some(&format!("{} shared", words.join(" "))));
        }
        index.upsert("gone.md", 1, 1, Some("shared"));
        index.remove("gone.md");
        index.upsert("unreadable.md", 5, 2, None);
        index
    }

    fn same(a: &Index, b: &Index) {
        assert_eq!(a.len(), b.len());
        assert_eq!(a.docs, b.docs);
        assert_eq!(a.dead, b.dead);
        assert_eq!(a.terms.iter().collect::<Vec<_>>(), b.terms.iter().collect::<Vec<_>>());
        for (p, q) in a.postings.iter().zip(&b.postings) {
            assert_eq!((&p.bytes, p.last, p.live), (&q.bytes, q.last, q.live));
        }
        assert_eq!(a.counts("shared"), b.counts("shared"));
    }

    #[test]
    fn an_index_comes_back_the_same_from_many_pieces_each_within_its_size() {
        let index = big(4000);
        let files = index.to_files();
        assert!(files.len() > 3, "{} files", files.len());
        for (path, text) in &files[..files.len() - 1] {
            assert!(path.starts_with("search-index/"), "{path}");
            assert!(text.len() <= PIECE_BYTES * 4 / 3 + 1024, "{path}: {}", text.len());
        }
        let back = Index::from_files(&files).expect("reads back");
        same(&index, &back);
        assert_eq!(back.doc("n17.md").map(|(id, d)| (id, d.size)), Some((17, 27)));
        assert!(back.doc("unreadable.md").is_some_and(|(_, d)| d.unreadable));
        assert!(back.doc("gone.md").is_none());
        // The same files again, written from what was read.
        assert_eq!(back.to_files(), files);
        // An empty index too.
        let empty = Index::default();
        assert_eq!(Index::from_files(&empty.to_files()).map(|i| i.len()), Some(0));
    }

    #[test]
    fn a_changed_byte_a_cut_piece_a_missing_piece_or_a_changed_manifest_is_damage() {
        let files = big(4000).to_files();
        let damaged = |f: &dyn Fn(&mut Vec<(String, String)>)| {
            let mut files = files.clone();
            f(&mut files);
            Index::from_files(&files).map(|i| i.len())
        };
        assert_eq!(damaged(&|_| {}), Some(4001));
        // A byte changed in a piece (its checksum no longer fits).
        assert_eq!(
            damaged(&|f| {
                let other = if &f[1].1[100..101] == "A" { "B" } else { "A" };
                f[1].1.replace_range(100..101, other);
            }),
            None
        );
        // A piece cut short, or cut and its manifest line changed to fit.
        assert_eq!(damaged(&|f| f[1].1.truncate(1000)), None);
        assert_eq!(
            damaged(&|f| {
                let (cut, old) = (f[2].1[..800].to_owned(), f[2].1.len());
                f[2].1 = cut;
                let m = f.len() - 1;
                f[m].1 = f[m].1.replace(&format!(" {old} "), " 800 ");
            }),
            None
        );
        // A piece missing, or the manifest cut.
        assert_eq!(damaged(&|f| drop(f.remove(0))), None);
        assert_eq!(
            damaged(&|f| {
                let m = f.len() - 1;
                let cut = f[m].1.len() - 2;
                f[m].1.truncate(cut);
            }),
            None
        );
        // A manifest whose counts were changed (its own checksum no longer fits).
        assert_eq!(
            damaged(&|f| {
                let m = f.len() - 1;
                f[m].1 = f[m].1.replacen(" 4001 ", " 4000 ", 1)
            }),
            None
        );
    }

    #[test]
    fn the_one_text_form_of_before_and_other_files_read_as_damaged() {
        let before =
            "smarthole-search-index-1 1 0123456789abcdef0123456789abcdef b64v2\nmilk\n\na.md\t4\t1\t0\t1\t0\tAA\tAQA\n";
        assert_eq!(Manifest::read(before), Err(Damaged));
        for text in ["", "\n", "end 0\n", "smarthole-search-index-2 0 0 0\n"] {
            assert_eq!(Manifest::read(text), Err(Damaged), "{text:?}");
        }
        // A manifest in order whose counts claim more than its pieces hold.
        let claims = Manifest { notes: 5, slots: 5, terms: 0, pieces: Vec::new() }.text();
        assert_eq!(Manifest::read(&claims), Err(Damaged));
        let fine = Manifest { notes: 0, slots: 0, terms: 0, pieces: Vec::new() }.text();
        assert!(Manifest::read(&fine).is_ok());
    }

    #[test]
    fn records_that_do_not_read_back_are_damage_not_a_panic() {
        let manifest = |bytes: &[u8]| {
            let text = base64::engine::general_purpose::STANDARD.encode(bytes);
            let m = Manifest {
                notes: 1,
                slots: 1,
                terms: 1,
                pieces: vec![PieceRef {
                    path: "search-index/x-0.txt".into(),
                    chars: text.len(),
                    sum: checksum(text.as_bytes()),
                }],
            };
            let files = vec![("search-index/x-0.txt".to_owned(), text), (MANIFEST.to_owned(), m.text())];
            Index::from_files(&files).map(|i| i.len())
        };
        // term "ab", postings [0 1], last 0, live 1; a live note a.md.
        let good: Vec<u8> =
            [&[2, b'a', b'b', 2, 0, 1, 0, 1][..], &[1, 4, b'a', b'.', b'm', b'd', 4, 1, 1, 0, 1, 0, 1, 1][..]].concat();
        assert_eq!(manifest(&good), Some(1));
        let mut not_a_term = good.clone();
        not_a_term[1] = b' ';
        assert_eq!(manifest(&not_a_term), None);
        let mut last_past_the_notes = good.clone();
        last_past_the_notes[6] = 9;
        assert_eq!(manifest(&last_past_the_notes), None);
        let mut bad_flag = good.clone();
        bad_flag[8] = 5;
        assert_eq!(manifest(&bad_flag), None);
        assert_eq!(manifest(&good[..good.len() - 1]), None, "a record cut short");
        assert_eq!(manifest(&[&good[..], &[0]].concat()), None, "a byte past the last record");
        let mut long_number = good.clone();
        long_number.splice(15..16, [0xff; 11]);
        assert_eq!(manifest(&long_number), None, "a number of more than 64 bits");
    }
}
