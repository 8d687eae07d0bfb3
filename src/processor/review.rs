//! A turn looked at again: what it asked and changed (`turn_review`, for the chat view redrawing
//! a reopened conversation's cards), undoing its changes to the notes, and finding the newest
//! turn with a change still standing (the headless `/undo`).

use serde::Serialize;

use super::handle::MessageProcessor;
use crate::approval::ApprovalRequest;
use crate::event::Event;
use crate::host::Host;
use crate::undo::{applied_changes, undo_turn, AppliedChange};
use crate::vault::diff::UndoReport;

/// How many of the newest turns `/undo` looks through for changes still standing.
const UNDO_LOOKBACK_TURNS: usize = 100;

/// What a turn asked and changed (`turnReview()`): the chat view redraws its cards from it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TurnReview {
    /// Its approval requests, oldest first (settled ones are kept a week).
    pub approvals: Vec<ApprovalRequest>,
    /// The changes it applied, oldest first, and whether each was undone since.
    pub changes: Vec<AppliedChange>,
}

impl<H: Host + 'static> MessageProcessor<H> {
    /// What a turn asked and changed, for the chat view redrawing a reopened conversation: its
    /// approval requests (settled ones for a week) and the changes it applied, undone or not.
    pub async fn turn_review(&self, message_id: &str) -> TurnReview {
        TurnReview {
            approvals: self.inner.approvals.of_message(message_id),
            changes: applied_changes(&self.inner.host, message_id).await,
        }
    }

    /// Reverses every change to the notes a message's turn made (newest first), each note only
    /// when it is as the turn left it; says which were restored and which refused, and why.
    pub async fn undo_turn(&self, message_id: &str) -> UndoReport {
        let host = &self.inner.host;
        let report = undo_turn(host, message_id, &self.settings()).await;
        host.emit(&Event::TurnUndone { report: Box::new(report.clone()) });
        report
    }

    /// The newest turn of the current conversation with a change to the notes not undone yet,
    /// among its last `UNDO_LOOKBACK_TURNS` (100): what the headless `/undo` reverts, also after a
    /// restart.
    pub async fn last_undoable_turn(&self) -> Option<String> {
        let current = self.current_conversation().await?;
        let lines = self.conversation_lines(&current.id).await.ok()?;
        let host = &self.inner.host;
        let mut seen: Vec<&str> = Vec::new();
        for line in lines.iter().rev() {
            if seen.contains(&line.message_id.as_str()) {
                continue;
            }
            if seen.len() == UNDO_LOOKBACK_TURNS {
                break;
            }
            seen.push(&line.message_id);
            if applied_changes(host, &line.message_id).await.iter().any(|c| !c.undone) {
                return Some(line.message_id.clone());
            }
        }
        None
    }
}
