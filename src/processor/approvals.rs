//! Approvals in the pipeline: a tool waits on the user's answer (card in the chat view, a notice,
//! a hub notification when the message came from the hub), the answer or the 5-minute expiry
//! comes back as the tool's outcome, and every request is persisted so a restart settles it as
//! expired rather than approving anything.

use futures::future::{select, Either};
use futures::FutureExt;

use super::handle::MessageProcessor;
use super::hub::message_time;
use crate::approval::{
    ApprovalAsk, ApprovalBook, ApprovalError, ApprovalOrigin, ApprovalOutcome, ApprovalRequest, ApprovalStatus,
    Decision, SettleReason, APPROVALS_DIR, APPROVAL_TIMEOUT_MS,
};
use crate::event::Event;
use crate::host::Host;
use crate::host_types::LogLevel;
use crate::hub::Priority;
use crate::ids::new_id;
use crate::message::RoutedMessage;

/// Settled requests older than this are deleted by the periodic cleanup.
const KEEP_SETTLED_MS: u64 = 7 * 24 * 60 * 60_000;

/// Settles a request as rejected if the turn waiting on it is dropped (Stop, unload).
struct WaitGuard<'a, H: Host + 'static> {
    processor: &'a MessageProcessor<H>,
    id: Option<String>,
}

impl<H: Host + 'static> Drop for WaitGuard<'_, H> {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else { return };
        let now = self.processor.inner.host.now_ms();
        if let Ok(request) = self.processor.inner.approvals.settle(&id, SettleReason::Stopped, None, now) {
            self.processor.spawn(|this| async move { this.settled(&request).await });
        }
    }
}

impl<H: Host + 'static> MessageProcessor<H> {
    /// Reads the requests a previous session left: a tool's pending request expires (the turn
    /// that waited on it is gone), and so does any request past its time.
    pub(super) async fn restore_approvals(&self) {
        let host = &self.inner.host;
        let names = match host.list_dir(APPROVALS_DIR).await {
            Ok(names) => names,
            Err(e) => {
                host.log(LogLevel::Error, &format!("could not list {APPROVALS_DIR}/: {e}"));
                return;
            }
        };
        let mut requests = Vec::new();
        for name in names.iter().filter(|n| n.ends_with(".json")) {
            let path = format!("{APPROVALS_DIR}/{name}");
            match crate::bounded::read_within(host, &path, crate::bounded::MAX_RECORD_BYTES).await {
                Ok(Some(text)) => match serde_json::from_str::<ApprovalRequest>(&text) {
                    Ok(request) => requests.push(request),
                    Err(e) => host.log(LogLevel::Warn, &format!("ignoring unreadable approval {path}: {e}")),
                },
                Ok(None) => {}
                Err(e) => host.log(LogLevel::Warn, &format!("could not read {path}: {e}")),
            }
        }
        for request in self.inner.approvals.restore(requests, host.now_ms()) {
            self.settled(&request).await;
        }
    }

    /// Waits for the user's answer to a tool's request. Never approves on its own: no answer is
    /// `Expired`, a failure to show the request is `Rejected`.
    pub(super) async fn ask_approval(&self, message: &RoutedMessage, ask: ApprovalAsk) -> ApprovalOutcome {
        let host = &self.inner.host;
        let conversation_id = self.conversation_for_approval().await;
        if let Some(conversation) = &conversation_id {
            if self.inner.approvals.granted(conversation, &ask.action, host.now_ms()) {
                return ApprovalOutcome::Approved(None);
            }
        }
        let now = host.now_ms();
        let (id, expires) = (new_id(host, "apr-"), now + APPROVAL_TIMEOUT_MS);
        let request = ApprovalRequest {
            details: Some(ask.details),
            conversation_id,
            message_id: Some(message.id.clone()),
            change: ask.change.map(Box::new),
            tool_use_id: ask.tool_use_id,
            whole_only: ask.whole_only.is_some(),
            reason: ask.whole_only,
            ..ApprovalRequest::pending(id, ApprovalOrigin::Tool, ask.action, ask.summary, now, expires)
        };
        if let Err(e) = self.persist_approval(&request).await {
            // Not persisted means a restart forgets it — which approves nothing, so go on asking.
            host.log(LogLevel::Warn, &format!("could not save approval request {}: {e}", request.id));
        }
        self.inner.approvals.insert(request.clone());
        let answer = self.inner.approvals.subscribe(&request.id);
        let mut guard = WaitGuard { processor: self, id: Some(request.id.clone()) };
        host.emit(&Event::ApprovalRequested { request: Box::new(request.clone()) });
        if message.from_hub() {
            let body = format!("Approval needed: {}. Open Obsidian to approve or reject.", request.summary);
            self.notify_hub(
                &self.settings(),
                &message.id,
                &message.text,
                &body,
                Priority::High,
                message_time(host, message),
            );
        }
        let status = match select(answer, host.sleep(APPROVAL_TIMEOUT_MS).boxed_local()).await {
            Either::Left((Ok(status), _)) => status,
            Either::Left((Err(_), _)) => ApprovalStatus::Rejected,
            Either::Right(_) => {
                let expired = self.inner.approvals.settle(&request.id, SettleReason::Timeout, None, host.now_ms());
                match expired {
                    Ok(expired) => self.settled(&expired).await,
                    Err(e) => host.log(LogLevel::Warn, &format!("approval {} at its expiry: {e}", request.id)),
                }
                self.inner.approvals.get(&request.id, host.now_ms()).map_or(ApprovalStatus::Expired, |(r, _)| r.status)
            }
        };
        guard.id = None;
        match status {
            ApprovalStatus::Approved => ApprovalOutcome::Approved(self.inner.approvals.accepted_hunks(&request.id)),
            ApprovalStatus::Expired | ApprovalStatus::Pending => ApprovalOutcome::Expired,
            ApprovalStatus::Rejected => ApprovalOutcome::Rejected,
        }
    }

    /// The user's answer to an approval request (the chat view's card, or the agent API).
    pub async fn decide_approval(&self, id: &str, decision: Decision) -> Result<ApprovalRequest, ApprovalError> {
        self.decide_approval_hunks(id, decision, None).await
    }

    /// An approval of a proposed change that accepts only some of its hunks (by number, from 1);
    /// `None` accepts all, as [`Self::decide_approval`] does. Hunks are ignored on a rejection.
    pub async fn decide_approval_hunks(
        &self,
        id: &str,
        decision: Decision,
        hunks: Option<Vec<usize>>,
    ) -> Result<ApprovalRequest, ApprovalError> {
        let now = self.inner.host.now_ms();
        match self.inner.approvals.get(id, now) {
            None => return Err(ApprovalError::Unknown(id.to_owned())),
            Some((request, true)) => {
                // Its time ran out before the answer arrived.
                self.settled(&request).await;
                return Err(ApprovalError::AlreadyDecided { id: id.to_owned(), status: request.status });
            }
            Some(_) => {}
        }
        if let (Some(hunks), false) = (hunks, decision == Decision::Reject) {
            self.inner.approvals.accept_hunks(id, hunks)?;
        }
        let (reason, scope) = ApprovalBook::outcome(decision);
        let request = self.inner.approvals.settle(id, reason, scope, now)?;
        self.settled(&request).await;
        Ok(request)
    }

    /// Approval requests waiting for an answer, oldest first (the chat view shows their cards).
    pub fn pending_approvals(&self) -> Vec<ApprovalRequest> {
        self.inner.approvals.pending()
    }

    /// Deletes the files of requests settled more than a week ago.
    pub(super) async fn prune_approvals(&self) {
        let host = &self.inner.host;
        let cutoff = host.now_ms().saturating_sub(KEEP_SETTLED_MS);
        for request in self.inner.approvals.settled_before(cutoff) {
            if let Err(e) = host.remove_file(&request.path()).await {
                host.log(LogLevel::Warn, &format!("could not delete {}: {e}", request.path()));
            }
        }
    }

    /// A request's new status: shown, then saved. Shown first: the turn that waited on it goes on
    /// as soon as it is settled in the book, so a view told only after the write (an HTTP round
    /// trip on the page, slow under load) could draw the tool's end before its outcome.
    pub(super) async fn settled(&self, request: &ApprovalRequest) {
        self.inner.host.emit(&Event::ApprovalResolved { request: Box::new(request.clone()) });
        if let Err(e) = self.persist_approval(request).await {
            self.inner.host.log(LogLevel::Warn, &format!("could not save approval {}: {e}", request.id));
        }
    }

    pub(super) async fn persist_approval(&self, request: &ApprovalRequest) -> Result<(), String> {
        let text = serde_json::to_string(request).map_err(|e| e.to_string())?;
        self.inner.host.write_file_atomic(&request.path(), &text).await.map_err(|e| e.to_string())
    }

    /// The conversation an approval belongs to ("approve for this conversation" is kept for it):
    /// the current one, opened now if this is its first message.
    async fn conversation_for_approval(&self) -> Option<String> {
        let host = &self.inner.host;
        let mut guard = self.inner.store.lock().await;
        let store = guard.as_mut()?;
        match store.current_or_open(host).await {
            Ok(id) => Some(id),
            Err(e) => {
                host.log(LogLevel::Warn, &format!("no conversation for an approval: {e}"));
                None
            }
        }
    }
}
