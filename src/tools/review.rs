//! Review-first changes (issue 15) as the note tools make them: the user's yes (all hunks or
//! some) unless the tool is auto-approved, the accepted hunks applied atomically against the
//! content the diff was made from only, and every applied change recorded for undo and shown to
//! the UI. Apart from `notes.rs`, which decides what each tool proposes.

use std::cell::RefCell;
use std::rc::Rc;

use serde_json::Value;

use super::call::{ToolContext, ToolOutput};
use super::note_paths::Step;
use crate::approval::{ApprovalAsk, ApprovalOutcome};
use crate::event::Event;
use crate::host::Host;
use crate::host_types::LogLevel;
use crate::undo::{self, UndoRecord};
use crate::vault::diff::{applied_words, apply_hunks_onto, content_hash, diff, ChangeKind, LineKind, ProposedChange};
use crate::vault::line_edits::exact_text;

/// The text a change to a note is made from, once its bytes show that it is exact: valid UTF-8
/// (a host's text of other bytes is a lossy decoding) that the host's text is, but for a byte
/// order mark a host may leave out of the text it edits. Else the refusal the model reads.
pub(super) async fn exact_note<H: Host>(ctx: &ToolContext<'_, H>, path: &str) -> Step<String> {
    let text = ctx.host.vault_read(path).await.map_err(io("read the note"))?;
    let bytes = ctx.host.vault_read_bytes(path).await.map_err(io("read the note"))?;
    let exact = exact_text(bytes, path).map_err(|e| {
        ToolOutput::error(format!("{e}. Nothing was changed; the user can save the note as UTF-8 first."))
    })?;
    if exact != text && exact.strip_prefix('\u{feff}') != Some(text.as_str()) {
        return Err(ToolOutput::error(format!(
            "{path} changed while it was read. Nothing was changed; read it again."
        )));
    }
    Ok(text)
}

/// Waits for the user's yes unless the tool is auto-approved or approved for the conversation;
/// gives the hunks of `change` accepted (all of them unless the user chose some).
pub(super) async fn approved<H: Host>(
    ctx: &ToolContext<'_, H>,
    action: &str,
    summary: String,
    details: Value,
    change: Option<&ProposedChange>,
) -> Step<Vec<usize>> {
    let all: Vec<usize> = change.map_or(Vec::new(), |c| c.hunks.iter().map(|h| h.number).collect());
    if ctx.settings.auto_approve_tools.iter().any(|t| t == action) {
        return Ok(all);
    }
    let ask = ApprovalAsk {
        action: action.to_owned(),
        summary: summary.clone(),
        details,
        change: change.cloned(),
        tool_use_id: Some(ctx.tool_use_id.to_owned()).filter(|id| !id.is_empty()),
        whole_only: None,
    };
    match (ctx.services.approve)(ask).await {
        ApprovalOutcome::Approved(hunks) => Ok(hunks.unwrap_or(all)),
        ApprovalOutcome::Rejected => Err(ToolOutput::error(format!(
            "The user rejected this: {summary}. Nothing was changed; do not try again unless they ask."
        ))),
        ApprovalOutcome::Expired => Err(ToolOutput::error(format!(
            "No answer from the user within 5 minutes, so this was not done: {summary}. Nothing was changed."
        ))),
    }
}

/// The change from `base` to `new` of a note, as proposed.
pub(super) fn proposal(kind: ChangeKind, path: &str, base: &str, new: &str) -> ProposedChange {
    ProposedChange { kind, path: path.to_owned(), to: None, base_hash: content_hash(base), hunks: diff(base, new) }
}

/// [`proposal`], with the diff's time in a debug log line (what bench/diff.mjs reads).
pub(super) fn timed_proposal<H: Host>(
    ctx: &ToolContext<'_, H>,
    kind: ChangeKind,
    path: &str,
    base: &str,
    new: &str,
) -> ProposedChange {
    let start = ctx.host.now_ms();
    let change = proposal(kind, path, base, new);
    let ms = ctx.host.now_ms().saturating_sub(start);
    ctx.host.log(
        LogLevel::Debug,
        &format!("diff of {path} ({} bytes): {} hunks in {ms} ms", base.len(), change.hunks.len()),
    );
    change
}

/// "+3 −1 lines in 2 hunks": a change's size, for the card's summary.
pub(super) fn size_words(change: &ProposedChange) -> String {
    let count = |kind| change.hunks.iter().flat_map(|h| &h.lines).filter(|l| l.kind == kind).count();
    let n = change.hunks.len();
    format!(
        "+{} −{} lines in {n} hunk{}",
        count(LineKind::Added),
        count(LineKind::Removed),
        if n == 1 { "" } else { "s" }
    )
}

/// Asks for an edit or overwrite and applies the accepted hunks atomically, against the content
/// the diff was made from (or that content with the user's edits elsewhere since); records its
/// undo and tells the UI. Gives `None` when every hunk was applied, else what was.
pub(super) async fn review_and_apply<H: Host>(
    ctx: &ToolContext<'_, H>,
    action: &str,
    summary: String,
    details: Value,
    base: String,
    change: ProposedChange,
) -> Step<Option<Partial>> {
    let accepted = approved(ctx, action, summary, details, Some(&change)).await?;
    let applied = applied_words(change.hunks.len(), &accepted);
    if accepted.is_empty() {
        return Err(ToolOutput::error(format!(
            "The user accepted none of the change to {}: {applied}. Nothing was changed.",
            change.path
        )));
    }
    let outcome = Rc::new(RefCell::new(Applied::Unchanged));
    let seen = Rc::clone(&outcome);
    let (hunks, picked) = (change.hunks.clone(), accepted.clone());
    ctx.host
        .vault_process(
            &change.path,
            Box::new(move |text| {
                // Onto the content the diff was made from, or onto the note with the user's own
                // edits since, when no accepted hunk covers a line they changed.
                let Some(new) = apply_hunks_onto(&base, text, &hunks, &picked) else {
                    *seen.borrow_mut() = Applied::Conflict;
                    return None;
                };
                *seen.borrow_mut() =
                    Applied::Done { before: text.to_owned(), after_hash: content_hash(&new), after: new.clone() };
                Some(new)
            }),
        )
        .await
        .map_err(io("change the note"))?;
    let outcome = outcome.borrow_mut().clone();
    match outcome {
        Applied::Conflict => Err(ToolOutput::error(format!(
            "{} changed after this change was proposed, so nothing was written (conflict). Read it again and propose the change anew.",
            change.path
        ))),
        Applied::Unchanged => Err(ToolOutput::error(format!("{} was not changed.", change.path))),
        Applied::Done { before, after_hash, after } => {
            let partial = (accepted.len() < change.hunks.len()).then_some(Partial { applied, after });
            record_applied(ctx, change, accepted, Some(before), Some(after_hash)).await;
            Ok(partial)
        }
    }
}

/// Longest note content the model is given back after a partial apply (past it, it reads again).
const SHOW_AFTER_PARTIAL_CHARS: usize = 4000;

/// A change applied in part: which hunks ("hunks 1 and 3 applied, 2 rejected"), and the note now.
pub(super) struct Partial {
    pub(super) applied: String,
    after: String,
}

impl Partial {
    /// What the model is told: which hunks, and what the note holds now (it cannot guess which of
    /// its changes stand).
    pub(super) fn for_model(&self) -> String {
        let applied = &self.applied;
        if self.after.len() <= SHOW_AFTER_PARTIAL_CHARS {
            format!("{applied}. The note now reads:\n{}", self.after)
        } else {
            format!("{applied}. Read it again to see what it holds now.")
        }
    }
}

/// What the atomic apply found.
#[derive(Clone)]
enum Applied {
    Unchanged,
    Conflict,
    Done { before: String, after_hash: String, after: String },
}

/// An applied change: recorded with what reverses it (in the turn's undo journal) and shown to
/// the UI (the diff and the hunks, at the tool call's chip, with Undo).
pub(super) async fn record_applied<H: Host>(
    ctx: &ToolContext<'_, H>,
    change: ProposedChange,
    applied_hunks: Vec<usize>,
    before: Option<String>,
    after_hash: Option<String>,
) {
    let record =
        UndoRecord { change, applied_hunks, before, after_hash, tool_use_id: ctx.tool_use_id.clone(), undone: false };
    undo::record(ctx.host, &ctx.services.message.id, &record).await;
    ctx.host.emit(&Event::ChangeApplied {
        message_id: ctx.services.message.id.clone(),
        conversation_id: ctx.services.message.named_conversation(),
        tool_use_id: record.tool_use_id,
        change: Box::new(record.change),
        applied_hunks: record.applied_hunks,
    });
}

pub(super) fn io<E: std::fmt::Display>(what: &str) -> impl Fn(E) -> ToolOutput + '_ {
    move |e| ToolOutput::error(format!("Could not {what}: {e}."))
}
