//! Many short strings kept end to end, each followed by `\n`, so that a needle is looked for in
//! all of them with one searcher. Setting a searcher up costs more than searching a short
//! string: asked of 120,000 terms or 100,000 paths one by one, a substring test took tens of
//! milliseconds; over the joined text it takes about one.

/// Strings by number, joined.
#[derive(Debug, Default)]
pub(crate) struct Joined {
    text: String,
    /// Where each string starts in `text`.
    starts: Vec<u32>,
}

impl Joined {
    /// Adds a string (it gets the next number).
    pub(crate) fn push(&mut self, s: &str) {
        self.starts.push(self.text.len() as u32);
        self.text.push_str(s);
        self.text.push('\n');
    }

    /// Strings held.
    pub(crate) fn len(&self) -> usize {
        self.starts.len()
    }

    /// The string numbered `i` (`""` past the end).
    pub(crate) fn get(&self, i: usize) -> &str {
        let Some(&start) = self.starts.get(i) else { return "" };
        let end = self.starts.get(i + 1).map_or(self.text.len(), |&e| e as usize);
        &self.text[start as usize..end - 1]
    }

    /// Every string in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &str> {
        (0..self.len()).map(|i| self.get(i))
    }

    /// The numbers of the strings that hold `needle`, ascending; `None` for an empty needle or
    /// one with a newline (which the joined text cannot answer for: it would match across two).
    pub(crate) fn holding(&self, needle: &str) -> Option<Vec<u32>> {
        if needle.is_empty() || needle.contains('\n') {
            return None;
        }
        let mut out: Vec<u32> = Vec::new();
        for (at, _) in self.text.match_indices(needle) {
            // The string the match starts in: the last start at or before it.
            let k = (self.starts.partition_point(|&s| s as usize <= at) - 1) as u32;
            if out.last() != Some(&k) {
                out.push(k);
            }
        }
        Some(out)
    }

    /// By number: whether the string holds `needle` (see [`Joined::holding`]).
    pub(crate) fn holding_mask(&self, needle: &str) -> Option<Vec<bool>> {
        let mut mask = vec![false; self.len()];
        for k in self.holding(needle)? {
            mask[k as usize] = true;
        }
        Some(mask)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn found_in_one_pass_never_across_two() {
        let mut j = Joined::default();
        for s in ["milk", "buttermilk", "", "a\nb", "tea"] {
            j.push(s);
        }
        assert_eq!(j.len(), 5);
        assert_eq!(j.iter().collect::<Vec<_>>(), vec!["milk", "buttermilk", "", "a\nb", "tea"]);
        assert_eq!(j.holding("milk"), Some(vec![0, 1]));
        assert_eq!(j.holding("b"), Some(vec![1, 3]));
        assert_eq!(j.holding("kt"), Some(vec![]));
        assert_eq!(j.holding("k\nb"), None);
        assert_eq!(j.holding(""), None);
        assert_eq!(j.holding_mask("t"), Some(vec![false, true, false, false, true]));
        assert_eq!(j.get(9), "");
    }
}
