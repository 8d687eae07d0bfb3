//! What the agent API answered lately, kept for polling: its messages and the verifications
//! decided at once, both bounded. Part of the pipeline's state (`state/mod.rs`), used by the
//! API's endpoints (`processor/api.rs`).

use std::cell::RefCell;
use std::collections::VecDeque;

use futures::future::{LocalBoxFuture, Shared};

use crate::api::KEEP_RESULTS;
use crate::approval::ApprovalRequest;
use crate::message::ProcessResult;

/// A message an external agent sent: its processing, shared by everyone who waits on it.
pub(crate) type ApiRun = Shared<LocalBoxFuture<'static, ProcessResult>>;

/// What the agent API answered lately: its messages (newest last) and the verifications decided
/// at once; both bounded, for polling.
#[derive(Default)]
pub(crate) struct ApiRecent {
    /// Each message with the context whose own port it was sent on (`None`: the main port).
    runs: RefCell<VecDeque<(String, ApiRun, Option<String>)>>,
    decided: RefCell<VecDeque<ApprovalRequest>>,
}

impl ApiRecent {
    /// Keeps a verification decided at once (nobody was asked), for its polls.
    pub(crate) fn remember_decided(&self, request: ApprovalRequest) {
        let mut decided = self.decided.borrow_mut();
        decided.push_back(request);
        if decided.len() > KEEP_RESULTS {
            decided.pop_front();
        }
    }

    /// A verification decided at once, by id.
    pub(crate) fn decided(&self, id: &str) -> Option<ApprovalRequest> {
        self.decided.borrow().iter().find(|r| r.id == id).cloned()
    }

    /// A message by id, as `viewer` sees it: the main port (`None`) sees every message, a
    /// context's own port only those sent on it.
    pub(crate) fn get(&self, id: &str, viewer: Option<&str>) -> Option<ApiRun> {
        self.runs
            .borrow()
            .iter()
            .find(|(i, _, owner)| i == id && viewer.is_none_or(|v| owner.as_deref() == Some(v)))
            .map(|(_, run, _)| run.clone())
    }

    /// Messages still queued or running.
    pub(crate) fn unfinished(&self) -> usize {
        self.runs.borrow().iter().filter(|(_, run, _)| run.peek().is_none()).count()
    }

    /// A message sent on `owner`'s own port (`None`: the main port), kept for its polls.
    pub(crate) fn add(&self, id: String, run: ApiRun, owner: Option<String>) {
        let mut runs = self.runs.borrow_mut();
        runs.push_back((id, run, owner));
        // Keep the newest KEEP_RESULTS finished ones; unfinished ones are bounded by
        // MAX_MESSAGES_IN_FLIGHT (removing finished ones leaves their number as it is).
        let unfinished = runs.iter().filter(|(_, run, _)| run.peek().is_none()).count();
        while runs.len() - unfinished > KEEP_RESULTS {
            match runs.iter().position(|(_, run, _)| run.peek().is_some()) {
                Some(oldest) => runs.remove(oldest),
                None => break,
            };
        }
    }
}
