//! Review-first edits: the diff of a proposed change to a note (line hunks with a few lines of
//! context, and the changed words inside each hunk), and applying only the hunks the user
//! accepted to the exact content the diff was made from. The diff itself is the `similar` crate's
//! (Myers); what is decided here is the shape views and the model read, and how hunks apply.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use similar::{ChangeTag, DiffTag, DiffableStr, TextDiff};

/// Unchanged lines shown around each change (and what merges two changes into one hunk).
pub(crate) const CONTEXT_LINES: usize = 3;
/// Largest change (old plus new lines) whose changed words are marked: past it a hunk is shown
/// line by line, which keeps a rewrite of a huge note fast.
const WORD_DIFF_LINES: usize = 200;

/// What a proposed change does to the vault.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// `edit_file`: part of an existing note.
    Edit,
    /// `write_file` over an existing note: its whole content.
    Overwrite,
    /// `write_file` of a new note (applied without asking, and undoable the same way).
    Create,
    /// `move_file`.
    Move,
    /// `delete_file` (to the trash).
    Delete,
}

/// Whether a diff line was kept, removed or added.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LineKind {
    Context,
    Removed,
    Added,
}

/// A piece of a changed line; `changed` pieces are the words that differ (a view highlights them).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WordSpan {
    pub text: String,
    pub changed: bool,
}

/// One line of a hunk. `text` is the line exactly as in the note, with its line break (the last
/// line of a note may have none), so applying hunks is byte-exact.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiffLine {
    pub kind: LineKind,
    pub text: String,
    /// The line in pieces with the changed words marked (removed/added lines of a small change).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub words: Vec<WordSpan>,
}

/// A run of changes with their context: the unit the user accepts or rejects.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Hunk {
    /// Its number, from 1, as the user and the model name it ("hunks 1 and 3 applied").
    pub number: usize,
    /// The first old line it covers (1-based) and how many.
    pub old_start: usize,
    pub old_lines: usize,
    /// The first new line it gives (1-based) and how many.
    pub new_start: usize,
    pub new_lines: usize,
    pub lines: Vec<DiffLine>,
}

/// A change the agent proposes (or made, when auto-approved): what the approval card and the
/// headless host show, and what is applied against `base_hash` only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProposedChange {
    pub kind: ChangeKind,
    pub path: String,
    /// The new path of a move.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    /// SHA-256 (hex) of the content the diff was made from (of "" for a new note).
    pub base_hash: String,
    /// The line hunks (none for a move; every line removed for a delete).
    pub hunks: Vec<Hunk>,
}

/// The hash a change's base is checked against.
pub(crate) fn content_hash(text: &str) -> String {
    Sha256::digest(text.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// The hunks that turn `old` into `new` (none when they are equal).
pub(crate) fn diff(old: &str, new: &str) -> Vec<Hunk> {
    let diff = TextDiff::from_lines(old, new);
    let mut hunks = Vec::new();
    for group in diff.grouped_ops(CONTEXT_LINES) {
        if group.iter().all(|op| op.tag() == DiffTag::Equal) {
            continue;
        }
        let (Some(first), Some(last)) = (group.first(), group.last()) else { continue };
        let mut lines = Vec::new();
        for op in &group {
            let size = op.old_range().len() + op.new_range().len();
            if op.tag() == DiffTag::Replace && size <= WORD_DIFF_LINES {
                for change in diff.iter_inline_changes(op) {
                    let mut words: Vec<WordSpan> = Vec::new();
                    for (changed, text) in change.iter_strings_lossy() {
                        match words.last_mut() {
                            Some(last) if last.changed == changed => last.text.push_str(&text),
                            _ => words.push(WordSpan { text: text.into_owned(), changed }),
                        }
                    }
                    let text = words.iter().map(|w| w.text.as_str()).collect();
                    lines.push(DiffLine { kind: kind(change.tag()), text, words });
                }
            } else {
                for change in diff.iter_changes(op) {
                    lines.push(DiffLine {
                        kind: kind(change.tag()),
                        text: change.value().to_owned(),
                        words: Vec::new(),
                    });
                }
            }
        }
        let old_start = first.old_range().start;
        let new_start = first.new_range().start;
        hunks.push(Hunk {
            number: hunks.len() + 1,
            old_start: old_start + 1,
            old_lines: last.old_range().end - old_start,
            new_start: new_start + 1,
            new_lines: last.new_range().end - new_start,
            lines,
        });
    }
    hunks
}

fn kind(tag: ChangeTag) -> LineKind {
    match tag {
        ChangeTag::Equal => LineKind::Context,
        ChangeTag::Delete => LineKind::Removed,
        ChangeTag::Insert => LineKind::Added,
    }
}

/// `base` with the accepted hunks (by number) applied and the others left as they were. `base`
/// must be the content the hunks were made from (the caller checks its hash first).
pub(crate) fn apply_hunks(base: &str, hunks: &[Hunk], accepted: &[usize]) -> String {
    let old = base.tokenize_lines();
    let mut out = String::with_capacity(base.len());
    let mut at = 0;
    for hunk in hunks {
        let start = (hunk.old_start - 1).min(old.len());
        let end = (start + hunk.old_lines).min(old.len());
        for line in old.get(at..start).unwrap_or_default() {
            out.push_str(line);
        }
        if accepted.contains(&hunk.number) {
            for line in hunk.lines.iter().filter(|l| l.kind != LineKind::Removed) {
                out.push_str(&line.text);
            }
        } else {
            for line in old.get(start..end).unwrap_or_default() {
                out.push_str(line);
            }
        }
        at = end.max(at);
    }
    for line in old.get(at..).unwrap_or_default() {
        out.push_str(line);
    }
    out
}

/// What the model is told was applied: "hunks 1 and 3 applied, 2 rejected".
pub(crate) fn applied_words(total: usize, accepted: &[usize]) -> String {
    let (yes, no): (Vec<usize>, Vec<usize>) = (1..=total).partition(|n| accepted.contains(n));
    let list = |ns: &[usize]| {
        let words: Vec<String> = ns.iter().map(usize::to_string).collect();
        match words.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
            _ => words.join(""),
        }
    };
    let noun = |ns: &[usize]| if ns.len() == 1 { "hunk" } else { "hunks" };
    match (yes.is_empty(), no.is_empty()) {
        (_, true) if total == 1 => "its one hunk applied".to_owned(),
        (_, true) => format!("all {total} hunks applied"),
        (true, false) => format!("no hunk applied ({} {} rejected)", noun(&no), list(&no)),
        (false, false) => format!("{} {} applied, {} rejected", noun(&yes), list(&yes), list(&no)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hunks_apply_byte_exactly_in_any_selection() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm";
        let new = "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nM\nn\n";
        let hunks = diff(old, new);
        assert_eq!(hunks.len(), 2);
        assert_eq!(apply_hunks(old, &hunks, &[1, 2]), new);
        assert_eq!(apply_hunks(old, &hunks, &[]), old);
        assert_eq!(apply_hunks(old, &hunks, &[1]), "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm");
        assert_eq!(apply_hunks(old, &hunks, &[2]), "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nM\nn\n");
        assert!(diff(old, old).is_empty());
        assert_eq!(apply_hunks("", &diff("", "x\r\ny"), &[1]), "x\r\ny");
        assert_eq!(apply_hunks("x\r\ny", &diff("x\r\ny", ""), &[1]), "");
    }

    #[test]
    fn words_tell_what_changed_inside_a_line() {
        let hunks = diff("the quick fox\n", "the slow fox\n");
        let removed = &hunks[0].lines[0];
        assert_eq!(removed.kind, LineKind::Removed);
        let changed: Vec<&str> = removed.words.iter().filter(|w| w.changed).map(|w| w.text.as_str()).collect();
        assert_eq!(changed, ["quick"]);
    }

    #[test]
    fn the_model_reads_what_was_applied() {
        assert_eq!(applied_words(3, &[1, 3]), "hunks 1 and 3 applied, 2 rejected");
        assert_eq!(applied_words(2, &[1, 2]), "all 2 hunks applied");
        assert_eq!(applied_words(1, &[1]), "its one hunk applied");
        assert_eq!(applied_words(2, &[]), "no hunk applied (hunks 1 and 2 rejected)");
    }
}
