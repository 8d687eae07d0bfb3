//! The approval requests in memory: the book of requests by id, the tasks waiting on an answer,
//! and the grants "approve for this conversation / session" leave. Plain state, no I/O: the
//! processor persists and shows what it returns (`processor/approvals.rs`).

use std::cell::RefCell;
use std::collections::HashMap;

use futures::channel::oneshot;

use super::request::{
    ApprovalError, ApprovalOrigin, ApprovalRequest, ApprovalScope, ApprovalStatus, Decision, SettleReason,
    SESSION_GRANT_MS,
};
use crate::host_types::Millis;

/// The requests in memory, the tasks waiting on them, and the conversation-wide grants.
#[derive(Default)]
pub(crate) struct ApprovalBook {
    requests: RefCell<HashMap<String, ApprovalRequest>>,
    waiters: RefCell<HashMap<String, Vec<oneshot::Sender<ApprovalStatus>>>>,
    /// Actions approved beyond one request.
    grants: RefCell<Vec<Grant>>,
}

/// "Approve for this conversation / session".
struct Grant {
    /// The conversation id, or the agent API session.
    scope: String,
    action: String,
    /// When an agent API session grant ends (a conversation's lasts as long as it does).
    until: Option<Millis>,
}

impl ApprovalBook {
    /// Takes requests read from disk at start-up: a tool's pending request expires (the turn
    /// waiting on it is gone); an external agent's stays pending until its time is up.
    pub(crate) fn restore(&self, mut requests: Vec<ApprovalRequest>, now: Millis) -> Vec<ApprovalRequest> {
        let mut changed = Vec::new();
        for r in &mut requests {
            if r.status == ApprovalStatus::Pending && (r.origin == ApprovalOrigin::Tool || now >= r.expires_ms) {
                let reason =
                    if r.origin == ApprovalOrigin::Tool { SettleReason::Restarted } else { SettleReason::Timeout };
                r.status = reason.status();
                r.note = reason.note().map(str::to_owned);
                r.settle_reason = Some(reason);
                changed.push(r.clone());
            }
        }
        let mut map = self.requests.borrow_mut();
        for r in requests {
            map.insert(r.id.clone(), r);
        }
        changed
    }

    /// Adds a new request.
    pub(crate) fn insert(&self, request: ApprovalRequest) {
        self.requests.borrow_mut().insert(request.id.clone(), request);
    }

    /// A request by id, with a pending one past its time settled as expired (`Some(true)` when
    /// that just happened, so the caller persists it).
    pub(crate) fn get(&self, id: &str, now: Millis) -> Option<(ApprovalRequest, bool)> {
        let request = self.requests.borrow().get(id).cloned()?;
        if request.status == ApprovalStatus::Pending && now >= request.expires_ms {
            if let Ok(expired) = self.settle(id, SettleReason::Timeout, None, now) {
                return Some((expired, true));
            }
        }
        Some((request, false))
    }

    /// Who asked for a request, without touching it.
    pub(crate) fn origin_of(&self, id: &str) -> Option<ApprovalOrigin> {
        self.requests.borrow().get(id).map(|r| r.origin)
    }

    /// The agent API session (`api:<context>`) a request belongs to, without touching it.
    pub(crate) fn session_of(&self, id: &str) -> Option<String> {
        self.requests.borrow().get(id).and_then(|r| r.session.clone())
    }

    /// Pending requests, oldest first.
    pub(crate) fn pending(&self) -> Vec<ApprovalRequest> {
        let mut out: Vec<ApprovalRequest> =
            self.requests.borrow().values().filter(|r| r.status == ApprovalStatus::Pending).cloned().collect();
        crate::lean::sort_by_key(&mut out, |r| r.created_ms);
        out
    }

    /// The requests a message's turn made, oldest first (settled ones are kept a week).
    pub(crate) fn of_message(&self, message_id: &str) -> Vec<ApprovalRequest> {
        let mut out: Vec<ApprovalRequest> =
            self.requests.borrow().values().filter(|r| r.message_id.as_deref() == Some(message_id)).cloned().collect();
        crate::lean::sort_by_key(&mut out, |r| r.created_ms);
        out
    }

    /// Takes out the settled requests created before `cutoff` (their files can go).
    pub(crate) fn settled_before(&self, cutoff: Millis) -> Vec<ApprovalRequest> {
        let mut map = self.requests.borrow_mut();
        let old: Vec<String> = map
            .values()
            .filter(|r| r.status != ApprovalStatus::Pending && r.created_ms < cutoff)
            .map(|r| r.id.clone())
            .collect();
        old.iter().filter_map(|id| map.remove(id)).collect()
    }

    /// Keeps the hunks a coming approval accepts, after checking the request has them.
    pub(crate) fn accept_hunks(&self, id: &str, hunks: Vec<usize>) -> Result<(), ApprovalError> {
        let mut map = self.requests.borrow_mut();
        let r = map.get_mut(id).ok_or_else(|| ApprovalError::Unknown(id.to_owned()))?;
        let total = r.change.as_ref().map_or(0, |c| c.hunks.len());
        if let Some(&hunk) = hunks.iter().find(|&&n| n == 0 || n > total) {
            return Err(ApprovalError::UnknownHunk { id: id.to_owned(), hunk });
        }
        if r.whole_only && (1..=total).any(|n| !hunks.contains(&n)) {
            return Err(ApprovalError::WholeOnly { id: id.to_owned() });
        }
        r.accepted_hunks = Some(hunks);
        Ok(())
    }

    /// The hunks an approved request accepted (`None`: all).
    pub(crate) fn accepted_hunks(&self, id: &str) -> Option<Vec<usize>> {
        self.requests.borrow().get(id).and_then(|r| r.accepted_hunks.clone())
    }

    /// A channel that receives the request's final status.
    pub(crate) fn subscribe(&self, id: &str) -> oneshot::Receiver<ApprovalStatus> {
        let (tx, rx) = oneshot::channel();
        self.waiters.borrow_mut().entry(id.to_owned()).or_default().push(tx);
        rx
    }

    /// Whether `action` is granted for this conversation (or agent API session) at `now`.
    pub(crate) fn granted(&self, scope_id: &str, action: &str, now: Millis) -> bool {
        self.grants
            .borrow()
            .iter()
            .any(|g| g.scope == scope_id && g.action == action && g.until.is_none_or(|until| now < until))
    }

    /// Pending requests of an agent API session.
    pub(crate) fn pending_in_session(&self, session: &str) -> usize {
        self.requests
            .borrow()
            .values()
            .filter(|r| r.status == ApprovalStatus::Pending && r.session.as_deref() == Some(session))
            .count()
    }

    /// Ends a pending request: decided by the user, expired, or given up; the reason gives its
    /// status and note. Returns it, updated.
    pub(crate) fn settle(
        &self,
        id: &str,
        reason: SettleReason,
        scope: Option<ApprovalScope>,
        now: Millis,
    ) -> Result<ApprovalRequest, ApprovalError> {
        let status = reason.status();
        let updated = {
            let mut map = self.requests.borrow_mut();
            let r = map.get_mut(id).ok_or_else(|| ApprovalError::Unknown(id.to_owned()))?;
            if r.status != ApprovalStatus::Pending {
                return Err(ApprovalError::AlreadyDecided { id: id.to_owned(), status: r.status });
            }
            r.status = status;
            r.scope = scope;
            r.note = reason.note().map(str::to_owned);
            r.settle_reason = Some(reason);
            r.clone()
        };
        // Session grants that ran out are of no use any more.
        self.grants.borrow_mut().retain(|g| g.until.is_none_or(|until| now < until));
        if scope == Some(ApprovalScope::Conversation) {
            let grant = match (&updated.session, &updated.conversation_id) {
                (Some(session), _) => Some((session.clone(), Some(now + SESSION_GRANT_MS))),
                (None, Some(conversation)) => Some((conversation.clone(), None)),
                (None, None) => None,
            };
            if let Some((scope, until)) = grant {
                self.grants.borrow_mut().push(Grant { scope, action: updated.action.clone(), until });
            }
        }
        let waiters = self.waiters.borrow_mut().remove(id).unwrap_or_default();
        for tx in waiters {
            let _ = tx.send(status);
        }
        Ok(updated)
    }

    /// The reason and scope a decision gives.
    pub(crate) fn outcome(decision: Decision) -> (SettleReason, Option<ApprovalScope>) {
        match decision {
            Decision::ApproveOnce => (SettleReason::Approved, Some(ApprovalScope::Once)),
            Decision::ApproveConversation => (SettleReason::Approved, Some(ApprovalScope::Conversation)),
            Decision::Reject => (SettleReason::Rejected, None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::approval::request::APPROVAL_TIMEOUT_MS;

    fn request(id: &str, origin: ApprovalOrigin) -> ApprovalRequest {
        let (action, summary) = ("delete_file".into(), "Delete x.md".into());
        ApprovalRequest {
            conversation_id: Some("c-1".into()),
            ..ApprovalRequest::pending(id.into(), origin, action, summary, 0, APPROVAL_TIMEOUT_MS)
        }
    }

    #[test]
    fn a_restart_expires_tool_requests_and_never_approves() {
        let book = ApprovalBook::default();
        let changed = book.restore(vec![request("t", ApprovalOrigin::Tool), request("a", ApprovalOrigin::Api)], 1_000);
        assert_eq!(changed.len(), 1);
        assert_eq!(book.get("t", 1_000).unwrap().0.status, ApprovalStatus::Expired);
        assert_eq!(book.get("a", 1_000).unwrap().0.status, ApprovalStatus::Pending);
        let (late, just) = book.get("a", APPROVAL_TIMEOUT_MS).unwrap();
        assert_eq!((late.status, just, late.note.as_deref()), (ApprovalStatus::Expired, true, Some("timeout")));
        assert_eq!(late.settle_reason, Some(SettleReason::Timeout));
        let restarted = book.get("t", 1_000).unwrap().0;
        assert_eq!(
            (restarted.note.as_deref(), restarted.settle_reason),
            (Some("the app restarted before an answer"), Some(SettleReason::Restarted))
        );
    }

    #[test]
    fn decisions_wake_waiters_once_and_grants_last_the_conversation() {
        let book = ApprovalBook::default();
        book.insert(request("r", ApprovalOrigin::Tool));
        let mut rx = book.subscribe("r");
        let (reason, scope) = ApprovalBook::outcome(Decision::ApproveConversation);
        book.settle("r", reason, scope, 0).unwrap();
        assert_eq!(rx.try_recv().unwrap(), Some(ApprovalStatus::Approved));
        assert!(book.granted("c-1", "delete_file", u64::MAX));
        assert!(!book.granted("c-2", "delete_file", 0));
        assert_eq!(
            book.settle("r", SettleReason::Rejected, None, 0),
            Err(ApprovalError::AlreadyDecided { id: "r".into(), status: ApprovalStatus::Approved })
        );
        assert_eq!(book.settle("nope", SettleReason::Rejected, None, 0), Err(ApprovalError::Unknown("nope".into())));
    }

    #[test]
    fn a_session_grant_covers_the_action_for_a_limited_time() {
        let book = ApprovalBook::default();
        let session = ApprovalRequest {
            session: Some("api:default".into()),
            conversation_id: None,
            origin: ApprovalOrigin::Api,
            action: "git_push".into(),
            ..request("s", ApprovalOrigin::Api)
        };
        book.insert(session);
        assert_eq!(book.pending_in_session("api:default"), 1);
        let (reason, scope) = ApprovalBook::outcome(Decision::ApproveConversation);
        book.settle("s", reason, scope, 1_000).unwrap();
        assert_eq!(book.pending_in_session("api:default"), 0);
        assert!(book.granted("api:default", "git_push", 1_000 + SESSION_GRANT_MS - 1));
        assert!(!book.granted("api:default", "git_push", 1_000 + SESSION_GRANT_MS));
        assert!(!book.granted("api:default", "deploy", 1_000));
        assert!(!book.granted("api:other", "git_push", 1_000));
    }
}
