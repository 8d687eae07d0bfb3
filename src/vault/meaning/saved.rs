//! The meaning index on disk, under `.smarthole/meaning/`: `notes.txt` (a header naming the
//! model and dimension, then one JSON line per note: path, size, time, its passages as
//! `key:first:last`, or `null` for a note gone; a later line replaces an earlier) and the vectors
//! in [`SHARDS`] files by key (`vectors-NN.txt`, one `key base64` line each). Both are logs: what
//! changed is appended (a build of 100,000 notes never rewrites what it wrote), and a file is
//! rewritten whole only when its dead lines outnumber the live ones ([`Unsaved`] keeps that
//! account). A last line cut short (a write interrupted) is dropped and the file rewritten; any
//! other line that does not read back makes its whole file untrusted: a damaged notes file is cut
//! again from the notes, a damaged shard's vectors are embedded again.

use base64::Engine;
use serde_json::{json, Value};

use super::index::{MeaningIndex, NotePassages, Passage};

/// Files the vectors are spread over.
pub(crate) const SHARDS: usize = 32;
/// The folder, in the plugin's data folder.
pub(crate) const FOLDER: &str = "meaning";
/// The notes' file.
pub(crate) const NOTES_FILE: &str = "meaning/notes.txt";
/// The format's version, in the header.
const VERSION: u64 = 1;

/// Which shard holds a key's vector.
pub(crate) fn shard_of(key: u64) -> usize {
    (key % SHARDS as u64) as usize
}

/// A shard's file.
pub(crate) fn shard_file(shard: usize) -> String {
    format!("{FOLDER}/vectors-{shard:02}.txt")
}

/// What the vectors were made by: another model's vectors are not comparable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Made {
    pub(crate) model: String,
    pub(crate) dims: usize,
}

/// Why a file is not trusted.
#[derive(Debug, Clone, thiserror::Error, PartialEq)]
pub(crate) enum SavedError {
    #[error("line {0} of the file does not read back")]
    Line(usize),
    #[error("the file has no header or another format version")]
    Header,
}

/// The notes' file's header.
pub(crate) fn notes_header(made: &Made) -> String {
    let mut out = json!({ "version": VERSION, "model": made.model, "dims": made.dims }).to_string();
    out.push('\n');
    out
}

/// A note's line: its passages, or `None` for a note gone.
pub(crate) fn note_line(path: &str, note: Option<&NotePassages>) -> String {
    let mut line = match note {
        Some(note) => {
            let passages: Vec<String> =
                note.passages.iter().map(|p| format!("{:016x}:{}:{}", p.key, p.lines.0, p.lines.1)).collect();
            json!([path, note.size, note.modified_ms, passages.join(" ")]).to_string()
        }
        None => json!([path, null]).to_string(),
    };
    line.push('\n');
    line
}

/// The notes' file whole: the header, then each note.
pub(crate) fn notes_text(made: &Made, index: &MeaningIndex) -> String {
    let mut out = notes_header(made);
    for (path, note) in index.all_notes() {
        out.push_str(&note_line(path, Some(note)));
    }
    out
}

/// The notes' file read back.
#[derive(Debug, PartialEq)]
pub(crate) struct ReadNotes {
    pub(crate) made: Made,
    /// Each note as its last line says.
    pub(crate) notes: Vec<(String, NotePassages)>,
    /// Lines after the header (live and dead).
    pub(crate) lines: usize,
    /// Its last line was cut short (dropped): the file is to be rewritten.
    pub(crate) torn: bool,
}

/// The notes' file read back in one go (the tests' reader).
#[cfg(test)]
fn read_notes(text: &str) -> Result<ReadNotes, SavedError> {
    let mut reader = NotesReader::new(text)?;
    while !reader.step(usize::MAX)? {}
    Ok(reader.finish())
}

/// Reads the notes' file a piece at a time (100,000 notes are not read in one go).
pub(crate) struct NotesReader<'t> {
    made: Made,
    body: Vec<&'t str>,
    at: usize,
    ends_whole: bool,
    notes: std::collections::HashMap<String, Option<NotePassages>>,
    order: Vec<String>,
    torn: bool,
}

impl<'t> NotesReader<'t> {
    /// Reads the header.
    pub(crate) fn new(text: &'t str) -> Result<Self, SavedError> {
        let mut lines = text.lines();
        let header: Value = lines.next().and_then(|l| serde_json::from_str(l).ok()).ok_or(SavedError::Header)?;
        if header["version"].as_u64() != Some(VERSION) {
            return Err(SavedError::Header);
        }
        let made = Made {
            model: header["model"].as_str().ok_or(SavedError::Header)?.to_owned(),
            dims: header["dims"].as_u64().ok_or(SavedError::Header)? as usize,
        };
        Ok(NotesReader {
            made,
            body: lines.collect(),
            at: 0,
            ends_whole: text.ends_with('\n'),
            notes: std::collections::HashMap::new(),
            order: Vec::new(),
            torn: false,
        })
    }

    /// Reads up to `lines` more lines; `true` once every line is read.
    pub(crate) fn step(&mut self, lines: usize) -> Result<bool, SavedError> {
        let end = self.at.saturating_add(lines).min(self.body.len());
        for n in self.at..end {
            match read_note_line(self.body[n]) {
                Some((path, note)) => {
                    if !self.notes.contains_key(&path) {
                        self.order.push(path.clone());
                    }
                    self.notes.insert(path, note);
                }
                None if n + 1 == self.body.len() && !self.ends_whole => self.torn = true,
                None => return Err(SavedError::Line(n + 2)),
            }
        }
        self.at = end;
        Ok(self.at == self.body.len())
    }

    /// What was read.
    pub(crate) fn finish(mut self) -> ReadNotes {
        let notes = self.order.into_iter().filter_map(|p| self.notes.remove(&p).flatten().map(|n| (p, n))).collect();
        ReadNotes { made: self.made, notes, lines: self.body.len(), torn: self.torn }
    }
}

fn read_note_line(line: &str) -> Option<(String, Option<NotePassages>)> {
    let value: Value = serde_json::from_str(line).ok()?;
    let path = value[0].as_str()?.to_owned();
    if value[1].is_null() {
        return Some((path, None));
    }
    let (size, modified_ms, list) = (value[1].as_u64()?, value[2].as_u64()?, value[3].as_str()?);
    let passages = list.split_whitespace().map(passage).collect::<Option<Vec<Passage>>>()?;
    Some((path, Some(NotePassages { size, modified_ms, passages })))
}

fn passage(text: &str) -> Option<Passage> {
    let mut parts = text.split(':');
    let key = u64::from_str_radix(parts.next()?, 16).ok()?;
    let first = parts.next()?.parse().ok()?;
    let last = parts.next()?.parse().ok()?;
    parts.next().is_none().then_some(Passage { key, lines: (first, last) })
}

/// A vector's line.
pub(crate) fn vector_line(key: u64, q: &[i8]) -> String {
    let bytes: Vec<u8> = q.iter().map(|&x| x as u8).collect();
    format!("{key:016x} {}\n", base64::engine::general_purpose::STANDARD.encode(bytes))
}

/// A shard's file whole: each vector it holds.
pub(crate) fn shard_text(index: &MeaningIndex, shard: usize) -> (String, usize) {
    let mut out = String::new();
    let mut lines = 0;
    for (key, q) in index.all_vectors().filter(|(key, _)| shard_of(*key) == shard) {
        out.push_str(&vector_line(key, q));
        lines += 1;
    }
    (out, lines)
}

/// A shard read back: its vectors, and whether its last line was cut short (dropped).
pub(crate) type ReadShard = (Vec<(u64, Vec<i8>)>, bool);

/// A shard's vectors read back; each must have `dims` dimensions and belong in this shard.
pub(crate) fn read_shard(text: &str, shard: usize, dims: usize) -> Result<ReadShard, SavedError> {
    let engine = &base64::engine::general_purpose::STANDARD;
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::with_capacity(lines.len());
    let mut torn = false;
    for (n, line) in lines.iter().enumerate() {
        let read = || {
            let (key, data) = line.split_once(' ')?;
            let key = u64::from_str_radix(key, 16).ok()?;
            let bytes = engine.decode(data).ok()?;
            (bytes.len() == dims && shard_of(key) == shard).then(|| (key, bytes.into_iter().map(|b| b as i8).collect()))
        };
        match read() {
            Some(vector) => out.push(vector),
            None if n + 1 == lines.len() && !text.ends_with('\n') => torn = true,
            None => return Err(SavedError::Line(n + 1)),
        }
    }
    Ok((out, torn))
}

/// A set of shards, one bit each (a `BTreeSet<usize>` here added ~7 KB of tree code to the wasm).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct ShardSet(u32);

const _: () = assert!(SHARDS <= 32, "a shard set has a bit for each shard");

impl ShardSet {
    /// Every shard.
    pub(crate) const ALL: ShardSet = ShardSet((((1u64 << SHARDS) - 1) & 0xFFFF_FFFF) as u32);

    /// Adds `shard` (below `SHARDS`).
    pub(crate) fn insert(&mut self, shard: usize) {
        self.0 |= 1 << shard;
    }

    /// Takes `shard` out.
    pub(crate) fn remove(&mut self, shard: usize) {
        self.0 &= !(1 << shard);
    }

    /// Whether `shard` is in.
    pub(crate) fn contains(self, shard: usize) -> bool {
        shard < SHARDS && self.0 & (1 << shard) != 0
    }

    /// Takes every shard out.
    pub(crate) fn clear(&mut self) {
        self.0 = 0;
    }

    /// Whether no shard is in.
    pub(crate) fn is_empty(self) -> bool {
        self.0 == 0
    }
}

/// What is not written yet, and what the files hold, so a save appends what changed and
/// rewrites a file only when it must (damaged, torn, a new model, or mostly dead lines).
#[derive(Debug)]
pub(crate) struct Unsaved {
    /// Notes whose line is to be appended.
    pub(crate) notes: std::collections::BTreeSet<String>,
    /// Vectors to append, by key.
    pub(crate) vectors: Vec<u64>,
    pub(crate) rewrite_notes: bool,
    pub(crate) rewrite_shards: ShardSet,
    /// Lines in the notes file after its header.
    pub(crate) note_lines: usize,
    /// Lines in each shard, and how many of them are dead (their vector dropped).
    pub(crate) shard_lines: [usize; SHARDS],
    pub(crate) shard_dead: [usize; SHARDS],
    /// What the notes file's header says (a new model or dimension rewrites it).
    pub(crate) header: Option<Made>,
}

impl Default for Unsaved {
    /// Nothing on disk yet: the first save writes both whole.
    fn default() -> Self {
        Unsaved {
            notes: Default::default(),
            vectors: Vec::new(),
            rewrite_notes: true,
            rewrite_shards: ShardSet::ALL,
            note_lines: 0,
            shard_lines: [0; SHARDS],
            shard_dead: [0; SHARDS],
            header: None,
        }
    }
}

impl Unsaved {
    /// Whether there is anything to write.
    pub(crate) fn is_empty(&self, made: &Made) -> bool {
        self.notes.is_empty()
            && self.vectors.is_empty()
            && !self.rewrite_notes
            && self.rewrite_shards.is_empty()
            && self.header.as_ref() == Some(made)
    }

    /// Whether the notes file is rewritten rather than appended to, holding `live` notes made
    /// by `made`.
    pub(crate) fn rewrites_notes(&self, live: usize, made: &Made) -> bool {
        self.rewrite_notes || self.header.as_ref() != Some(made) || self.note_lines > 2 * live + 1_000
    }

    /// Whether a shard is rewritten rather than appended to.
    pub(crate) fn rewrites_shard(&self, shard: usize) -> bool {
        let (lines, dead) = (self.shard_lines[shard], self.shard_dead[shard]);
        self.rewrite_shards.contains(shard) || dead > lines.saturating_sub(dead).max(16)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shard_set_holds_each_shard_apart() {
        assert!((0..SHARDS).all(|shard| ShardSet::ALL.contains(shard)));
        assert!(Unsaved::default().rewrites_shard(SHARDS - 1), "a first save rewrites every shard");
        let mut set = ShardSet::default();
        assert!(set.is_empty() && !set.contains(0));
        set.insert(0);
        set.insert(SHARDS - 1);
        set.insert(5);
        set.remove(5);
        assert_eq!((0..SHARDS).filter(|&s| set.contains(s)).collect::<Vec<_>>(), [0, SHARDS - 1]);
        assert!(!set.contains(SHARDS));
        set.clear();
        assert!(set.is_empty());
    }

    #[test]
    fn notes_and_vectors_read_back_as_written_and_damage_is_named() {
        let mut index = MeaningIndex::default();
        let passages = vec![Passage { key: 7, lines: (1, 4) }, Passage { key: u64::MAX, lines: (5, 9) }];
        index.set_note("Folder/A \"quoted\".md", NotePassages { size: 10, modified_ms: 20, passages });
        index.add_vector(7, &[0.5, -1.0, 0.25]).unwrap();
        let made = Made { model: "m".into(), dims: 3 };
        let text = notes_text(&made, &index);
        let read = read_notes(&text).unwrap();
        assert_eq!(read.made, made);
        assert_eq!(read.notes[0].0, "Folder/A \"quoted\".md");
        assert_eq!(Some(&read.notes[0].1), index.note("Folder/A \"quoted\".md"));
        let (shard, lines) = shard_text(&index, shard_of(7));
        assert_eq!(lines, 1);
        let (vectors, torn) = read_shard(&shard, shard_of(7), 3).unwrap();
        assert_eq!((vectors, torn), (vec![(7, vec![64, -127, 32])], false));
        assert_eq!(read_shard(&shard, shard_of(7), 4), Err(SavedError::Line(1)));
        assert_eq!(read_shard(&shard, shard_of(7) + 1, 3), Err(SavedError::Line(1)));
        assert_eq!(read_notes(&text.replace("20,", "x,")), Err(SavedError::Line(2)));
        assert_eq!(read_notes("nonsense"), Err(SavedError::Header));
    }

    #[test]
    fn later_lines_replace_earlier_ones_and_a_torn_last_line_is_dropped() {
        let made = Made { model: "m".into(), dims: 3 };
        let one = NotePassages { size: 1, modified_ms: 1, passages: vec![Passage { key: 1, lines: (1, 1) }] };
        let two = NotePassages { size: 2, modified_ms: 2, passages: vec![Passage { key: 2, lines: (1, 2) }] };
        let mut text = notes_header(&made);
        text.push_str(&note_line("a.md", Some(&one)));
        text.push_str(&note_line("b.md", Some(&one)));
        text.push_str(&note_line("a.md", Some(&two)));
        text.push_str(&note_line("b.md", None));
        let read = read_notes(&text).unwrap();
        assert_eq!((read.notes, read.lines, read.torn), (vec![("a.md".to_owned(), two)], 4, false));
        let torn = &text[..text.len() - 4];
        let read = read_notes(torn).unwrap();
        assert!(read.torn && read.notes.len() == 2, "{read:?}");
        let line = vector_line(5 * SHARDS as u64, &[1, 2, 3]);
        let (vectors, torn) = read_shard(&format!("{line}{}", &line[..10]), 0, 3).unwrap();
        assert_eq!((vectors.len(), torn), (1, true));
    }
}
