//! The search index on disk: a small manifest, `.smarthole/search-index.txt` (format, counts, and
//! each piece's file, length and checksum, then a checksum of those lines), naming pieces in
//! `.smarthole/search-index/` of about [`PIECE_BYTES`] bytes each, written and read as bytes
//! (`Host::write_file_atomic_bytes`, `Host::read_file_bytes`: base64 text cost a 100,000-note
//! restart about a second to check and decode, and the JS strings it arrived as about a second
//! of garbage collection). The pieces hold the index as it is in memory — every term with
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
//! rebuilds, never trusting it. A file of another format (the one-text form, or the base64 pieces
//! of before) is damaged the same way, and replaced at the next save (the old pieces removed).

use super::inverted::{Doc, Index};
use super::varint::{push_varint, push_varint64};

/// The manifest's file, in the plugin's data folder.
pub(crate) const MANIFEST: &str = "search-index.txt";
/// The pieces' folder.
pub(crate) const FOLDER: &str = "search-index";
/// The persisted format's name and version (the manifest's first word).
const FORMAT: &str = "smarthole-search-index-3";
/// Bytes of index in one piece (a record that starts in it may end past it).
pub(crate) const PIECE_BYTES: usize = 1 << 21;
/// Terms or notes written or read in one step.
pub(super) const PER_STEP: usize = 256;

/// The index's files are not an index this version wrote whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Damaged;

/// A checksum of a piece's bytes: finds damage (a torn write, a sync tool's merge, a changed
/// byte), not tampering. Four words at a time in four lanes the processor can work on together:
/// SHA-256 over the 190 MB of a 100,000-note index cost a restart about a second. Whole words
/// are read as they are (a copy per word cost a restart about 300 ms more).
pub(crate) fn checksum(bytes: &[u8]) -> u64 {
    let mut blocks = bytes.chunks_exact(32);
    let mut lanes = [1u64, 2, 3, 4].map(|l| (bytes.len() as u64).wrapping_add(l).wrapping_mul(K));
    for block in &mut blocks {
        for (n, lane) in lanes.iter_mut().enumerate() {
            let word = <[u8; 8]>::try_from(&block[n * 8..n * 8 + 8]).map_or(0, u64::from_le_bytes);
            *lane = mix(*lane, word);
        }
    }
    let mut h = lanes.iter().fold(K, |h, &lane| mix(h, lane));
    for word in blocks.remainder().chunks(8) {
        let mut w = [0u8; 8];
        w[..word.len()].copy_from_slice(word);
        h = mix(h, u64::from_le_bytes(w));
    }
    mix(h, 0)
}

/// The checksum's multiplier (the golden ratio's fraction in 64 bits).
const K: u64 = 0x9E37_79B9_7F4A_7C15;

/// One word into a lane.
#[inline(always)]
fn mix(h: u64, word: u64) -> u64 {
    let h = (h ^ word).wrapping_mul(K);
    h ^ (h >> 29)
}

/// One piece as the manifest names it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PieceRef {
    /// Its file, in the data folder.
    pub(crate) path: String,
    /// Its length in bytes.
    pub(crate) len: usize,
    pub(super) sum: u64,
}

/// What the manifest says.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Manifest {
    /// Live notes.
    pub(super) notes: usize,
    /// Note slots (live and removed).
    pub(super) slots: usize,
    pub(super) terms: usize,
    pub(crate) pieces: Vec<PieceRef>,
}

impl Manifest {
    /// The manifest's text: a header, a line per piece, the checksum of those lines.
    fn text(&self) -> String {
        let mut out = format!("{FORMAT} {} {} {}\n", self.notes, self.slots, self.terms);
        for p in &self.pieces {
            out.push_str(&format!("{} {} {:016x}\n", p.path, p.len, p.sum));
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
            let len = f.next().and_then(|c| c.parse().ok()).ok_or(Damaged)?;
            let sum = f.next().and_then(|s| u64::from_str_radix(s, 16).ok()).ok_or(Damaged)?;
            pieces.push(PieceRef { path: path.to_owned(), len, sum });
        }
        // Every record takes at least a byte: counts past the bytes are a damaged header (and
        // would otherwise size allocations).
        let bytes: usize = pieces.iter().map(|p| p.len).sum();
        if notes > slots || slots.saturating_add(terms) > bytes.saturating_add(1) {
            return Err(Damaged);
        }
        Ok(Manifest { notes, slots, terms, pieces })
    }
}

/// What a writer's step made.
pub(crate) enum Written {
    /// A piece to write to its file: (path, bytes).
    Piece(String, Vec<u8>),
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
        let bytes = std::mem::take(&mut self.bytes);
        let path = format!("{FOLDER}/{:016x}-{}.bin", self.generation, self.pieces.len());
        self.pieces.push(PieceRef { path: path.clone(), len: bytes.len(), sum: checksum(&bytes) });
        Written::Piece(path, bytes)
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

#[cfg(test)]
impl Index {
    /// Every file of the persisted form at once: (path, bytes), the manifest last.
    pub(crate) fn to_files(&self) -> Vec<(String, Vec<u8>)> {
        let mut writer = Writer::new(7);
        let mut files = Vec::new();
        loop {
            match writer.step(self) {
                Some(Written::Piece(path, bytes)) => files.push((path, bytes)),
                Some(Written::Manifest(text)) => {
                    files.push((MANIFEST.to_owned(), text.into_bytes()));
                    return files;
                }
                None => {}
            }
        }
    }
}

#[cfg(test)]
#[path = "saved_tests.rs"]
mod tests;
