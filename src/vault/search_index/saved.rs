//! The search index's text form (`.smarthole/search-index.txt`): a header line (format, notes, a
//! checksum of the rest, layout), the terms, then one line per note with its term ids and
//! positions as base64 of their varints — read back without parsing a number per position.
//!
//! Written and read a piece at a time: at 100,000 notes the text is about 150 MB and takes
//! seconds either way, and the core shares its thread with the chat, the hub and Stop. The
//! caller gives the event loop a turn between pieces (`tools::budget::Budget::pace`); the unit
//! tests read and write a whole text at once (`Index::to_text`, `Index::from_text`).

use sha2::{Digest, Sha256};

use super::inverted::{doc_bytes, term_counts, Doc, Index};
use super::terms::is_term;
use super::varint::{read_ascending, read_varint, write_ascending};

/// The persisted format's name and version.
const FORMAT: &str = "smarthole-search-index-1";
/// The layout of its note lines (a file without it, or with another, is rebuilt).
const LAYOUT: &str = "b64v2";
/// Terms written or read in one piece.
const TERMS_PER_PIECE: usize = 4096;
/// Notes written or read in one piece.
const NOTES_PER_PIECE: usize = 64;
/// Bytes of the body hashed in one piece.
const HASHED_PER_PIECE: usize = 1 << 20;

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Bytes as base64 without padding.
fn base64(bytes: &[u8], out: &mut String) {
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for k in 0..=chunk.len() {
            out.push(char::from(BASE64[(n >> (18 - 6 * k) & 63) as usize]));
        }
    }
}

/// [`base64`] back, into `scratch`; `None` for a character out of the alphabet or a bad length.
fn unbase64<'s>(text: &str, scratch: &'s mut Vec<u8>) -> Option<&'s [u8]> {
    scratch.clear();
    if text.len() % 4 == 1 {
        return None;
    }
    let value = |c: u8| -> Option<u32> {
        Some(u32::from(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        }))
    };
    for chunk in text.as_bytes().chunks(4) {
        let mut n = 0u32;
        for (k, &c) in chunk.iter().enumerate() {
            n |= value(c)? << (18 - 6 * k);
        }
        for k in 0..chunk.len() - 1 {
            scratch.push((n >> (16 - 8 * k)) as u8);
        }
    }
    Some(scratch)
}

/// Hashes `body` a piece at a time; the checksum once all of it is hashed.
struct Hashing {
    hasher: Sha256,
    at: usize,
}

impl Hashing {
    fn new() -> Self {
        Hashing { hasher: Sha256::new(), at: 0 }
    }

    fn step(&mut self, body: &str) -> Option<String> {
        let end = (self.at + HASHED_PER_PIECE).min(body.len());
        self.hasher.update(&body.as_bytes()[self.at..end]);
        self.at = end;
        (end == body.len()).then(|| {
            let digest = std::mem::take(&mut self.hasher).finalize();
            digest.iter().take(16).map(|b| format!("{b:02x}")).collect()
        })
    }
}

/// Where a writer is.
enum Writing {
    Terms(usize),
    Notes(usize),
    Checksum(Hashing),
}

/// The text of an index, written a piece at a time. The index must not change between pieces
/// (the indexer writes under the lock its changes take).
pub(crate) struct TextWriter {
    /// Terms renumbered densely in the order written (the order, and so the deltas, kept).
    renumber: Vec<u32>,
    written: u32,
    body: String,
    at: Writing,
}

impl TextWriter {
    pub(crate) fn new(index: &Index) -> Self {
        TextWriter { renumber: vec![0; index.terms.len()], written: 0, body: String::new(), at: Writing::Terms(0) }
    }

    /// Writes the next piece; the whole text once it is written.
    pub(crate) fn step(&mut self, index: &Index) -> Option<String> {
        match &mut self.at {
            Writing::Terms(next) => {
                let end = (*next + TERMS_PER_PIECE).min(index.terms.len());
                for t in *next..end {
                    if index.postings[t].live > 0 {
                        self.renumber[t] = self.written;
                        self.written += 1;
                        self.body.push_str(index.terms.get(t));
                        self.body.push('\n');
                    }
                }
                *next = end;
                if end == index.terms.len() {
                    self.body.push('\n');
                    self.at = Writing::Notes(0);
                }
                None
            }
            Writing::Notes(next) => {
                let end = (*next + NOTES_PER_PIECE).min(index.docs.len());
                for doc in index.docs[*next..end].iter().flatten() {
                    note_line(&mut self.body, &self.renumber, doc);
                }
                *next = end;
                if end == index.docs.len() {
                    self.at = Writing::Checksum(Hashing::new());
                }
                None
            }
            Writing::Checksum(hashing) => {
                let sum = hashing.step(&self.body)?;
                let header = format!("{FORMAT} {} {sum} {LAYOUT}\n", index.len());
                let mut text = String::with_capacity(header.len() + self.body.len());
                text.push_str(&header);
                text.push_str(&self.body);
                Some(text)
            }
        }
    }
}

/// One note's line: path, size, time, unreadable, tokens, long lines, then its terms (renumbered)
/// and positions as base64.
fn note_line(body: &mut String, renumber: &[u32], doc: &Doc) {
    let terms = write_ascending(read_ascending(&doc.terms).map(|t| renumber[t as usize]));
    body.push_str(&doc.path.replace(['\t', '\n'], " "));
    body.push_str(&format!(
        "\t{}\t{}\t{}\t{}\t{}\t",
        doc.size,
        doc.modified_ms,
        u8::from(doc.unreadable),
        doc.tokens,
        doc.long_lines
    ));
    base64(&terms, body);
    body.push('\t');
    base64(&doc.positions, body);
    body.push('\n');
}

/// Where a reader is.
enum Reading<'t> {
    Checksum(Hashing),
    Terms(std::str::Split<'t, char>),
    Notes(std::str::Lines<'t>),
}

/// An index read back from its text a piece at a time. Anything off — the checksum, a term, a
/// note line, the count — and it is damaged: the caller rebuilds, never trusting it.
pub(crate) struct TextReader<'t> {
    count: usize,
    sum: &'t str,
    body: &'t str,
    terms: &'t str,
    notes: &'t str,
    index: Index,
    scratch: Vec<u8>,
    at: Reading<'t>,
}

/// The text is not an index this version wrote whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Damaged;

impl<'t> TextReader<'t> {
    /// Reads the header; damaged when it is not this format's.
    pub(crate) fn new(text: &'t str) -> Result<Self, Damaged> {
        let (header, body) = text.split_once('\n').ok_or(Damaged)?;
        let mut head = header.split(' ');
        if head.next() != Some(FORMAT) {
            return Err(Damaged);
        }
        let count: usize = head.next().and_then(|c| c.parse().ok()).ok_or(Damaged)?;
        let sum = head.next().ok_or(Damaged)?;
        if head.next() != Some(LAYOUT) || head.next().is_some() {
            return Err(Damaged);
        }
        let (terms, notes) =
            body.split_once("\n\n").or_else(|| body.strip_prefix('\n').map(|n| ("", n))).ok_or(Damaged)?;
        Ok(TextReader {
            count,
            sum,
            body,
            terms,
            notes,
            index: Index::default(),
            scratch: Vec::new(),
            at: Reading::Checksum(Hashing::new()),
        })
    }

    /// Reads the next piece; the index once all of it is read.
    pub(crate) fn step(&mut self) -> Result<Option<Index>, Damaged> {
        match &mut self.at {
            Reading::Checksum(hashing) => {
                if let Some(sum) = hashing.step(self.body) {
                    if sum != self.sum {
                        return Err(Damaged);
                    }
                    self.at = if self.terms.is_empty() {
                        Reading::Notes(self.notes.lines())
                    } else {
                        Reading::Terms(self.terms.split('\n'))
                    };
                }
                Ok(None)
            }
            Reading::Terms(terms) => {
                for _ in 0..TERMS_PER_PIECE {
                    let Some(term) = terms.next() else {
                        self.at = Reading::Notes(self.notes.lines());
                        return Ok(None);
                    };
                    if !is_term(term) || self.index.term_ids.contains_key(term) {
                        return Err(Damaged);
                    }
                    self.index.term_id(term);
                }
                Ok(None)
            }
            Reading::Notes(lines) => {
                for _ in 0..NOTES_PER_PIECE {
                    let Some(line) = lines.next() else {
                        let mut index = std::mem::take(&mut self.index);
                        index.held = index.measure();
                        return if index.len() == self.count { Ok(Some(index)) } else { Err(Damaged) };
                    };
                    read_note(&mut self.index, line, &mut self.scratch).ok_or(Damaged)?;
                }
                Ok(None)
            }
        }
    }
}

/// One note line into the index; `None` when anything in it is off.
fn read_note(index: &mut Index, line: &str, scratch: &mut Vec<u8>) -> Option<()> {
    let mut f = line.split('\t');
    let path = f.next()?;
    let size = f.next()?.parse().ok()?;
    let modified_ms = f.next()?.parse().ok()?;
    let unreadable = match f.next()? {
        "0" => false,
        "1" => true,
        _ => return None,
    };
    let tokens: u32 = f.next()?.parse().ok()?;
    let long_lines: u32 = f.next()?.parse().ok()?;
    let terms: Box<[u8]> = unbase64(f.next()?, scratch)?.into();
    let positions: Box<[u8]> = unbase64(f.next()?, scratch)?.into();
    if f.next().is_some() || index.by_path.contains_key(path) {
        return None;
    }
    let doc = Doc { path: path.to_owned(), size, modified_ms, unreadable, tokens, long_lines, terms, positions };
    // Every term known and ascending, every position list whole, the token count right.
    let (mut previous, mut total, mut at) = (None, 0u64, 0usize);
    for (k, t) in read_ascending(&doc.terms).enumerate() {
        if t as usize >= index.terms.len() || (k > 0 && previous == Some(t)) || at >= doc.positions.len() {
            return None;
        }
        previous = Some(t);
        let n = read_varint(&doc.positions, &mut at);
        for _ in 0..n {
            if at >= doc.positions.len() {
                return None;
            }
            read_varint(&doc.positions, &mut at);
        }
        total += u64::from(n);
    }
    if at != doc.positions.len() || total != u64::from(doc.tokens) {
        return None;
    }
    let id = index.docs.len() as u32;
    for (t, n) in term_counts(&doc) {
        index.postings[t as usize].push(id, n);
    }
    index.held += doc_bytes(&doc);
    index.docs.push(Some(doc));
    index.by_path.insert(path.to_owned(), id);
    Some(())
}

#[cfg(test)]
impl Index {
    /// The whole text at once.
    pub(crate) fn to_text(&self) -> String {
        let mut writer = TextWriter::new(self);
        loop {
            if let Some(text) = writer.step(self) {
                return text;
            }
        }
    }

    /// An index read back from [`Index::to_text`] at once; `None` when anything is off.
    pub(crate) fn from_text(text: &str) -> Option<Index> {
        let mut reader = TextReader::new(text).ok()?;
        loop {
            if let Some(index) = reader.step().ok()? {
                return Some(index);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An index of `notes` notes with `TERMS_PER_PIECE` and more distinct terms.
    fn big(notes: usize) -> Index {
        let mut index = Index::default();
        for n in 0..notes {
            let words: Vec<String> = (0..80).map(|w| format!("w{}", n * 80 + w)).collect();
            index.upsert(&format!("n{n}.md"), 10, n as u64, Some(&words.join(" ")));
        }
        index
    }

    #[test]
    fn a_big_index_is_written_and_read_in_many_pieces_and_comes_back_the_same() {
        let index = big(NOTES_PER_PIECE * 3);
        let mut writer = TextWriter::new(&index);
        let mut pieces = 1;
        let text = loop {
            match writer.step(&index) {
                Some(text) => break text,
                None => pieces += 1,
            }
        };
        assert!(pieces > 3 + 2, "terms, notes and the checksum in pieces: {pieces}");
        let mut reader = TextReader::new(&text).unwrap();
        let mut pieces = 1;
        let back = loop {
            match reader.step() {
                Ok(Some(index)) => break index,
                Ok(None) => pieces += 1,
                Err(Damaged) => panic!("damaged after {pieces} pieces"),
            }
        };
        assert!(pieces > 3 + 2, "{pieces}");
        assert_eq!(back.to_text(), text);
        assert_eq!(back.len(), index.len());
        assert_eq!(back.counts("w12345"), index.counts("w12345"));
    }

    #[test]
    fn damage_anywhere_is_found_whatever_piece_it_is_in() {
        let text = big(NOTES_PER_PIECE * 2).to_text();
        let last_note = text.rfind("\nn").unwrap() + 1;
        let mut broken = text.clone();
        broken.replace_range(last_note..last_note + 1, "m");
        assert_eq!(Index::from_text(&broken).map(|i| i.len()), None, "a changed byte fails the checksum");
        let (header, body) = text.split_once('\n').unwrap();
        let miscounted = format!("{}\n{body}", header.replacen(&format!(" {} ", NOTES_PER_PIECE * 2), " 5 ", 1));
        assert!(Index::from_text(&miscounted).is_none(), "a header that miscounts the notes");
        assert!(Index::from_text(&text[..text.len() - 1]).is_none());
    }
}
