//! Hybrid ranking: the words' ranking (BM25) and the meaning's (cosine) fused into one.
//!
//! Not equal-weight reciprocal rank fusion: measured on paraphrased questions, when the words
//! miss half of them their ranks drag right answers down, and the fusion did worse than meaning
//! alone (`../shared/reference/embeddings.md`). Here each list's scores are scaled to 0..1 within
//! the query (min–max over its candidates), and the two are summed with meaning weighted more: a
//! note both find rises, a strong match of either survives.

use std::collections::HashMap;
use std::hash::Hash;

/// How much meaning counts against the words in hybrid ranking (the words get the rest).
pub(crate) const MEANING_WEIGHT: f32 = 0.7;

/// The candidates of both lists, best first, with their fused score in 0..1. Each list is
/// (candidate, score), any order; a candidate missing from one list gets 0 from it.
pub(crate) fn fuse<K: Clone + Eq + Hash + Ord>(
    words: &[(K, f32)],
    meaning: &[(K, f32)],
    meaning_weight: f32,
) -> Vec<(K, f32)> {
    let mut fused: HashMap<K, f32> = HashMap::new();
    for (list, weight) in [(words, 1.0 - meaning_weight), (meaning, meaning_weight)] {
        let (low, high) =
            list.iter().fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), (_, s)| (lo.min(*s), hi.max(*s)));
        for (key, score) in list {
            // One candidate (or all equal): each counts fully.
            let scaled = if high > low { (score - low) / (high - low) } else { 1.0 };
            *fused.entry(key.clone()).or_default() += weight * scaled;
        }
    }
    let mut out: Vec<(K, f32)> = fused.into_iter().collect();
    crate::lean::sort_by(&mut out, |a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_both_find_rises_and_meanings_strong_match_beats_a_weak_word_match() {
        let words = [("refunds", 3.0), ("billing", 9.0), ("faq", 1.0)];
        let meaning = [("refunds", 0.62), ("returns", 0.58), ("billing", 0.31)];
        let got: Vec<&str> = fuse(&words, &meaning, MEANING_WEIGHT).into_iter().map(|(k, _)| k).collect();
        assert_eq!(got, ["refunds", "returns", "billing", "faq"]);
    }

    #[test]
    fn words_alone_or_meaning_alone_keep_their_order() {
        let words = [("a", 2.0), ("b", 5.0)];
        assert_eq!(fuse(&words, &[], MEANING_WEIGHT)[0].0, "b");
        let meaning = [("a", 0.9), ("b", 0.1)];
        assert_eq!(fuse(&[], &meaning, MEANING_WEIGHT)[0].0, "a");
        assert_eq!(fuse::<&str>(&[], &[], MEANING_WEIGHT), vec![]);
    }
}
