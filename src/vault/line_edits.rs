//! The text operations of the note tools: reading a range of lines, and the edits `edit_file`
//! makes (exact replacement, insertion by line, deletion of a line range), each refusing what
//! would be ambiguous or out of range.

use thiserror::Error;

/// Largest note an edit may produce, in bytes: checked before the new text is built, so a
/// replace-all of one letter by a long text is refused instead of filling memory.
pub(crate) const MAX_NOTE_BYTES: usize = 10 * 1024 * 1024;

/// Why an edit was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub(crate) enum EditError {
    #[error("the text to replace was not found in {0}")]
    NotFound(String),
    #[error("the text to replace appears {count} times in {path}; include more surrounding text to make it unique, or set replace_all to true")]
    Ambiguous { path: String, count: usize },
    #[error("the text to replace is empty")]
    EmptyPattern,
    #[error("line {line} is outside {path}, which has {lines} lines")]
    LineOutOfRange { path: String, line: usize, lines: usize },
    #[error("the line range {start}–{end} is not valid for {path}, which has {lines} lines")]
    BadRange { path: String, start: usize, end: usize, lines: usize },
    #[error("this edit would make {path} {bytes} bytes long, over the {MAX_NOTE_BYTES} bytes a note may have; replace fewer occurrences or a shorter text")]
    TooLarge { path: String, bytes: u64 },
    #[error("{path} is not valid UTF-8 text (byte {at} is not: the note is in another encoding, or damaged), and the agent changes only UTF-8 notes, so that no byte it did not edit is ever rewritten")]
    NotUtf8 { path: String, at: usize },
}

/// A note's bytes as its exact text, or why not: a note that is not valid UTF-8 is never edited
/// (decoded, each bad sequence would become U+FFFD, and writing the edit back would rewrite bytes
/// no edit touched).
pub(crate) fn exact_text(bytes: Vec<u8>, path: &str) -> Result<String, EditError> {
    String::from_utf8(bytes).map_err(|e| EditError::NotUtf8 { path: path.to_owned(), at: e.utf8_error().valid_up_to() })
}

/// Refuses a result of `bytes` bytes over the limit, unless the note was already that large
/// and the edit does not grow it.
fn bounded(bytes: u64, before: usize, path: &str) -> Result<(), EditError> {
    if bytes > MAX_NOTE_BYTES as u64 && bytes > before as u64 {
        return Err(EditError::TooLarge { path: path.to_owned(), bytes });
    }
    Ok(())
}

/// An edit `edit_file` makes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Edit {
    Replace { old: String, new: String, all: bool },
    Insert { line: usize, after: bool, text: String },
    DeleteLines { start: usize, end: usize },
}

/// Lines of a text (a final newline does not start another line).
pub(crate) fn lines(text: &str) -> Vec<&str> {
    text.strip_suffix('\n').unwrap_or(text).split('\n').collect()
}

/// Applies an edit; `path` is for messages.
pub(crate) fn apply(edit: &Edit, text: &str, path: &str) -> Result<String, EditError> {
    let trailing_newline = text.ends_with('\n');
    match edit {
        Edit::Replace { old, new, all } => {
            if old.is_empty() {
                return Err(EditError::EmptyPattern);
            }
            let count = text.matches(old.as_str()).count();
            if count == 1 || (count > 1 && *all) {
                // The result's size is known before it is built.
                // In u64: a wasm32 usize would wrap at 4 GB.
                let (count64, old64, new64) = (count as u64, old.len() as u64, new.len() as u64);
                let grown = count64.saturating_mul(new64).saturating_add(text.len() as u64);
                bounded(grown.saturating_sub(count64.saturating_mul(old64)), text.len(), path)?;
            }
            match count {
                0 => Err(EditError::NotFound(path.to_owned())),
                1 => Ok(text.replacen(old.as_str(), new, 1)),
                _ if *all => Ok(text.replace(old.as_str(), new)),
                count => Err(EditError::Ambiguous { path: path.to_owned(), count }),
            }
        }
        Edit::Insert { line, after, text: insert } => {
            bounded(text.len() as u64 + insert.len() as u64 + 1, text.len(), path)?;
            let mut all: Vec<&str> = if text.is_empty() { Vec::new() } else { lines(text) };
            let count = all.len();
            let at = match (*after, *line) {
                (_, 0) if count == 0 => 0,
                (false, l) if (1..=count).contains(&l) => l - 1,
                (true, l) if (1..=count).contains(&l) => l,
                (_, l) => return Err(EditError::LineOutOfRange { path: path.to_owned(), line: l, lines: count }),
            };
            let inserted: Vec<&str> = lines(insert);
            all.splice(at..at, inserted);
            Ok(join(&all, trailing_newline || text.is_empty()))
        }
        Edit::DeleteLines { start, end } => {
            let mut all = lines(text);
            let count = all.len();
            if *start == 0 || start > end || *end > count {
                return Err(EditError::BadRange { path: path.to_owned(), start: *start, end: *end, lines: count });
            }
            all.drain(start - 1..*end);
            Ok(join(&all, trailing_newline))
        }
    }
}

fn join(lines: &[&str], trailing_newline: bool) -> String {
    let mut out = lines.join("\n");
    if trailing_newline && !out.is_empty() {
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOTE: &str = "# List\n- milk\n- eggs\n- milk\n";

    #[test]
    fn replacing_refuses_ambiguity_unless_asked() {
        let one = Edit::Replace { old: "eggs".into(), new: "bread".into(), all: false };
        assert_eq!(apply(&one, NOTE, "L.md").unwrap(), "# List\n- milk\n- bread\n- milk\n");
        let twice = Edit::Replace { old: "milk".into(), new: "oat milk".into(), all: false };
        assert_eq!(apply(&twice, NOTE, "L.md"), Err(EditError::Ambiguous { path: "L.md".into(), count: 2 }));
        let all = Edit::Replace { old: "milk".into(), new: "oat milk".into(), all: true };
        assert_eq!(apply(&all, NOTE, "L.md").unwrap(), "# List\n- oat milk\n- eggs\n- oat milk\n");
        let missing = Edit::Replace { old: "tea".into(), new: "x".into(), all: false };
        assert_eq!(apply(&missing, NOTE, "L.md"), Err(EditError::NotFound("L.md".into())));
    }

    #[test]
    fn inserting_and_deleting_by_line() {
        let before = Edit::Insert { line: 2, after: false, text: "- bread".into() };
        assert_eq!(apply(&before, NOTE, "L.md").unwrap(), "# List\n- bread\n- milk\n- eggs\n- milk\n");
        let after_last = Edit::Insert { line: 4, after: true, text: "- tea\n- jam".into() };
        assert_eq!(apply(&after_last, NOTE, "L.md").unwrap(), "# List\n- milk\n- eggs\n- milk\n- tea\n- jam\n");
        assert!(matches!(
            apply(&Edit::Insert { line: 9, after: true, text: "x".into() }, NOTE, "L.md"),
            Err(EditError::LineOutOfRange { .. })
        ));
        assert_eq!(apply(&Edit::Insert { line: 0, after: true, text: "first".into() }, "", "E.md").unwrap(), "first\n");
        assert_eq!(apply(&Edit::DeleteLines { start: 2, end: 3 }, NOTE, "L.md").unwrap(), "# List\n- milk\n");
        assert!(matches!(
            apply(&Edit::DeleteLines { start: 3, end: 9 }, NOTE, "L.md"),
            Err(EditError::BadRange { .. })
        ));
        assert!(matches!(
            apply(&Edit::DeleteLines { start: 0, end: 1 }, NOTE, "L.md"),
            Err(EditError::BadRange { .. })
        ));
    }

    #[test]
    fn an_edit_whose_result_would_be_huge_is_refused_before_it_is_built() {
        let note = "a".repeat(1_000_000);
        let huge = Edit::Replace { old: "a".into(), new: "b".repeat(1_000_000), all: true };
        let e = apply(&huge, &note, "Big.md").unwrap_err();
        assert_eq!(e, EditError::TooLarge { path: "Big.md".into(), bytes: 1_000_000_000_000 });
        assert!(e.to_string().contains("replace fewer occurrences"));
        let insert = Edit::Insert { line: 1, after: true, text: "x".repeat(MAX_NOTE_BYTES) };
        assert!(matches!(apply(&insert, "one\n", "N.md"), Err(EditError::TooLarge { .. })));
        // Shrinking a note already over the limit is fine.
        let big = "ab".repeat(MAX_NOTE_BYTES / 2 + 1);
        let shrink = Edit::Replace { old: "b".into(), new: String::new(), all: true };
        assert_eq!(apply(&shrink, &big, "B.md").unwrap().len(), MAX_NOTE_BYTES / 2 + 1);
    }
}
