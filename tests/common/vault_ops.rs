//! The index properties' steps (the search index's and the meaning index's): notes written,
//! renamed, deleted while the core runs, or changed while it is stopped; each note's text a list
//! of symbols the test turns into words.

use proptest::prelude::*;

/// One step; notes are numbers the test turns into paths.
#[derive(Debug, Clone)]
pub enum Op {
    Write(u8, Vec<u8>),
    Rename(u8, u8),
    Delete(u8),
    /// A change while the core is not running (no event): repaired at the next start.
    Restart(u8, Vec<u8>),
}

/// Steps whose texts hold up to `longest` symbols below `symbols`.
pub fn op(symbols: u8, longest: usize) -> impl Strategy<Value = Op> {
    let text = move || proptest::collection::vec(0u8..symbols, 0..longest);
    prop_oneof![
        4 => (any::<u8>(), text()).prop_map(|(n, t)| Op::Write(n, t)),
        2 => (any::<u8>(), any::<u8>()).prop_map(|(a, b)| Op::Rename(a, b)),
        2 => any::<u8>().prop_map(Op::Delete),
        1 => (any::<u8>(), text()).prop_map(|(n, t)| Op::Restart(n, t)),
    ]
}
