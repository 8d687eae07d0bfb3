//! One term's postings: the notes holding it, ids ascending, each entry a byte or two of
//! varints (see [`Postings::push`]); a list only grows at its end (a changed note takes a new,
//! larger id) and is rewritten whole at compaction.

use super::varint::{push_varint, push_varint64, read_varint, read_varint64};

/// One term's notes: (id delta, occurrences) varint pairs, ids ascending.
#[derive(Debug, Default)]
pub(super) struct Postings {
    pub(super) bytes: Vec<u8>,
    /// The last id written (what the next delta is from).
    pub(super) last: u32,
    /// Live notes holding the term.
    pub(super) live: u32,
}

impl Postings {
    /// A note's entry: its id's delta doubled, plus one when it holds the term more than once
    /// (then the count follows) — most notes hold most of their terms once, so most entries are
    /// a byte or two, not two varints.
    pub(super) fn push(&mut self, id: u32, count: u32) {
        let delta = if self.bytes.is_empty() { id } else { id - self.last };
        push_varint64(&mut self.bytes, u64::from(delta) << 1 | u64::from(count > 1));
        if count > 1 {
            push_varint(&mut self.bytes, count);
        }
        self.last = id;
        self.live += 1;
    }

    /// (id, occurrences), dead notes included.
    pub(super) fn iter(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        let mut at = 0;
        let mut id = 0u32;
        std::iter::from_fn(move || {
            if at >= self.bytes.len() {
                return None;
            }
            let entry = read_varint64(&self.bytes, &mut at);
            id = id.wrapping_add((entry >> 1) as u32);
            Some((id, if entry & 1 == 1 { read_varint(&self.bytes, &mut at) } else { 1 }))
        })
    }
}
