//! The scripted model server at work: answers queued, kept for matching requests or standing,
//! each request recorded and answered by the next fitting reply, and the body the core reads
//! (chunk by chunk, delayed, cut, or hanging).

use std::collections::VecDeque;

use serde_json::{json, Value};

use super::replies::{answer_events, chat_completion, BodyEnd, RecordedRequest, Reply};
use super::state::FakeHost;
use crate::host::Host;
use crate::host_types::{HostError, HttpBody, HttpRequest, HttpResponse, Millis};
use crate::llm::ContentBlock;

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

impl FakeHost {
    /// The next scripted reply that fits `request`, as the response the core reads.
    pub(super) async fn answer_http(&self, request: &HttpRequest) -> Result<HttpResponse<FakeBody>, HostError> {
        let reply = match self.embeddings_reply(request) {
            Some(reply) => {
                let delay = self.embeddings_delay_ms();
                if delay > 0 {
                    self.sleep(delay).await;
                }
                reply
            }
            None => self.next_reply(request),
        };
        let body = |chunks: Vec<String>, delay_ms: Millis, end: BodyEnd| FakeBody {
            host: self.clone(),
            chunks: chunks.into_iter().map(String::into_bytes).collect(),
            delay_ms,
            end,
        };
        let ok = |b: FakeBody| HttpResponse {
            status: 200,
            headers: vec![("content-type".into(), "text/event-stream".into())],
            body: b,
        };
        match reply {
            Reply::Answer { blocks, stop_reason, delta_delay_ms } if request.url.ends_with("/chat/completions") => {
                let chunks = chat_completion(&blocks, &stop_reason, request.stream);
                Ok(ok(body(chunks, delta_delay_ms, BodyEnd::Close)))
            }
            Reply::Answer { blocks, stop_reason, delta_delay_ms } => {
                if request.stream {
                    Ok(ok(body(answer_events(&blocks, &stop_reason), delta_delay_ms, BodyEnd::Close)))
                } else {
                    let json = json!({"id": "msg_fake", "type": "message", "role": "assistant", "content": blocks, "stop_reason": stop_reason, "model": "fake", "usage": {"output_tokens": 5}});
                    Ok(HttpResponse {
                        status: 200,
                        headers: Vec::new(),
                        body: body(vec![json.to_string()], delta_delay_ms, BodyEnd::Close),
                    })
                }
            }
            Reply::Error { status, error_type, headers } => {
                let json =
                    json!({"type": "error", "error": {"type": error_type, "message": format!("scripted {status}")}});
                Ok(HttpResponse { status, headers, body: body(vec![json.to_string()], 0, BodyEnd::Close) })
            }
            Reply::ResetAfter { text, deltas } => {
                let events = answer_events(&[ContentBlock::text(text)], "end_turn");
                // message_start, content_block_start, then the deltas.
                Ok(ok(body(events.into_iter().take(2 + deltas).collect(), 0, BodyEnd::Reset)))
            }
            Reply::Raw { status, chunks, end } => {
                Ok(HttpResponse { status, headers: Vec::new(), body: body(chunks, 0, end) })
            }
            Reply::NetworkError => Err(HostError::Network("connection refused".into())),
            Reply::Hang => std::future::pending().await,
            Reply::Redirect { status, location } => Ok(HttpResponse {
                status,
                headers: vec![("location".into(), location)],
                body: body(Vec::new(), 0, BodyEnd::Close),
            }),
            Reply::ErrorBody { status, body: text } => {
                Ok(HttpResponse { status, headers: Vec::new(), body: body(vec![text], 0, BodyEnd::Close) })
            }
        }
    }
}
