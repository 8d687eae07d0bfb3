//! What an edit in place works on: the whole lines around the user's selection (or the paragraph
//! at the cursor), kept with the message so the proposal can be drawn as it streams and found
//! again in the note when the answer is done, wherever the user's typing moved it.

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Why an edit in place could not start; each says what to do.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum EditError {
    #[error("Say what the agent should do with the selection.")]
    NoInstruction,
    #[error("Nothing to edit here: select some text, or put the cursor in a paragraph.")]
    NothingHere,
    #[error("The selection is outside the note; select the text again.")]
    BadRange,
    #[error("The selection is too long for an edit in place (over 1 MB); select less, or ask in the chat.")]
    TooLong,
}

/// Longest passage an edit in place takes: the model rewrites it whole.
const MAX_PASSAGE_BYTES: usize = 1 << 20;

/// How the passage was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EditScope {
    Selection,
    Paragraph,
    Line,
}

/// The passage of a note an edit in place rewrites, carried by its message (durable in the inbox).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EditTarget {
    pub path: String,
    /// The first of the whole lines the passage lies in (1-based), as the note was at the ask.
    pub start_line: usize,
    /// Those lines, exactly (each with its line break; the note's last may have none).
    pub lines: String,
    /// The passage inside `lines`: byte offsets of its start and end.
    pub from: usize,
    pub to: usize,
    pub scope: EditScope,
    /// What the user asked for.
    pub instruction: String,
}

impl EditTarget {
    /// The text the model rewrites.
    pub fn passage(&self) -> &str {
        self.lines.get(self.from..self.to).unwrap_or_default()
    }

    /// The last line the passage's lines cover (1-based).
    pub fn end_line(&self) -> usize {
        self.start_line + self.lines.split_inclusive('\n').count().max(1) - 1
    }

    /// `lines` with the passage replaced by `text`.
    pub fn with_passage(&self, text: &str) -> String {
        let (head, tail) =
            (self.lines.get(..self.from).unwrap_or_default(), self.lines.get(self.to..).unwrap_or_default());
        format!("{head}{text}{tail}")
    }
}

/// The byte offset of UTF-16 offset `at` in `text` (CodeMirror's positions count UTF-16 units);
/// an offset inside a character or past the end is refused.
pub(crate) fn utf16_to_byte(text: &str, at: usize) -> Result<usize, EditError> {
    let mut units = 0;
    for (byte, c) in text.char_indices() {
        if units == at {
            return Ok(byte);
        }
        if units > at {
            break;
        }
        units += c.len_utf16();
    }
    if units == at {
        return Ok(text.len());
    }
    Err(EditError::BadRange)
}

/// The passage for a selection `from..to` (bytes) of `text`: the selection itself, or with none
/// the paragraph at the cursor — just its line for a heading, a list item, a quote or a table row.
pub(crate) fn locate(
    path: &str,
    text: &str,
    from: usize,
    to: usize,
    instruction: &str,
) -> Result<EditTarget, EditError> {
    let instruction = instruction.trim();
    if instruction.is_empty() {
        return Err(EditError::NoInstruction);
    }
    if from > to || to > text.len() || !text.is_char_boundary(from) || !text.is_char_boundary(to) {
        return Err(EditError::BadRange);
    }
    let line_start = |at: usize| text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line_end = |at: usize| text[at..].find('\n').map_or(text.len(), |i| at + i + 1);
    let (from, to, scope) = if from < to {
        (from, to, EditScope::Selection)
    } else {
        let (start, end) = (line_start(from), line_end(from));
        let line = &text[start..end];
        if line.trim().is_empty() {
            return Err(EditError::NothingHere);
        }
        if is_own_line(line) {
            (start, end, EditScope::Line)
        } else {
            let (mut start, mut end) = (start, end);
            while start > 0 {
                let before = line_start(start - 1);
                let prior = &text[before..start];
                if prior.trim().is_empty() || is_own_line(prior) {
                    break;
                }
                start = before;
            }
            while end < text.len() {
                let after = line_end(end);
                let next = &text[end..after];
                if next.trim().is_empty() || is_own_line(next) {
                    break;
                }
                end = after;
            }
            (start, end, EditScope::Paragraph)
        }
    };
    if to - from > MAX_PASSAGE_BYTES {
        return Err(EditError::TooLong);
    }
    let (start, end) = (line_start(from), if to > from && text[..to].ends_with('\n') { to } else { line_end(to) });
    Ok(EditTarget {
        path: path.to_owned(),
        start_line: text[..start].matches('\n').count() + 1,
        lines: text[start..end].to_owned(),
        from: from - start,
        to: to - start,
        scope,
        instruction: instruction.to_owned(),
    })
}

/// A line that stands alone rather than as part of a paragraph: a heading, a list item, a quote,
/// a table row, a fence.
fn is_own_line(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with('#')
        || t.starts_with("- ")
        || t.starts_with("* ")
        || t.starts_with("+ ")
        || t.starts_with('>')
        || t.starts_with('|')
        || t.starts_with("```")
        || t.split_once(". ").is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
}

/// Where `lines` is in `note` now: at `start_line` if still there, else at the nearest line they
/// start at; `None` when the passage's lines were changed.
pub(crate) fn find_lines(note: &str, lines: &str, start_line: usize) -> Option<usize> {
    let starts: Vec<usize> =
        std::iter::once(0).chain(note.match_indices('\n').map(|(i, _)| i + 1)).filter(|&i| i <= note.len()).collect();
    let fits = |i: usize| note[i..].starts_with(lines);
    let wanted = start_line.saturating_sub(1);
    if starts.get(wanted).is_some_and(|&i| fits(i)) {
        return starts.get(wanted).copied();
    }
    starts.iter().enumerate().filter(|(_, &i)| fits(i)).min_by_key(|(n, _)| n.abs_diff(wanted)).map(|(_, &i)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOTE: &str = "# Plan\n\nFirst line of a\nparagraph here.\n\n- item one\n- item two\n";

    #[test]
    fn a_selection_keeps_its_whole_lines() {
        let from = NOTE.find("line").unwrap();
        let to = NOTE.find(" here").unwrap();
        let t = locate("P.md", NOTE, from, to, " shorter ").unwrap();
        assert_eq!((t.start_line, t.end_line(), t.scope), (3, 4, EditScope::Selection));
        assert_eq!(t.lines, "First line of a\nparagraph here.\n");
        assert_eq!(t.passage(), "line of a\nparagraph");
        assert_eq!(t.with_passage("X"), "First X here.\n");
        assert_eq!(t.instruction, "shorter");
    }

    #[test]
    fn no_selection_takes_the_paragraph_or_the_line() {
        let at = NOTE.find("graph").unwrap();
        let t = locate("P.md", NOTE, at, at, "x").unwrap();
        assert_eq!((t.scope, t.passage()), (EditScope::Paragraph, "First line of a\nparagraph here.\n"));
        let at = NOTE.find("two").unwrap();
        let t = locate("P.md", NOTE, at, at, "x").unwrap();
        assert_eq!((t.scope, t.passage(), t.start_line), (EditScope::Line, "- item two\n", 7));
        let blank = NOTE.find("\n\n").unwrap() + 1;
        assert_eq!(locate("P.md", NOTE, blank, blank, "x"), Err(EditError::NothingHere));
        assert_eq!(locate("P.md", NOTE, 0, 3, "  "), Err(EditError::NoInstruction));
    }

    #[test]
    fn utf16_offsets_become_bytes() {
        let text = "a😀b é";
        assert_eq!(utf16_to_byte(text, 0), Ok(0));
        assert_eq!(utf16_to_byte(text, 3), Ok(5));
        assert_eq!(utf16_to_byte(text, 2), Err(EditError::BadRange));
        assert_eq!(utf16_to_byte(text, 6), Ok(text.len()));
        assert_eq!(utf16_to_byte(text, 7), Err(EditError::BadRange));
    }

    #[test]
    fn lines_are_found_where_typing_moved_them() {
        let lines = "- item one\n";
        assert_eq!(find_lines(NOTE, lines, 6), NOTE.find("- item one"));
        let moved = format!("new top\n{NOTE}");
        assert_eq!(find_lines(&moved, lines, 6), moved.find("- item one"));
        assert_eq!(find_lines(&NOTE.replace("item one", "item 1"), lines, 6), None);
    }
}
