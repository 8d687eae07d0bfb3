//! The meaning index: each note's passages (their keys and lines, with the size and time of the
//! note they were cut from) and one vector per distinct passage text. A vector is kept while a
//! note's passage names it and dropped when none does; a passage without a vector yet is
//! "missing" (the builder embeds it). Pure: the builder (`tools::meaning`) reads notes, calls the
//! embedding server and persists what this holds (`saved.rs`).

use std::collections::HashMap;

use super::vectors::{VectorError, Vectors};

/// A note's passage: the key of its embedded text and the lines it spans.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Passage {
    pub(crate) key: u64,
    pub(crate) lines: (u32, u32),
}

/// A note as its passages were cut: from a note of this size and modification time.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct NotePassages {
    pub(crate) size: u64,
    pub(crate) modified_ms: u64,
    pub(crate) passages: Vec<Passage>,
}

/// A vector's slot and the notes whose passages name it.
#[derive(Debug)]
struct Keyed {
    slot: Option<u32>,
    owners: Vec<u32>,
}

/// A note found close in meaning: its best passage and that passage's cosine.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Near {
    pub(crate) path: String,
    pub(crate) score: f32,
    pub(crate) lines: (u32, u32),
}

/// The notes' passages and the passages' vectors.
#[derive(Debug, Default)]
pub(crate) struct MeaningIndex {
    /// By note id; `None` for a freed id.
    notes: Vec<Option<(String, NotePassages)>>,
    free_ids: Vec<u32>,
    by_path: HashMap<String, u32>,
    keys: HashMap<u64, Keyed>,
    /// Each slot's key (meaningful while the slot is in use).
    slot_keys: Vec<u64>,
    /// `None` until the first vector fixes the dimension.
    vectors: Option<Vectors>,
    /// Distinct passage texts named by notes and not yet embedded.
    missing: usize,
    /// What the notes' entries cost, about (kept as they come and go: the ceiling is checked
    /// after every batch, and 100,000 notes are not summed each time).
    notes_held: usize,
}

/// What a note's entry costs in memory, about.
fn note_bytes(path: &str, note: &NotePassages) -> usize {
    96 + path.len() * 2 + note.passages.len() * 16
}

impl MeaningIndex {
    /// Notes held.
    pub(crate) fn notes(&self) -> usize {
        self.by_path.len()
    }

    /// Vectors held.
    pub(crate) fn vectors(&self) -> usize {
        self.vectors.as_ref().map_or(0, Vectors::len)
    }

    /// Passages named by notes and not yet embedded.
    pub(crate) fn missing(&self) -> usize {
        self.missing
    }

    /// The vectors' dimension, once one is held.
    pub(crate) fn dims(&self) -> Option<usize> {
        self.vectors.as_ref().map(Vectors::dims)
    }

    /// Bytes held, about (what the ceiling counts).
    pub(crate) fn bytes(&self) -> usize {
        self.notes_held
            + self.keys.len() * 56
            + self.slot_keys.capacity() * 8
            + self.vectors.as_ref().map_or(0, Vectors::bytes)
    }

    /// The passages of the note at `path`, as cut.
    pub(crate) fn note(&self, path: &str) -> Option<&NotePassages> {
        let id = *self.by_path.get(path)?;
        self.notes.get(id as usize)?.as_ref().map(|(_, n)| n)
    }

    /// Every note with its passages.
    pub(crate) fn all_notes(&self) -> impl Iterator<Item = (&str, &NotePassages)> {
        self.notes.iter().flatten().map(|(p, n)| (p.as_str(), n))
    }

    /// Every vector with its key, as stored.
    pub(crate) fn all_vectors(&self) -> impl Iterator<Item = (u64, &[i8])> {
        self.keys.iter().filter_map(|(&key, k)| Some((key, self.vectors.as_ref()?.quantized(k.slot?)?)))
    }

    /// The stored vector of a passage text, if embedded.
    pub(crate) fn vector_of(&self, key: u64) -> Option<&[i8]> {
        self.vectors.as_ref()?.quantized(self.keys.get(&key)?.slot?)
    }

    /// Whether the passage with this key has its vector.
    pub(crate) fn has_vector(&self, key: u64) -> bool {
        self.keys.get(&key).is_some_and(|k| k.slot.is_some())
    }

    /// Puts (or replaces) a note's passages; vectors no note names any more are dropped (a
    /// passage the note keeps keeps its vector).
    pub(crate) fn set_note(&mut self, path: &str, note: NotePassages) {
        let id = match self.by_path.get(path) {
            Some(&id) => id,
            None => {
                let id = self.free_ids.pop().unwrap_or_else(|| {
                    self.notes.push(None);
                    (self.notes.len() - 1) as u32
                });
                self.by_path.insert(path.to_owned(), id);
                id
            }
        };
        for passage in &note.passages {
            let keyed = self.keys.entry(passage.key).or_insert(Keyed { slot: None, owners: Vec::new() });
            if keyed.owners.contains(&id) {
                continue;
            }
            if keyed.owners.is_empty() {
                self.missing += 1;
            }
            keyed.owners.push(id);
        }
        self.notes_held += note_bytes(path, &note);
        let old = self.notes[id as usize].replace((path.to_owned(), note));
        if let Some((_, old)) = old {
            self.notes_held -= note_bytes(path, &old);
            let kept = &self.notes[id as usize].as_ref().map(|(_, n)| n.passages.clone()).unwrap_or_default();
            for passage in old.passages.iter().filter(|p| !kept.iter().any(|k| k.key == p.key)) {
                self.disown(passage.key, id);
            }
        }
    }

    /// The note `id` no longer names `key`: its vector goes when nobody does.
    fn disown(&mut self, key: u64, id: u32) {
        let Some(keyed) = self.keys.get_mut(&key) else { return };
        let before = keyed.owners.len();
        keyed.owners.retain(|&o| o != id);
        if keyed.owners.len() == before || !keyed.owners.is_empty() {
            return;
        }
        if keyed.slot.is_none() {
            self.missing -= 1;
        }
        if let (Some(slot), Some(vectors)) = (keyed.slot, self.vectors.as_mut()) {
            vectors.remove(slot);
        }
        self.keys.remove(&key);
    }

    /// Forgets a note; gives whether it was held.
    pub(crate) fn remove_note(&mut self, path: &str) -> bool {
        let Some(id) = self.by_path.remove(path) else { return false };
        let Some((_, note)) = self.notes.get_mut(id as usize).and_then(Option::take) else { return false };
        self.notes_held -= note_bytes(path, &note);
        self.free_ids.push(id);
        for passage in &note.passages {
            self.disown(passage.key, id);
        }
        true
    }

    /// Keeps a note's passages as cut, for a note whose size or time changed but not its
    /// passages (a sync that touched every file).
    pub(crate) fn restamp(&mut self, path: &str, size: u64, modified_ms: u64) {
        if let Some(&id) = self.by_path.get(path) {
            if let Some((_, note)) = self.notes.get_mut(id as usize).and_then(Option::as_mut) {
                note.size = size;
                note.modified_ms = modified_ms;
            }
        }
    }

    /// Stores the vector of a passage some note names (a vector nobody names is not kept:
    /// `Ok(false)`). A vector of another dimension than those held is refused.
    pub(crate) fn add_vector(&mut self, key: u64, vector: &[f32]) -> Result<bool, VectorError> {
        self.store(key, vector.len(), |v| v.add(vector))
    }

    /// Stores a vector as read back from disk.
    pub(crate) fn add_quantized(&mut self, key: u64, q: &[i8]) -> Result<bool, VectorError> {
        self.store(key, q.len(), |v| v.add_quantized(q))
    }

    fn store(
        &mut self,
        key: u64,
        dims: usize,
        put: impl FnOnce(&mut Vectors) -> Result<u32, VectorError>,
    ) -> Result<bool, VectorError> {
        let Some(keyed) = self.keys.get_mut(&key) else { return Ok(false) };
        if keyed.slot.is_some() {
            return Ok(false);
        }
        let vectors = self.vectors.get_or_insert_with(|| Vectors::new(dims));
        let slot = put(vectors)?;
        keyed.slot = Some(slot);
        self.missing -= 1;
        let at = slot as usize;
        if self.slot_keys.len() <= at {
            self.slot_keys.resize(at + 1, 0);
        }
        self.slot_keys[at] = key;
        Ok(true)
    }

    /// Drops every vector (a new model): the notes' passages stay, all missing.
    pub(crate) fn drop_vectors(&mut self) {
        self.vectors = None;
        self.slot_keys.clear();
        for keyed in self.keys.values_mut() {
            if keyed.slot.take().is_some() {
                self.missing += 1;
            }
        }
    }

    /// The `k` notes closest to `query`, each by its best passage; `keep` says which notes may
    /// be answered (by path).
    pub(crate) fn nearest_notes(&self, query: &[f32], k: usize, keep: impl Fn(&str) -> bool) -> Vec<Near> {
        let Some(vectors) = self.vectors.as_ref() else { return Vec::new() };
        let mut out: Vec<Near> = Vec::new();
        // Passages of one note crowd each other: ask for more until k notes are found or none
        // are left.
        let mut want = k.saturating_mul(4).max(16);
        loop {
            out.clear();
            let slots = vectors.nearest(query, want, |slot| self.owners_of(slot).any(|(path, _)| keep(path)));
            for &(slot, score) in &slots {
                for (path, lines) in self.owners_of(slot) {
                    if keep(path) && !out.iter().any(|n| n.path == path) {
                        out.push(Near { path: path.to_owned(), score, lines });
                    }
                }
                if out.len() >= k {
                    break;
                }
            }
            if out.len() >= k || slots.len() < want {
                break;
            }
            want = want.saturating_mul(4);
        }
        out.truncate(k);
        out
    }

    /// The notes closest in meaning to the note at `path` (its passages' vectors summed), itself
    /// left out; empty when it has no vector yet.
    pub(crate) fn related(&self, path: &str, k: usize, keep: impl Fn(&str) -> bool) -> Vec<Near> {
        let (Some(note), Some(vectors)) = (self.note(path), self.vectors.as_ref()) else { return Vec::new() };
        let mut sum = vec![0f32; vectors.dims()];
        for passage in &note.passages {
            let Some(slot) = self.keys.get(&passage.key).and_then(|k| k.slot) else { continue };
            let Some(q) = vectors.quantized(slot) else { continue };
            let norm = q.iter().map(|&x| f32::from(x) * f32::from(x)).sum::<f32>().sqrt().max(1.0);
            for (s, &x) in sum.iter_mut().zip(q) {
                *s += f32::from(x) / norm;
            }
        }
        self.nearest_notes(&sum, k, |p| p != path && keep(p))
    }

    /// The notes (and each one's passage lines) whose passages hold this slot's vector.
    fn owners_of(&self, slot: u32) -> impl Iterator<Item = (&str, (u32, u32))> {
        let key = self.slot_keys.get(slot as usize).copied();
        let owners = key.and_then(|key| self.keys.get(&key).map(|k| (key, k)));
        owners.into_iter().flat_map(move |(key, keyed)| {
            keyed.owners.iter().filter_map(move |&id| {
                let (path, note) = self.notes.get(id as usize)?.as_ref()?;
                let passage = note.passages.iter().find(|p| p.key == key)?;
                Some((path.as_str(), passage.lines))
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn note(keys: &[u64]) -> NotePassages {
        NotePassages {
            size: 1,
            modified_ms: 1,
            passages: keys
                .iter()
                .enumerate()
                .map(|(i, &key)| Passage { key, lines: (i as u32 + 1, i as u32 + 1) })
                .collect(),
        }
    }

    #[test]
    fn vectors_live_while_a_note_names_them() {
        let mut index = MeaningIndex::default();
        index.set_note("a.md", note(&[1, 2]));
        index.set_note("b.md", note(&[2, 3]));
        assert_eq!(index.missing(), 3);
        assert_eq!(index.add_vector(2, &[1.0, 0.0]), Ok(true));
        assert_eq!(index.add_vector(9, &[1.0, 0.0]), Ok(false), "nobody names key 9");
        assert_eq!(index.add_vector(1, &[1.0, 0.0, 0.0]), Err(VectorError::Dimensions { got: 3, want: 2 }));
        assert_eq!(index.missing(), 2);
        index.remove_note("a.md");
        assert_eq!((index.vectors(), index.missing()), (1, 1), "key 2 is still b's");
        index.set_note("b.md", note(&[3]));
        assert_eq!((index.vectors(), index.missing()), (0, 1));
        index.drop_vectors();
        assert_eq!(index.missing(), 1);
    }

    #[test]
    fn an_edited_note_keeps_the_vectors_of_the_passages_it_kept() {
        let mut index = MeaningIndex::default();
        index.set_note("a.md", note(&[1, 2]));
        index.add_vector(1, &[1.0, 0.0]).unwrap();
        index.add_vector(2, &[0.0, 1.0]).unwrap();
        index.set_note("a.md", note(&[1, 3]));
        assert!(index.has_vector(1), "passage 1 is unchanged: not embedded again");
        assert!(!index.has_vector(2), "passage 2 is gone");
        assert_eq!((index.vectors(), index.missing(), index.notes()), (1, 1, 1));
    }

    #[test]
    fn the_bytes_held_follow_the_notes_as_they_come_and_go() {
        let mut index = MeaningIndex::default();
        let summed = |i: &MeaningIndex| i.all_notes().map(|(p, n)| note_bytes(p, n)).sum::<usize>();
        index.set_note("a.md", note(&[1, 2]));
        index.set_note("bb.md", note(&[3]));
        index.set_note("a.md", note(&[1, 2, 4, 5]));
        assert_eq!(index.notes_held, summed(&index));
        index.remove_note("bb.md");
        assert_eq!(index.notes_held, summed(&index));
        index.remove_note("a.md");
        assert_eq!(index.notes_held, 0);
    }

    #[test]
    fn nearest_notes_answer_each_note_once_by_its_best_passage() {
        let mut index = MeaningIndex::default();
        index.set_note("a.md", note(&[1, 2]));
        index.set_note("b.md", note(&[3]));
        index.add_vector(1, &[1.0, 0.0]).unwrap();
        index.add_vector(2, &[0.9, 0.1]).unwrap();
        index.add_vector(3, &[0.0, 1.0]).unwrap();
        let near = index.nearest_notes(&[1.0, 0.0], 5, |_| true);
        let paths: Vec<&str> = near.iter().map(|n| n.path.as_str()).collect();
        assert_eq!(paths, ["a.md", "b.md"]);
        assert_eq!(near[0].lines, (1, 1));
        let related = index.related("b.md", 5, |_| true);
        assert_eq!(related.len(), 1);
        assert_eq!(related[0].path, "a.md");
        assert!(index.nearest_notes(&[1.0, 0.0], 5, |p| p != "a.md").iter().all(|n| n.path == "b.md"));
    }
}
