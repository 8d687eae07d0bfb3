//! The scripted model server at work: answers queued, kept for matching requests or standing,
//! each request recorded and answered by the next fitting reply, and the body the core reads
//! (chunk by chunk, delayed, cut, or hanging).

use std::collections::VecDeque;

use serde_json::Value;

use super::replies::{BodyEnd, RecordedRequest, Reply};
use super::state::FakeHost;
use crate::host::Host;
use crate::host_types::{HostError, HttpBody, HttpRequest, Millis};

/// A scripted response body.
pub struct FakeBody {
    pub(super) host: FakeHost,
    pub(super) chunks: VecDeque<Vec<u8>>,
    pub(super) delay_ms: Millis,
    pub(super) end: BodyEnd,
}

impl HttpBody for FakeBody {
    async fn chunk(&mut self) -> Result<Option<Vec<u8>>, HostError> {
        self.host.alive().await;
        if self.end == BodyEnd::RepeatLast && self.chunks.len() == 1 {
            return Ok(self.chunks.front().cloned());
        }
        match self.chunks.pop_front() {
            Some(chunk) => {
                if self.delay_ms > 0 {
                    self.host.sleep(self.delay_ms).await;
                }
                Ok(Some(chunk))
            }
            None => match self.end {
                BodyEnd::Close => Ok(None),
                BodyEnd::Reset => Err(HostError::Network("connection reset by peer".into())),
                BodyEnd::Hang | BodyEnd::RepeatLast => std::future::pending().await,
            },
        }
    }
}

impl FakeHost {
    /// Queues scripted HTTP answers, used in order.
    pub fn script(&self, replies: impl IntoIterator<Item = Reply>) {
        self.state.script.borrow_mut().extend(replies);
    }

    /// A reply for the next request whose body contains `needle` (a summary call, a
    /// retrospection), taken before the queue so background calls never steal queued replies.
    pub fn script_matching(&self, needle: &str, reply: Reply) {
        self.state.matching.borrow_mut().push((needle.to_owned(), reply));
    }

    /// Answers every request whose body contains `needle` but not `unless` with `reply`, as
    /// often as it comes: a model that asks for a tool until it sees that tool's result, so a
    /// turn that forgot a tool already ran would run it again (and a test would see it).
    pub fn script_until(&self, needle: &str, unless: &str, reply: Reply) {
        self.state.until.borrow_mut().push((needle.to_owned(), unless.to_owned(), reply));
    }

    /// Scripted answers not used yet.
    pub fn script_left(&self) -> usize {
        self.state.script.borrow().len()
    }

    /// Requests received so far.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.state.requests.borrow().clone()
    }

    /// Requests whose body contains `needle`.
    pub fn requests_matching(&self, needle: &str) -> Vec<RecordedRequest> {
        self.requests().into_iter().filter(|r| r.body.to_string().contains(needle)).collect()
    }

    pub(super) fn next_reply(&self, request: &HttpRequest) -> Reply {
        let body = serde_json::from_str(&request.body).unwrap_or(Value::Null);
        self.state.requests.borrow_mut().push(RecordedRequest {
            at_ms: self.now(),
            url: request.url.clone(),
            headers: request.headers.clone(),
            body,
        });
        let until = self.state.until.borrow();
        let standing =
            until.iter().find(|(needle, unless, _)| request.body.contains(needle) && !request.body.contains(unless));
        if let Some((_, _, reply)) = standing {
            return reply.clone();
        }
        drop(until);
        let mut matching = self.state.matching.borrow_mut();
        if let Some(i) = matching.iter().position(|(needle, _)| request.body.contains(needle.as_str())) {
            return matching.remove(i).1;
        }
        drop(matching);
        self.state.script.borrow_mut().pop_front().unwrap_or_else(|| Reply::text("(no scripted reply left)"))
    }
}
