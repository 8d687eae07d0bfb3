//! Lean stand-ins for operations whose WebAssembly code is large, kept here so the bundle
//! stays within its budget (DESIGN.md §6); the core calls these instead of the std ones:
//! - Unicode lower-casing (`fold_case`): Rust's case tables add ~25 KB; in wasm the JS engine's
//!   own `toLowerCase` (the same Unicode mapping, `lean/js.rs`) is used instead, natively
//!   Rust's `to_lowercase`.
//! - sorting (`sort_by`, `sort_by_key`): every `sort_by` call site instantiates the whole stable
//!   sort (~3 KB each); here one instantiation sorts indices and each call only permutes its
//!   items.
//! - typed reads of a `serde_json::Value` (`from_value`): `serde_json::from_value` brings a
//!   second deserializer (and a second copy of every type's `Deserialize`); going through text
//!   reuses the one that parses everything else.
//! - small maps by numeric id (`IdMap`): a list, not another `BTreeMap` instantiation.

mod id_map;
#[cfg(target_arch = "wasm32")]
mod js;

pub(crate) use id_map::IdMap;

use std::cmp::Ordering;

use serde::de::DeserializeOwned;
use serde_json::Value;

/// A JSON value read as a typed one.
pub(crate) fn from_value<T: DeserializeOwned>(value: &Value) -> Result<T, serde_json::Error> {
    serde_json::from_str(&value.to_string())
}

/// The text lower-cased with the full Unicode mapping (for case-insensitive paths and search).
pub(crate) fn fold_case(text: &str) -> String {
    if text.is_ascii() {
        return text.to_ascii_lowercase();
    }
    fold_non_ascii(text)
}

#[cfg(target_arch = "wasm32")]
fn fold_non_ascii(text: &str) -> String {
    js::to_lower_case(text)
}

#[cfg(not(target_arch = "wasm32"))]
fn fold_non_ascii(text: &str) -> String {
    text.to_lowercase()
}

/// The first `k` of `items` in `cmp`'s order, as a stable sort would put them, without sorting
/// them all: a listing or a search shows the first few of many thousands.
pub(crate) fn top_by<T>(items: impl IntoIterator<Item = T>, k: usize, cmp: impl Fn(&T, &T) -> Ordering) -> Vec<T> {
    let mut best: Vec<T> = Vec::with_capacity(k.min(1024) + 1);
    if k == 0 {
        return best;
    }
    for item in items {
        if best.len() == k && best.last().is_some_and(|worst| cmp(&item, worst) != Ordering::Less) {
            continue;
        }
        let at = best.partition_point(|b| cmp(b, &item) != Ordering::Greater);
        best.insert(at, item);
        best.truncate(k);
    }
    best
}

/// Sorts `items` stably by `cmp`.
pub(crate) fn sort_by<T>(items: &mut [T], cmp: impl Fn(&T, &T) -> Ordering) {
    if items.len() < 2 {
        return;
    }
    let order = sorted_indices(items.len(), &|a, b| cmp(&items[a], &items[b]));
    // Position k takes the item at order[k]: follow each cycle of the permutation with swaps.
    let mut placed = vec![false; order.len()];
    for start in 0..order.len() {
        let mut k = start;
        while !placed[k] {
            placed[k] = true;
            let from = order[k];
            if from == start {
                break;
            }
            items.swap(k, from);
            k = from;
        }
    }
}

/// Sorts `items` stably by a key.
pub(crate) fn sort_by_key<T, K: Ord>(items: &mut [T], key: impl Fn(&T) -> K) {
    sort_by(items, |a, b| key(a).cmp(&key(b)));
}

/// The one place the crate's sort is instantiated.
fn sorted_indices(len: usize, cmp: &dyn Fn(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).collect();
    order.sort_by(|&a, &b| cmp(a, b));
    order
}

/// `12345` → `12,345`, for counts the model and the user read.
pub(crate) fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_are_stable_and_keyed() {
        let mut v = vec![(2, "a"), (1, "b"), (2, "c"), (0, "d"), (1, "e")];
        sort_by_key(&mut v, |x| x.0);
        assert_eq!(v, [(0, "d"), (1, "b"), (1, "e"), (2, "a"), (2, "c")]);
        sort_by(&mut v, |a, b| b.1.cmp(a.1));
        assert_eq!(v.iter().map(|x| x.1).collect::<String>(), "edcba");
        let mut long: Vec<u32> = (0..500).map(|i| (i * 7919) % 503).collect();
        let mut expected = long.clone();
        expected.sort();
        sort_by_key(&mut long, |x| *x);
        assert_eq!(long, expected);
        let mut empty: Vec<u8> = Vec::new();
        sort_by_key(&mut empty, |x| *x);
        assert!(empty.is_empty());
    }

    #[test]
    fn folding_covers_unicode() {
        assert_eq!(fold_case("Notes/Plan.MD"), "notes/plan.md");
        assert_eq!(fold_case("Réunions/ÉTÉ Ωμέγα"), "réunions/été ωμέγα");
    }
}
