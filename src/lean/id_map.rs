//! A map by numeric id kept as a list: for the few entries waiting on something (requests in
//! flight, side sessions' waiters, queued messages' wakers, running tasks), where each `BTreeMap` of a new key and value type adds
//! ~7 KB of tree code to the wasm (a `HashMap`, ~3 KB) and a list's lookups cost nothing at
//! these sizes.

/// Entries by `u64` id, in the order they were first inserted.
#[derive(Debug)]
pub(crate) struct IdMap<V> {
    entries: Vec<(u64, V)>,
}

impl<V> Default for IdMap<V> {
    fn default() -> Self {
        IdMap { entries: Vec::new() }
    }
}

impl<V> IdMap<V> {
    /// Puts `value` at `id`, replacing (and returning) what was there.
    pub(crate) fn insert(&mut self, id: u64, value: V) -> Option<V> {
        match self.entries.iter_mut().find(|(k, _)| *k == id) {
            Some((_, old)) => Some(std::mem::replace(old, value)),
            None => {
                self.entries.push((id, value));
                None
            }
        }
    }

    /// Takes the value at `id` out.
    pub(crate) fn remove(&mut self, id: u64) -> Option<V> {
        let at = self.entries.iter().position(|(k, _)| *k == id)?;
        Some(self.entries.remove(at).1)
    }

    /// Whether `id` has a value.
    pub(crate) fn contains_key(&self, id: u64) -> bool {
        self.entries.iter().any(|(k, _)| *k == id)
    }

    /// The values, in insertion order.
    pub(crate) fn values(&self) -> impl Iterator<Item = &V> {
        self.entries.iter().map(|(_, v)| v)
    }

    /// Forgets every entry.
    pub(crate) fn clear(&mut self) {
        self.entries.clear();
    }

    /// How many entries there are.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Takes every entry out, in insertion order.
    pub(crate) fn drain(&mut self) -> impl Iterator<Item = (u64, V)> + '_ {
        self.entries.drain(..)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn behaves_as_a_map_by_id() {
        let mut map = IdMap::default();
        assert_eq!(map.insert(3, "a"), None);
        assert_eq!(map.insert(1, "b"), None);
        assert_eq!(map.insert(3, "c"), Some("a"), "an id holds one value");
        assert!(map.contains_key(1) && map.contains_key(3) && !map.contains_key(2));
        assert_eq!(map.values().copied().collect::<Vec<_>>(), ["c", "b"]);
        assert_eq!(map.remove(3), Some("c"));
        assert_eq!(map.remove(3), None);
        assert!(!map.contains_key(3));
        map.insert(9, "d");
        assert_eq!(map.len(), 2);
        assert_eq!(map.drain().collect::<Vec<_>>(), [(1, "b"), (9, "d")]);
        assert_eq!(map.len(), 0);
        map.insert(4, "e");
        map.clear();
        assert_eq!(map.values().count(), 0);
    }
}
