//! The search index's byte encoding: unsigned varints (7 bits a byte, low first), and ascending
//! numbers as varint deltas — postings, a note's terms and its positions are all kept so.

pub(super) fn push_varint(out: &mut Vec<u8>, n: u32) {
    push_varint64(out, u64::from(n));
}

/// A u64 (a note's size or time) as a varint.
pub(super) fn push_varint64(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

pub(super) fn read_varint(bytes: &[u8], at: &mut usize) -> u32 {
    read_varint64(bytes, at) as u32
}

/// A varint of up to 64 bits (more bits are dropped, never a panic: the bytes may be a damaged
/// file's).
pub(super) fn read_varint64(bytes: &[u8], at: &mut usize) -> u64 {
    let mut n = 0u64;
    let mut shift = 0;
    while let Some(&b) = bytes.get(*at) {
        *at += 1;
        n |= u64::from(b & 0x7f).checked_shl(shift).unwrap_or(0);
        if b & 0x80 == 0 {
            break;
        }
        shift = shift.saturating_add(7);
    }
    n
}

/// Delta varints back to ascending numbers.
pub(super) fn read_ascending(bytes: &[u8]) -> impl Iterator<Item = u32> + '_ {
    let mut at = 0;
    let mut last = 0u32;
    std::iter::from_fn(move || {
        (at < bytes.len()).then(|| {
            last = last.wrapping_add(read_varint(bytes, &mut at));
            last
        })
    })
}

/// Ascending numbers as delta varints.
pub(super) fn write_ascending(numbers: impl Iterator<Item = u32>) -> Box<[u8]> {
    let mut out = Vec::new();
    let mut last = 0;
    for n in numbers {
        push_varint(&mut out, n - last);
        last = n;
    }
    out.into()
}
