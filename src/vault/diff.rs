//! Review-first edits: the diff of a proposed change to a note (line hunks with a few lines of
//! context, and the changed words inside each hunk), and applying only the hunks the user
//! accepted to the exact content the diff was made from. The diff itself is the `similar` crate's
//! Myers, called directly over lines and then over words (not its `TextDiff`, which compiles every
//! algorithm it can choose at run time: +95 KB gzip in the bundle); what is decided here is the
//! shape views and the model read, and how hunks apply.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use similar::algorithms::{myers, Capture, Replace};
use similar::{group_diff_ops, DiffOp, DiffTag};

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

/// A note undo left as it is, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UndoRefusal {
    pub path: String,
    pub reason: String,
}

/// What undoing a turn did: the UI and the headless host say it note by note.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UndoReport {
    pub message_id: String,
    /// Notes put back as they were before the turn (a move's original path).
    pub restored: Vec<String>,
    pub refused: Vec<UndoRefusal>,
}

/// The hash a change's base is checked against.
pub fn content_hash(text: &str) -> String {
    bytes_hash(text.as_bytes())
}

/// The same hash of a file's exact bytes (what undo checks a note, or a moved file, against).
pub(crate) fn bytes_hash(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// A text's lines, each with its line break (the last may have none).
pub(crate) fn split_lines(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

/// The edit script between two token lists (Myers), equal runs included.
pub(crate) fn ops(old: &[&str], new: &[&str]) -> Vec<DiffOp> {
    let mut hook = Replace::new(Capture::new());
    // Capturing cannot fail (its error type is uninhabited).
    let _ = myers::diff(&mut hook, old, 0..old.len(), new, 0..new.len());
    hook.into_inner().into_ops()
}

/// The hunks that turn `old` into `new` (none when they are equal).
pub(crate) fn diff(old: &str, new: &str) -> Vec<Hunk> {
    diff_with_context(old, new, CONTEXT_LINES)
}

/// [`diff`] with `context` unchanged lines around each change; with 0, each run of changed lines
/// is a hunk of its own (an edit in place is answered change by change, in the note itself).
pub(crate) fn diff_with_context(old: &str, new: &str, context: usize) -> Vec<Hunk> {
    hunks_of(&split_lines(old), &split_lines(new), ops(&split_lines(old), &split_lines(new)), context)
}

/// The hunks of an edit script between two texts' lines.
pub(crate) fn hunks_of(old_lines: &[&str], new_lines: &[&str], script: Vec<DiffOp>, context: usize) -> Vec<Hunk> {
    let mut hunks = Vec::new();
    for group in group_diff_ops(script, context) {
        if group.iter().all(|op| op.tag() == DiffTag::Equal) {
            continue;
        }
        let (Some(first), Some(last)) = (group.first(), group.last()) else { continue };
        let mut lines = Vec::new();
        for op in &group {
            let (old_part, new_part) = (&old_lines[op.old_range()], &new_lines[op.new_range()]);
            let line = |kind, text: &&str, words| DiffLine { kind, text: (*text).to_owned(), words };
            match op.tag() {
                DiffTag::Equal => lines.extend(old_part.iter().map(|t| line(LineKind::Context, t, Vec::new()))),
                DiffTag::Replace if old_part.len() + new_part.len() <= WORD_DIFF_LINES => {
                    let (old_words, new_words) = changed_words(old_part, new_part);
                    lines.extend(old_part.iter().zip(old_words).map(|(t, w)| line(LineKind::Removed, t, w)));
                    lines.extend(new_part.iter().zip(new_words).map(|(t, w)| line(LineKind::Added, t, w)));
                }
                _ => {
                    lines.extend(old_part.iter().map(|t| line(LineKind::Removed, t, Vec::new())));
                    lines.extend(new_part.iter().map(|t| line(LineKind::Added, t, Vec::new())));
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

/// A line's words: runs of letters and digits, runs of blanks, and every other character alone.
fn tokens(line: &str) -> Vec<&str> {
    let class = |c: char| {
        if c.is_alphanumeric() || c == '_' {
            0
        } else if c.is_whitespace() && c != '\n' {
            1
        } else {
            2
        }
    };
    let mut out = Vec::new();
    let mut start = 0;
    let mut previous = None;
    for (i, c) in line.char_indices() {
        let k = class(c);
        if i > start && (previous != Some(k) || k == 2) {
            out.push(&line[start..i]);
            start = i;
        }
        previous = Some(k);
    }
    if start < line.len() {
        out.push(&line[start..]);
    }
    out
}

/// The removed and added lines of a change in pieces, the words that differ marked.
fn changed_words<'a>(old: &[&'a str], new: &[&'a str]) -> (Vec<Vec<WordSpan>>, Vec<Vec<WordSpan>>) {
    fn split<'a>(lines: &[&'a str]) -> Vec<(usize, &'a str)> {
        lines.iter().enumerate().flat_map(|(i, l)| tokens(l).into_iter().map(move |t| (i, t))).collect()
    }
    fn words<'a>(t: &[(usize, &'a str)]) -> Vec<&'a str> {
        t.iter().map(|(_, w)| *w).collect()
    }
    let (old_tokens, new_tokens) = (split(old), split(new));
    let mut old_changed = vec![true; old_tokens.len()];
    let mut new_changed = vec![true; new_tokens.len()];
    for op in ops(&words(&old_tokens), &words(&new_tokens)) {
        if let DiffOp::Equal { old_index, new_index, len } = op {
            old_changed[old_index..old_index + len].fill(false);
            new_changed[new_index..new_index + len].fill(false);
        }
    }
    let spans = |count: usize, t: &[(usize, &str)], changed: &[bool]| {
        let mut out: Vec<Vec<WordSpan>> = vec![Vec::new(); count];
        for ((line, text), &changed) in t.iter().zip(changed) {
            let spans = &mut out[*line];
            match spans.last_mut() {
                Some(last) if last.changed == changed => last.text.push_str(text),
                _ => spans.push(WordSpan { text: (*text).to_owned(), changed }),
            }
        }
        out
    };
    (spans(old.len(), &old_tokens, &old_changed), spans(new.len(), &new_tokens, &new_changed))
}

/// `base` with the accepted hunks (by number) applied and the others left as they were. `base`
/// must be the content the hunks were made from (the caller checks its hash first).
pub(crate) fn apply_hunks(base: &str, hunks: &[Hunk], accepted: &[usize]) -> String {
    let old = split_lines(base);
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

/// `current` — the note now, which may hold the user's own edits since `base`, the content the
/// hunks were made from — with the accepted hunks applied; `None` (a conflict) when an accepted
/// hunk covers a line the user changed, or its place is gone. Typing elsewhere in the note is
/// kept and is no conflict.
pub(crate) fn apply_hunks_onto(base: &str, current: &str, hunks: &[Hunk], accepted: &[usize]) -> Option<String> {
    if base == current {
        return Some(apply_hunks(base, hunks, accepted));
    }
    let (old, now) = (split_lines(base), split_lines(current));
    // Where each line of `base` the user left alone is now.
    let mut kept: Vec<Option<usize>> = vec![None; old.len()];
    for op in ops(&old, &now) {
        if let DiffOp::Equal { old_index, new_index, len } = op {
            for k in 0..len {
                kept[old_index + k] = Some(new_index + k);
            }
        }
    }
    let mut places = Vec::new();
    for hunk in hunks.iter().filter(|h| accepted.contains(&h.number)) {
        let start = (hunk.old_start - 1).min(old.len());
        let end = (start + hunk.old_lines).min(old.len());
        let at = if start < end {
            let (first, last) = (kept[start]?, kept[end - 1]?);
            // Lines the user added inside the hunk's lines are a change under it too.
            (last - first == end - 1 - start).then_some((first, last + 1))?
        } else if start == 0 {
            (0, 0)
        } else {
            // An insertion goes after the line it followed, if the user left that line alone.
            let after = kept[start - 1]? + 1;
            (after, after)
        };
        places.push((at, hunk));
    }
    crate::lean::sort_by_key(&mut places, |((from, _), _)| *from);
    let mut out = String::with_capacity(current.len());
    let mut at = 0;
    for ((from, to), hunk) in places {
        if from < at {
            return None;
        }
        now[at..from].iter().for_each(|line| out.push_str(line));
        hunk.lines.iter().filter(|l| l.kind != LineKind::Removed).for_each(|l| out.push_str(&l.text));
        at = to;
    }
    now[at..].iter().for_each(|line| out.push_str(line));
    Some(out)
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

    /// Scattered changes over many texts: all hunks give the new text, none the old, and any
    /// subset is the old text with exactly those hunks' lines replaced.
    #[test]
    fn any_selection_of_hunks_applies_exactly() {
        let mut seed = 7u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        };
        for _ in 0..200 {
            let old: Vec<String> = (0..next() % 60).map(|i| format!("line {i} word{}\n", next() % 5)).collect();
            let mut new = old.clone();
            for _ in 0..next() % 6 {
                let at = if new.is_empty() { 0 } else { next() % new.len() };
                match next() % 3 {
                    0 if !new.is_empty() => {
                        new.remove(at);
                    }
                    1 => new.insert(at, format!("added {}\n", next())),
                    _ if !new.is_empty() => new[at] = format!("changed {}\n", next()),
                    _ => {}
                }
            }
            let (old, mut new) = (old.concat(), new.concat());
            if next() % 4 == 0 {
                new.pop();
            }
            let hunks = diff(&old, &new);
            let all: Vec<usize> = hunks.iter().map(|h| h.number).collect();
            assert_eq!(apply_hunks(&old, &hunks, &all), new);
            assert_eq!(apply_hunks(&old, &hunks, &[]), old);
            for skip in &all {
                let some: Vec<usize> = all.iter().copied().filter(|n| n != skip).collect();
                let partial = apply_hunks(&old, &hunks, &some);
                // Rejecting one hunk and then applying the rest's diff to it gives back the new text.
                let rest = diff(&partial, &new);
                assert_eq!(rest.len(), 1, "only the skipped hunk is left");
            }
        }
    }

    /// The user's own edits since the diff are kept, and are a conflict only under an accepted
    /// hunk's lines.
    #[test]
    fn hunks_apply_onto_a_note_the_user_edited_elsewhere() {
        let base = "a\nb\nc\nd\ne\nf\ng\n";
        let new = "A\nb\nc\nd\nE\nf\ng\nh\n";
        let hunks = diff_with_context(base, new, 0);
        assert_eq!(hunks.len(), 3);
        // Typed into line c, and a line added at the top.
        let current = "top\na\nb\nc typed\nd\ne\nf\ng\n";
        assert_eq!(
            apply_hunks_onto(base, current, &hunks, &[1, 2, 3]).as_deref(),
            Some("top\nA\nb\nc typed\nd\nE\nf\ng\nh\n")
        );
        assert_eq!(apply_hunks_onto(base, current, &hunks, &[2]).as_deref(), Some("top\na\nb\nc typed\nd\nE\nf\ng\n"));
        // Typed into line e, which hunk 2 replaces: a conflict for it, not for the others.
        let over = "a\nb\nc\nd\ne typed\nf\ng\n";
        assert_eq!(apply_hunks_onto(base, over, &hunks, &[2]), None);
        assert_eq!(apply_hunks_onto(base, over, &hunks, &[1, 3]).as_deref(), Some("A\nb\nc\nd\ne typed\nf\ng\nh\n"));
        // The line an insertion follows was changed: its place is gone.
        assert_eq!(apply_hunks_onto(base, "a\nb\nc\nd\ne\nf\nG\n", &hunks, &[3]), None);
        // Unchanged note: exactly apply_hunks.
        assert_eq!(
            apply_hunks_onto(base, base, &hunks, &[1, 3]).as_deref(),
            Some(apply_hunks(base, &hunks, &[1, 3]).as_str())
        );
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
