//! An approval request and the words around it: its status, who asked, how far an approval
//! reaches, why it settled, the user's decision, what a tool asks and how it was answered, and
//! the errors of a decision. Plain values (the book that holds them is `book.rs`).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use thiserror::Error;

use crate::host_types::Millis;
use crate::vault::diff::ProposedChange;

/// How long a request waits for an answer.
pub const APPROVAL_TIMEOUT_MS: Millis = 5 * 60_000;
/// Where requests are kept.
pub(crate) const APPROVALS_DIR: &str = "approvals";
/// How long "approve for this session" covers an external agent's action.
pub const SESSION_GRANT_MS: Millis = 30 * 60_000;

/// Where a request stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalStatus {
    Pending,
    Approved,
    Rejected,
    Expired,
}

impl ApprovalStatus {
    /// The status as the UI and the files spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            ApprovalStatus::Pending => "pending",
            ApprovalStatus::Approved => "approved",
            ApprovalStatus::Rejected => "rejected",
            ApprovalStatus::Expired => "expired",
        }
    }
}

/// Who asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalOrigin {
    /// One of the agent's own tools, waiting in a turn.
    Tool,
    /// An external agent through the agent API, polling for the answer.
    Api,
}

/// How far an approval reaches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalScope {
    /// This request only.
    Once,
    /// The same action for the rest of the conversation (tools) or session (the agent API).
    Conversation,
}

/// Why a request stopped being pending, as a tag: views turn it into their own words instead of
/// reading `note` (which stays, as the text the agent API and the files give).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SettleReason {
    /// The user approved it (once, or for the conversation or session: see `scope`).
    Approved,
    /// The user rejected it.
    Rejected,
    /// Nobody answered before it expired.
    Timeout,
    /// The message whose turn waited on it was stopped (Stop, unload).
    Stopped,
    /// The app restarted while a tool's turn waited on it.
    Restarted,
    /// An agent API action outside its context's `allowed_actions` (refused at once).
    NotAllowed,
    /// An agent API context that does not require verification (approved at once).
    NotRequired,
    /// Covered by an earlier "approve for this session" (approved at once).
    SessionGrant,
}

impl SettleReason {
    /// The status a request settled for this reason has.
    pub fn status(self) -> ApprovalStatus {
        match self {
            SettleReason::Approved | SettleReason::NotRequired | SettleReason::SessionGrant => ApprovalStatus::Approved,
            SettleReason::Rejected | SettleReason::Stopped | SettleReason::NotAllowed => ApprovalStatus::Rejected,
            SettleReason::Timeout | SettleReason::Restarted => ApprovalStatus::Expired,
        }
    }

    /// The note it leaves on the request, where it is always the same text.
    pub(crate) fn note(self) -> Option<&'static str> {
        match self {
            SettleReason::Rejected => Some("rejected by the user"),
            SettleReason::Timeout => Some("timeout"),
            SettleReason::Stopped => Some("the message was stopped before an answer"),
            SettleReason::Restarted => Some("the app restarted before an answer"),
            SettleReason::Approved
            | SettleReason::NotAllowed
            | SettleReason::NotRequired
            | SettleReason::SessionGrant => None,
        }
    }
}

/// The user's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    ApproveOnce,
    ApproveConversation,
    Reject,
}

/// One request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalRequest {
    pub id: String,
    /// What kind of action (`delete_file`, or the external agent's action).
    pub action: String,
    /// What will happen, for the card: "Delete Notes/Old.md (to the trash)".
    pub summary: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    pub origin: ApprovalOrigin,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    /// The agent API session (`api:<context>`) an "approve for this session" answer covers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    pub created_ms: Millis,
    pub expires_ms: Millis,
    pub status: ApprovalStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<ApprovalScope>,
    /// Why it ended as it did ("rejected by the user", "timeout", "the app restarted").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Why it ended, as a tag (absent while pending, and in files written before it existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settle_reason: Option<SettleReason>,
    /// The change to a note it would make, with its diff (edit, overwrite, move, delete).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change: Option<Box<ProposedChange>>,
    /// The hunks (by number) an approval accepted; absent means all of them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accepted_hunks: Option<Vec<usize>>,
    /// The tool call that asked: the chat view shows the card at its chip.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    /// The change is taken whole or not at all (an agent that writes the file itself cannot
    /// apply some hunks): the card offers approve or reject of all of it, `reason` says why, and
    /// an answer accepting only some hunks is refused.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub whole_only: bool,
}

impl ApprovalRequest {
    /// A pending request made now and expiring at `expires_ms`, with nothing else known yet: who
    /// asks fills in the rest (the details, the conversation or session, the change, the call).
    pub(crate) fn pending(
        id: String,
        origin: ApprovalOrigin,
        action: String,
        summary: String,
        created_ms: Millis,
        expires_ms: Millis,
    ) -> Self {
        ApprovalRequest {
            id,
            action,
            summary,
            reason: None,
            details: None,
            origin,
            conversation_id: None,
            message_id: None,
            session: None,
            created_ms,
            expires_ms,
            status: ApprovalStatus::Pending,
            scope: None,
            note: None,
            settle_reason: None,
            change: None,
            accepted_hunks: None,
            tool_use_id: None,
            whole_only: false,
        }
    }

    /// Path of its file.
    pub fn path(&self) -> String {
        format!("{APPROVALS_DIR}/{}.json", self.id)
    }
}

/// What a tool asks the user.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ApprovalAsk {
    /// The tool's name (also what "approve for this conversation" remembers).
    pub action: String,
    pub summary: String,
    pub details: Value,
    /// The proposed change to a note, shown as a diff whose hunks can be accepted one by one.
    pub change: Option<ProposedChange>,
    /// The tool call asking.
    pub tool_use_id: Option<String>,
    /// Why the change can only be taken whole, when it can (the card then has no per-hunk
    /// answers).
    pub whole_only: Option<String>,
}

/// How the user answered a tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ApprovalOutcome {
    /// Approved; with the hunks accepted when the user chose some (`None`: all).
    Approved(Option<Vec<usize>>),
    Rejected,
    Expired,
}

/// A decision that cannot be taken.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ApprovalError {
    #[error("there is no approval request {0}")]
    Unknown(String),
    #[error("approval request {id} is already {}", status.as_str())]
    AlreadyDecided { id: String, status: ApprovalStatus },
    #[error("approval request {id} has no hunk {hunk}")]
    UnknownHunk { id: String, hunk: usize },
    #[error("approval request {id} takes the whole change or none of it, not some of its hunks")]
    WholeOnly { id: String },
}
