//! An edit in place's answer proposed as a change to its note, as `edit_file` proposes one: the
//! passage's lines found in the note as it is now (where the user's typing moved them), replaced
//! by the answer, the hunks one per run of changed lines, then the review-first engine — the
//! user's answer per hunk in the editor, the accepted ones applied onto the note as it is then,
//! recorded for Undo.

use serde_json::json;

use super::call::{ToolContext, ToolOutput};
use super::note_paths::{existing_file, Step};
use super::review::{exact_note, review_and_apply, size_words};
use crate::edit_in_place::{find_lines, replacement, EditTarget};
use crate::host::Host;
use crate::vault::diff::{content_hash, diff_with_context, ChangeKind, ProposedChange};
use crate::vault::real::Access;

/// The tool call id an edit in place's change is shown under (its approval and its card).
pub(crate) const EDIT_IN_PLACE: &str = "edit-in-place";

/// Proposes `answer` as the new text of `target`'s passage; what the turn's answer adds (what was
/// applied, or why nothing was).
pub(crate) async fn propose<H: Host>(ctx: &ToolContext<'_, H>, target: &EditTarget, answer: &str) -> ToolOutput {
    match propose_step(ctx, target, answer).await {
        Ok(out) | Err(out) => out,
    }
}

async fn propose_step<H: Host>(ctx: &ToolContext<'_, H>, target: &EditTarget, answer: &str) -> Step<ToolOutput> {
    if answer.trim().is_empty() {
        return Err(ToolOutput::error(format!("The agent gave no new text, so {} was not changed.", target.path)));
    }
    let file = existing_file(ctx, &target.path, Access::Write).await?;
    let base = exact_note(ctx, &file.path).await?;
    let Some(at) = find_lines(&base, &target.lines, target.start_line) else {
        return Err(ToolOutput::error(format!(
            "The passage changed while the agent wrote, so {} was not changed. Select it again and ask anew.",
            file.path
        )));
    };
    let new = format!(
        "{}{}{}",
        &base[..at],
        target.with_passage(&replacement(target, answer)),
        &base[at + target.lines.len()..]
    );
    let change = ProposedChange {
        kind: ChangeKind::Edit,
        path: file.path.clone(),
        to: None,
        base_hash: content_hash(&base),
        hunks: diff_with_context(&base, &new, 0),
    };
    if change.hunks.is_empty() {
        return Ok(ToolOutput::ok(format!("The agent's text is the passage as it is: {} was not changed.", file.path)));
    }
    let summary = format!("Edit {} in place ({})", file.path, size_words(&change));
    let details = json!({"path": file.path, "instruction": target.instruction});
    Ok(ToolOutput::ok(match review_and_apply(ctx, "edit_in_place", summary, details, base, change).await? {
        None => format!("Applied to {}.", file.path),
        Some(partial) => format!("Applied to {} in part: {}.", file.path, partial.applied),
    }))
}
