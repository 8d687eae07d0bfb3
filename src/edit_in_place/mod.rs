//! Edit in place (issue 36): the user selects a passage in the editor and says what to do; the
//! agent's answer is the passage's new text, shown in the note hunk by hunk as it streams, then
//! proposed through the review-first engine (an approval with per-hunk answers, applied onto the
//! note as it is then, recorded for Undo). The message is queued and recorded like any other.

mod answer;
mod target;

pub(crate) use answer::{proposal_hunks, replacement};
pub(crate) use target::{find_lines, locate, utf16_to_byte};
pub use target::{EditError, EditScope, EditTarget};

/// The message the agent is sent: the passage, its place, and what to do, with the answer's form.
pub(crate) fn prompt(target: &EditTarget) -> String {
    let lines = lines_words(target);
    format!(
        "Edit in place — {path}, {lines}: {instruction}\n\n<passage>\n{passage}\n</passage>\n\nReply with only the new text of the passage, exactly as it should stand in the note: no preface, no explanation, no code fence around it, and no tool calls. It replaces the passage; text you leave out is removed.",
        path = target.path,
        instruction = target.instruction,
        passage = target.passage().trim_end_matches(['\n', '\r']),
    )
}

/// What the user is told about the passage taken: the selection, or the paragraph or line at the
/// cursor when nothing was selected.
pub(crate) fn said(target: &EditTarget) -> String {
    let lines = lines_words(target);
    match target.scope {
        EditScope::Selection => format!("Editing the selection ({lines})."),
        EditScope::Paragraph => format!("No selection: editing the paragraph at the cursor ({lines})."),
        EditScope::Line => format!("No selection: editing the line at the cursor ({lines})."),
    }
}

/// "line 4" or "lines 4–6": where the passage is.
fn lines_words(target: &EditTarget) -> String {
    if target.start_line == target.end_line() {
        format!("line {}", target.start_line)
    } else {
        format!("lines {}–{}", target.start_line, target.end_line())
    }
}
