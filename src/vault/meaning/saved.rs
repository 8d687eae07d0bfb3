//! The meaning index on disk, under `.smarthole/meaning/`: `notes.txt` (a header naming the
//! model and dimension, then one JSON line per note: path, size, time, its passages as
//! `key:first:last`) and the vectors in [`SHARDS`] files by key (`vectors-NN.txt`, one
//! `key base64` line each), so a change rewrites the shards it touched, not every vector. Any
//! line that does not read back makes its whole file untrusted: a damaged notes file is cut again
//! from the notes, a damaged shard's vectors are embedded again.

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

/// The notes' file: the header, then each note.
pub(crate) fn notes_text(made: &Made, index: &MeaningIndex) -> String {
    let mut out = json!({ "version": VERSION, "model": made.model, "dims": made.dims }).to_string();
    out.push('\n');
    for (path, note) in index.all_notes() {
        let passages: Vec<String> =
            note.passages.iter().map(|p| format!("{:016x}:{}:{}", p.key, p.lines.0, p.lines.1)).collect();
        out.push_str(&json!([path, note.size, note.modified_ms, passages.join(" ")]).to_string());
        out.push('\n');
    }
    out
}

/// The notes' file read back: what made its vectors, and each note.
pub(crate) fn read_notes(text: &str) -> Result<(Made, Vec<(String, NotePassages)>), SavedError> {
    let mut lines = text.lines();
    let header: Value = lines.next().and_then(|l| serde_json::from_str(l).ok()).ok_or(SavedError::Header)?;
    if header["version"].as_u64() != Some(VERSION) {
        return Err(SavedError::Header);
    }
    let made = Made {
        model: header["model"].as_str().ok_or(SavedError::Header)?.to_owned(),
        dims: header["dims"].as_u64().ok_or(SavedError::Header)? as usize,
    };
    let mut notes = Vec::new();
    for (n, line) in lines.enumerate() {
        let bad = SavedError::Line(n + 2);
        let value: Value = serde_json::from_str(line).map_err(|_| bad.clone())?;
        let (Some(path), Some(size), Some(modified_ms), Some(list)) =
            (value[0].as_str(), value[1].as_u64(), value[2].as_u64(), value[3].as_str())
        else {
            return Err(bad);
        };
        let passages =
            list.split_whitespace().map(passage).collect::<Option<Vec<Passage>>>().ok_or_else(|| bad.clone())?;
        notes.push((path.to_owned(), NotePassages { size, modified_ms, passages }));
    }
    Ok((made, notes))
}

fn passage(text: &str) -> Option<Passage> {
    let mut parts = text.split(':');
    let key = u64::from_str_radix(parts.next()?, 16).ok()?;
    let first = parts.next()?.parse().ok()?;
    let last = parts.next()?.parse().ok()?;
    parts.next().is_none().then_some(Passage { key, lines: (first, last) })
}

/// A shard's file: each vector it holds.
pub(crate) fn shard_text(index: &MeaningIndex, shard: usize) -> String {
    let engine = &base64::engine::general_purpose::STANDARD;
    let mut out = String::new();
    for (key, q) in index.all_vectors().filter(|(key, _)| shard_of(*key) == shard) {
        let bytes: Vec<u8> = q.iter().map(|&x| x as u8).collect();
        out.push_str(&format!("{key:016x} {}\n", engine.encode(bytes)));
    }
    out
}

/// A shard's vectors read back; each must have `dims` dimensions and belong in this shard.
pub(crate) fn read_shard(text: &str, shard: usize, dims: usize) -> Result<Vec<(u64, Vec<i8>)>, SavedError> {
    let engine = &base64::engine::general_purpose::STANDARD;
    text.lines()
        .enumerate()
        .map(|(n, line)| {
            let read = || {
                let (key, data) = line.split_once(' ')?;
                let key = u64::from_str_radix(key, 16).ok()?;
                let bytes = engine.decode(data).ok()?;
                (bytes.len() == dims && shard_of(key) == shard)
                    .then(|| (key, bytes.into_iter().map(|b| b as i8).collect()))
            };
            read().ok_or(SavedError::Line(n + 1))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_and_vectors_read_back_as_written_and_damage_is_named() {
        let mut index = MeaningIndex::default();
        let passages = vec![Passage { key: 7, lines: (1, 4) }, Passage { key: u64::MAX, lines: (5, 9) }];
        index.set_note("Folder/A \"quoted\".md", NotePassages { size: 10, modified_ms: 20, passages });
        index.add_vector(7, &[0.5, -1.0, 0.25]).unwrap();
        let made = Made { model: "m".into(), dims: 3 };
        let text = notes_text(&made, &index);
        let (read_made, notes) = read_notes(&text).unwrap();
        assert_eq!(read_made, made);
        assert_eq!(notes[0].0, "Folder/A \"quoted\".md");
        assert_eq!(Some(&notes[0].1), index.note("Folder/A \"quoted\".md"));
        let shard = shard_text(&index, shard_of(7));
        let vectors = read_shard(&shard, shard_of(7), 3).unwrap();
        assert_eq!(vectors, vec![(7, vec![64, -127, 32])]);
        assert_eq!(read_shard(&shard, shard_of(7), 4), Err(SavedError::Line(1)));
        assert_eq!(read_shard(&shard, shard_of(7) + 1, 3), Err(SavedError::Line(1)));
        let cut = &text[..text.len() - 5];
        assert_eq!(read_notes(cut), Err(SavedError::Line(2)));
        assert_eq!(read_notes("nonsense"), Err(SavedError::Header));
    }
}
