//! The model's answer as the new text of the passage: stripped of what models wrap a rewrite in
//! (a code fence, the passage tags the prompt used), with the passage's own ending kept; and the
//! hunks it makes — streamed while it is written, and final.

use similar::{DiffOp, DiffTag};

use super::target::EditTarget;
use crate::vault::diff::{hunks_of, ops, split_lines, Hunk};

/// The replacement text an answer gives for `target`'s passage.
pub(crate) fn replacement(target: &EditTarget, answer: &str) -> String {
    let mut text = answer.trim_matches(|c| c == '\n' || c == '\r');
    for (open, close) in [("<passage>", "</passage>")] {
        if let Some(inner) = text.trim().strip_prefix(open).and_then(|t| t.strip_suffix(close)) {
            text = inner.trim_matches(|c| c == '\n' || c == '\r');
        }
    }
    // A whole answer in one code fence (```md … ```): its inside, unless the passage is a fence.
    let trimmed = text.trim();
    if trimmed.starts_with("```") && trimmed.ends_with("```") && trimmed.len() > 6 && !target.passage().contains("```")
    {
        if let Some((_, body)) = trimmed.trim_end_matches('`').split_once('\n') {
            text = body.trim_end_matches(['\n', '\r']);
        }
    }
    // The passage's own line breaks around it stand: a rewrite of a paragraph that ended a line
    // ends that line too.
    let passage = target.passage();
    let trailing = &passage[passage.trim_end_matches(['\n', '\r']).len()..];
    let leading = &passage[..passage.len() - passage.trim_start_matches(['\n', '\r']).len()];
    format!("{leading}{text}{trailing}")
}

/// The hunks of the passage's lines rewritten with `answer`, in the note's line numbers as at the
/// ask, one per run of changed lines. While the answer is `writing`, the passage's lines past
/// what it has reached are not shown as removed.
pub(crate) fn proposal_hunks(target: &EditTarget, answer: &str, writing: bool) -> Vec<Hunk> {
    let new_lines = if writing {
        // The rest of the passage's lines is not reached yet: only the head and what is written.
        format!("{}{}", &target.lines[..target.from], answer.trim_start_matches(['\n', '\r']))
    } else {
        target.with_passage(&replacement(target, answer))
    };
    let (old, new) = (split_lines(&target.lines), split_lines(&new_lines));
    let mut script = ops(&old, &new);
    if writing {
        // Lines not reached yet end the script as a deletion (or the old part of a replace):
        // they stay as they are until the answer gets there.
        match script.last().copied() {
            Some(DiffOp::Delete { .. }) => {
                script.pop();
            }
            Some(DiffOp::Replace { old_index, new_index, new_len, old_len }) if old_len > new_len => {
                script.pop();
                script.push(DiffOp::Replace { old_index, old_len: new_len, new_index, new_len });
            }
            _ => {}
        }
        script.retain(|op| op.tag() != DiffTag::Equal || !op.old_range().is_empty());
    }
    let mut hunks = hunks_of(&old, &new, script, 0);
    for hunk in &mut hunks {
        hunk.old_start += target.start_line - 1;
        hunk.new_start += target.start_line - 1;
    }
    hunks
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit_in_place::target::locate;
    use crate::vault::diff::LineKind;

    const NOTE: &str = "intro\n\nalpha one\nbeta two\ngamma three\ndelta four\n\nend\n";

    fn paragraph() -> EditTarget {
        let at = NOTE.find("beta").unwrap();
        locate("N.md", NOTE, at, at, "x").unwrap()
    }

    #[test]
    fn an_answer_loses_its_wrapping_and_keeps_the_passage_ending() {
        let t = paragraph();
        assert_eq!(replacement(&t, "A\nB"), "A\nB\n");
        assert_eq!(replacement(&t, "```markdown\nA\nB\n```\n"), "A\nB\n");
        assert_eq!(replacement(&t, "<passage>\nA\n</passage>"), "A\n");
    }

    #[test]
    fn final_hunks_are_one_per_changed_run_in_note_lines() {
        let t = paragraph();
        let hunks = proposal_hunks(&t, "ALPHA one\nbeta two\ngamma three\nDELTA four", false);
        assert_eq!(hunks.len(), 2);
        assert_eq!((hunks[0].old_start, hunks[0].old_lines, hunks[1].old_start), (3, 1, 6));
        assert!(hunks.iter().all(|h| h.lines.iter().all(|l| l.kind != LineKind::Context)));
    }

    #[test]
    fn a_streaming_answer_does_not_remove_what_it_has_not_reached() {
        let t = paragraph();
        // Half the paragraph written, the first line changed.
        let hunks = proposal_hunks(&t, "ALPHA one\nbeta two\n", true);
        assert_eq!(hunks.len(), 1);
        assert_eq!(hunks[0].old_start, 3);
        // A line being written replaces the line it is at, not every line after it.
        let hunks = proposal_hunks(&t, "ALPHA one\nbeta two\nGam", true);
        assert_eq!(hunks.len(), 2);
        assert_eq!((hunks[1].old_start, hunks[1].old_lines, hunks[1].new_lines), (5, 1, 1));
    }
}
