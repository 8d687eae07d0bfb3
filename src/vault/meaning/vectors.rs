//! The passages' vectors, kept small: each vector as one signed byte per dimension and one
//! factor, in flat arrays (a 384-dimension vector takes 388 bytes instead of 1,536), ranked by
//! cosine against a query without decoding them.
//!
//! A vector `v` is stored as `q = round(v / max|v| * 127)`; its factor is `1 / |q|`, so
//! `cos(query, v) ≈ (query · q) / (|query| |q|)`. The rounding costs little rank accuracy
//! (tested below against the float cosine); what it saves is what lets 100,000 notes fit.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Vectors of one dimension, one per passage slot; a freed slot is reused.
#[derive(Debug, Default)]
pub(crate) struct Vectors {
    dims: usize,
    values: Vec<i8>,
    /// `1 / |q|` per slot; 0 for a free slot (it then never ranks).
    factors: Vec<f32>,
    free: Vec<u32>,
}

/// Why a vector was not taken.
#[derive(Debug, thiserror::Error, PartialEq)]
pub(crate) enum VectorError {
    #[error("the embedding has {got} dimensions where the index holds {want}: the model changed, so the index must be rebuilt")]
    Dimensions { got: usize, want: usize },
    #[error("the embedding is empty or not a number throughout")]
    Empty,
}

impl Vectors {
    /// An empty set for vectors of `dims` dimensions.
    pub(crate) fn new(dims: usize) -> Self {
        Self { dims, ..Self::default() }
    }

    /// Their dimension.
    pub(crate) fn dims(&self) -> usize {
        self.dims
    }

    /// Slots in use.
    pub(crate) fn len(&self) -> usize {
        self.factors.len() - self.free.len()
    }

    /// Bytes held (what the memory ceiling counts).
    pub(crate) fn bytes(&self) -> usize {
        self.values.capacity() + self.factors.capacity() * 4 + self.free.capacity() * 4
    }

    /// Stores a vector; gives its slot.
    pub(crate) fn add(&mut self, vector: &[f32]) -> Result<u32, VectorError> {
        let (q, factor) = self.quantize(vector)?;
        Ok(self.put(&q, factor))
    }

    /// Stores an already quantized vector (as read back from disk).
    pub(crate) fn add_quantized(&mut self, q: &[i8]) -> Result<u32, VectorError> {
        if q.len() != self.dims {
            return Err(VectorError::Dimensions { got: q.len(), want: self.dims });
        }
        let norm = q.iter().map(|&x| f32::from(x) * f32::from(x)).sum::<f32>().sqrt();
        if norm == 0.0 {
            return Err(VectorError::Empty);
        }
        Ok(self.put(q, 1.0 / norm))
    }

    /// The stored bytes of a slot (for writing to disk).
    pub(crate) fn quantized(&self, slot: u32) -> Option<&[i8]> {
        let at = usize::try_from(slot).ok()?;
        (self.factors.get(at).copied().unwrap_or(0.0) != 0.0)
            .then(|| &self.values[at * self.dims..(at + 1) * self.dims])
    }

    /// Frees a slot.
    pub(crate) fn remove(&mut self, slot: u32) {
        let Ok(at) = usize::try_from(slot) else { return };
        if let Some(f) = self.factors.get_mut(at) {
            if *f != 0.0 {
                *f = 0.0;
                self.free.push(slot);
            }
        }
    }

    /// The `k` slots closest to `query` by cosine, best first, with their cosine; `keep` says
    /// which slots may be answered (a note filter).
    pub(crate) fn nearest(&self, query: &[f32], k: usize, keep: impl Fn(u32) -> bool) -> Vec<(u32, f32)> {
        if query.len() != self.dims || k == 0 {
            return Vec::new();
        }
        let norm = query.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm == 0.0 || !norm.is_finite() {
            return Vec::new();
        }
        let query: Vec<f32> = query.iter().map(|x| x / norm).collect();
        let mut best: BinaryHeap<Ranked> = BinaryHeap::with_capacity(k + 1);
        for (at, (&factor, row)) in self.factors.iter().zip(self.values.chunks_exact(self.dims.max(1))).enumerate() {
            if factor == 0.0 {
                continue;
            }
            let score = dot(&query, row) * factor;
            if best.len() == k && best.peek().is_some_and(|worst| score <= worst.score) {
                continue;
            }
            let slot = u32::try_from(at).unwrap_or(u32::MAX);
            if !keep(slot) {
                continue;
            }
            best.push(Ranked { score, slot });
            if best.len() > k {
                best.pop();
            }
        }
        let mut out: Vec<(u32, f32)> = best.into_iter().map(|r| (r.slot, r.score)).collect();
        crate::lean::sort_by(&mut out, |a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        out
    }

    fn quantize(&self, vector: &[f32]) -> Result<(Vec<i8>, f32), VectorError> {
        if vector.len() != self.dims {
            return Err(VectorError::Dimensions { got: vector.len(), want: self.dims });
        }
        let max = vector.iter().filter(|x| x.is_finite()).fold(0f32, |m, x| m.max(x.abs()));
        if max == 0.0 {
            return Err(VectorError::Empty);
        }
        let q: Vec<i8> = vector
            .iter()
            .map(|x| if x.is_finite() { (x / max * 127.0).round().clamp(-127.0, 127.0) as i8 } else { 0 })
            .collect();
        let norm = q.iter().map(|&x| f32::from(x) * f32::from(x)).sum::<f32>().sqrt();
        Ok((q, 1.0 / norm))
    }

    fn put(&mut self, q: &[i8], factor: f32) -> u32 {
        match self.free.pop() {
            Some(slot) => {
                let at = slot as usize;
                self.values[at * self.dims..(at + 1) * self.dims].copy_from_slice(q);
                self.factors[at] = factor;
                slot
            }
            None => {
                self.values.extend_from_slice(q);
                self.factors.push(factor);
                u32::try_from(self.factors.len() - 1).unwrap_or(u32::MAX)
            }
        }
    }
}

fn dot(query: &[f32], row: &[i8]) -> f32 {
    query.iter().zip(row).map(|(a, &b)| a * f32::from(b)).sum()
}

/// A heap entry ordered so the heap's top is the worst kept (a min-heap by score).
#[derive(PartialEq)]
struct Ranked {
    score: f32,
    slot: u32,
}

impl Eq for Ranked {}

impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> Ordering {
        other.score.total_cmp(&self.score).then(self.slot.cmp(&other.slot))
    }
}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deterministic pseudo-random vectors (xorshift).
    fn vectors(n: usize, dims: usize, seed: u64) -> Vec<Vec<f32>> {
        let mut s = seed;
        let mut next = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s % 20_000) as f32 / 10_000.0 - 1.0
        };
        (0..n).map(|_| (0..dims).map(|_| next()).collect()).collect()
    }

    fn cosine(a: &[f32], b: &[f32]) -> f32 {
        let d: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
        d / (a.iter().map(|x| x * x).sum::<f32>().sqrt() * b.iter().map(|x| x * x).sum::<f32>().sqrt())
    }

    #[test]
    fn the_bytes_rank_as_the_floats_do() {
        let dims = 384;
        let stored = vectors(2000, dims, 7);
        let mut set = Vectors::new(dims);
        for v in &stored {
            set.add(v).unwrap();
        }
        for query in vectors(20, dims, 99) {
            let got = set.nearest(&query, 10, |_| true);
            let mut exact: Vec<(usize, f32)> = stored.iter().enumerate().map(|(i, v)| (i, cosine(&query, v))).collect();
            exact.sort_by(|a, b| b.1.total_cmp(&a.1));
            assert_eq!(got[0].0 as usize, exact[0].0, "the best is the best");
            for (slot, score) in &got {
                assert!((score - cosine(&query, &stored[*slot as usize])).abs() < 0.01);
            }
            let top: Vec<usize> = exact[..10].iter().map(|e| e.0).collect();
            let kept = got.iter().filter(|(s, _)| top.contains(&(*s as usize))).count();
            assert!(kept >= 9, "top 10 agree on {kept}");
        }
        assert!(set.bytes() >= 2000 * 388);
    }

    #[test]
    fn slots_are_freed_reused_filtered_and_checked() {
        let mut set = Vectors::new(3);
        let a = set.add(&[1.0, 0.0, 0.0]).unwrap();
        let b = set.add(&[0.0, 1.0, 0.0]).unwrap();
        assert_eq!(set.nearest(&[1.0, 0.1, 0.0], 1, |_| true)[0].0, a);
        assert_eq!(set.nearest(&[1.0, 0.1, 0.0], 1, |s| s != a)[0].0, b);
        set.remove(a);
        set.remove(a);
        assert_eq!(set.len(), 1);
        assert_eq!(set.nearest(&[1.0, 0.0, 0.0], 5, |_| true).len(), 1);
        let c = set.add(&[0.0, 0.0, 2.0]).unwrap();
        assert_eq!(c, a, "the freed slot is reused");
        assert_eq!(set.quantized(c), Some(&[0i8, 0, 127][..]));
        assert_eq!(set.add(&[1.0, 2.0]), Err(VectorError::Dimensions { got: 2, want: 3 }));
        assert_eq!(set.add(&[0.0, f32::NAN, 0.0]), Err(VectorError::Empty));
        let mut copy = Vectors::new(3);
        let slot = copy.add_quantized(set.quantized(b).unwrap()).unwrap();
        assert_eq!(copy.nearest(&[0.0, 1.0, 0.0], 1, |_| true), vec![(slot, 1.0)]);
    }
}
