//! Approvals: what the agent may not do without the user's yes (overwrite, delete, move a note),
//! and — through the agent API — what external agents ask the user to verify. A request has a
//! random id, is persisted in `.smarthole/approvals/`, and is `pending` until the user approves
//! or rejects it, or it expires (as rejected) after 5 minutes. A restart never approves anything:
//! a tool's pending request expires with the turn that waited on it.
//!
//! `request.rs` holds the request and the words around it (status, origin, scope, settle
//! reason, decision; a constructor of a pending one), `book.rs` the requests in memory with
//! their waiters and grants.

mod book;
mod request;

pub(crate) use book::ApprovalBook;
pub(crate) use request::{ApprovalAsk, ApprovalOutcome, APPROVALS_DIR};
pub use request::{
    ApprovalError, ApprovalOrigin, ApprovalRequest, ApprovalScope, ApprovalStatus, Decision, SettleReason,
    APPROVAL_TIMEOUT_MS, SESSION_GRANT_MS,
};
