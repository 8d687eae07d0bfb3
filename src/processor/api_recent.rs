//! What the agent API answered lately, kept for polling: its messages and the verifications
//! decided at once, both bounded. Part of the pipeline's state (`pipeline.rs`), used by the API's
//! endpoints (`api.rs`).

use std::collections::VecDeque;

use futures::future::{LocalBoxFuture, Shared};

use crate::api::KEEP_RESULTS;
use crate::approval::ApprovalRequest;
use crate::message::ProcessResult;

/// A message an external agent sent: its processing, shared by everyone who waits on it.
pub(super) type ApiRun = Shared<LocalBoxFuture<'static, ProcessResult>>;

/// What the agent API answered lately: its messages (newest last) and the verifications decided
/// at once; both bounded, for polling.
#[derive(Default)]
pub(super) struct ApiRecent {
    /// Each message with the context whose own port it was sent on (`None`: the main port).
    runs: VecDeque<(String, ApiRun, Option<String>)>,
    decided: VecDeque<ApprovalRequest>,
}

impl ApiRecent {
    pub(super) fn remember_decided(&mut self, request: ApprovalRequest) {
        self.decided.push_back(request);
        if self.decided.len() > KEEP_RESULTS {
            self.decided.pop_front();
        }
    }

    pub(super) fn decided(&self, id: &str) -> Option<ApprovalRequest> {
        self.decided.iter().find(|r| r.id == id).cloned()
    }

    /// A message by id, as `viewer` sees it: the main port (`None`) sees every message, a
    /// context's own port only those sent on it.
    pub(super) fn get(&self, id: &str, viewer: Option<&str>) -> Option<ApiRun> {
        self.runs
            .iter()
            .find(|(i, _, owner)| i == id && viewer.is_none_or(|v| owner.as_deref() == Some(v)))
            .map(|(_, run, _)| run.clone())
    }

    pub(super) fn unfinished(&self) -> usize {
        self.runs.iter().filter(|(_, run, _)| run.peek().is_none()).count()
    }

    pub(super) fn add(&mut self, id: String, run: ApiRun, owner: Option<String>) {
        self.runs.push_back((id, run, owner));
        // Keep the newest KEEP_RESULTS finished ones; unfinished ones are bounded by
        // MAX_MESSAGES_IN_FLIGHT (removing finished ones leaves their number as it is).
        let unfinished = self.unfinished();
        while self.runs.len() - unfinished > KEEP_RESULTS {
            match self.runs.iter().position(|(_, run, _)| run.peek().is_some()) {
                Some(oldest) => self.runs.remove(oldest),
                None => break,
            };
        }
    }
}
