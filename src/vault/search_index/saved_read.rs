//! Reading the search index's persisted form back (`saved.rs` writes it): a piece at a time,
//! each checked against the manifest before a record of it is read, and every record checked as
//! it is read; anything off is [`Damaged`].

use super::inverted::{Doc, Index};
use super::postings::Postings;
#[cfg(test)]
use super::saved::MANIFEST;
use super::saved::{checksum, Damaged, Manifest, PieceRef, PER_STEP};
use super::terms::is_term;

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

    /// The bytes of the piece [`Reader::wants`] named; damaged unless they are what the manifest
    /// says.
    pub(crate) fn feed(&mut self, bytes: Vec<u8>) -> Result<(), Damaged> {
        let want = self.manifest.pieces.get(self.next_piece).ok_or(Damaged)?;
        if bytes.len() != want.len || checksum(&bytes) != want.sum {
            return Err(Damaged);
        }
        self.bytes = bytes;
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
    /// An index read back from [`Index::to_files`] at once; `None` when anything is off.
    pub(crate) fn from_files(files: &[(String, Vec<u8>)]) -> Option<Index> {
        let find = |path: &str| files.iter().find(|(p, _)| p == path).map(|(_, b)| b);
        let mut reader = Reader::new(Manifest::read(std::str::from_utf8(find(MANIFEST)?).ok()?).ok()?);
        loop {
            if let Some(piece) = reader.wants() {
                let bytes = find(&piece.path)?.clone();
                reader.feed(bytes).ok()?;
            }
            if let Some(index) = reader.step().ok()? {
                return Some(index);
            }
        }
    }
}
