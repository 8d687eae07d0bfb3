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
    runs: VecDeque<(String, ApiRun)>,
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

    pub(super) fn get(&self, id: &str) -> Option<ApiRun> {
        self.runs.iter().find(|(i, _)| i == id).map(|(_, run)| run.clone())
    }

    pub(super) fn unfinished(&self) -> usize {
        self.runs.iter().filter(|(_, run)| run.peek().is_none()).count()
    }

    pub(super) fn add(&mut self, id: String, run: ApiRun) {
        self.runs.push_back((id, run));
        // Keep the newest KEEP_RESULTS finished ones; unfinished ones are bounded by
        // MAX_MESSAGES_IN_FLIGHT (removing finished ones leaves their number as it is).
        let unfinished = self.unfinished();
        while self.runs.len() - unfinished > KEEP_RESULTS {
            match self.runs.iter().position(|(_, run)| run.peek().is_some()) {
                Some(oldest) => self.runs.remove(oldest),
                None => break,
            };
        }
    }
}
