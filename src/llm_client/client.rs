//! The model client, in either wire format (`Settings::api_format`): builds the request, sends it through the host, reads the
//! answer streamed (SSE, text handed out as it arrives) or whole, and maps every failure to an
//! [`LlmError`]; and `call_with_retry`, the loop that repeats a failed call as `retry`'s policy
//! says.

use futures::future::{join, select, Either, LocalBoxFuture};
use serde_json::Value;

use crate::attachment::{refused_attachment, size_text, MAX_REQUEST_BYTES};
use crate::host::Host;
use crate::host_types::{HostError, HttpBody, HttpRequest, HttpResponse, LogLevel};
use crate::llm::error::{said, ErrorKind, LlmError};
use crate::llm::openai;
use crate::llm::request::{request_body, ModelCall};
use crate::llm::retry::{next_delay, parse_retry_after};
use crate::llm::sse::SseParser;
use crate::llm::stream::StreamAccumulator;
use crate::llm::types::{parse_response, ModelResponse, StopReason};
use crate::settings::{ApiFormat, AuthStyle, Settings};

/// Largest error or non-streamed body we read.
const MAX_BODY_BYTES: usize = 32 * 1024 * 1024;
/// The API version header value.
pub(crate) const ANTHROPIC_VERSION: &str = "2023-06-01";

/// The endpoint of a format under a base URL. Anthropic's clients take the base without `/v1`,
/// OpenAI's with it; a base that ends in `/v1` is taken either way (users paste both), and a bare
/// host for Chat Completions gets `/v1` (llama.cpp, Ollama and LM Studio serve it there).
pub(crate) fn endpoint(settings: &Settings) -> String {
    let base = settings.base_url.trim().trim_end_matches('/');
    match settings.api_format {
        ApiFormat::Anthropic => format!("{}/v1/messages", base.strip_suffix("/v1").unwrap_or(base)),
        ApiFormat::Openai => {
            let path = base.split_once("://").map_or("", |(_, rest)| rest.find('/').map_or("", |i| &rest[i..]));
            if path.is_empty() {
                format!("{base}/v1/chat/completions")
            } else {
                format!("{base}/chat/completions")
            }
        }
    }
}

/// The server as the user knows it: the base URL's host (and port), for "waiting for …".
pub(crate) fn server_name(settings: &Settings) -> &str {
    let base = settings.base_url.trim();
    let rest = base.split_once("://").map_or(base, |(_, rest)| rest);
    let host = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    host.rsplit_once('@').map_or(host, |(_, host)| host)
}

/// The headers every request to the server carries: the format's own, and the key as the auth
/// style says.
pub(crate) fn auth_headers(settings: &Settings) -> Vec<(String, String)> {
    let mut headers = vec![("content-type".to_owned(), "application/json".to_owned())];
    if settings.api_format == ApiFormat::Anthropic {
        headers.push(("anthropic-version".to_owned(), ANTHROPIC_VERSION.to_owned()));
        // Required for a request from a browser origin (Obsidian's app://); harmless elsewhere.
        headers.push(("anthropic-dangerous-direct-browser-access".to_owned(), "true".to_owned()));
    }
    if !settings.api_key.is_empty() {
        match settings.auth_style {
            AuthStyle::XApiKey => headers.push(("x-api-key".to_owned(), settings.api_key.clone())),
            AuthStyle::Bearer => headers.push(("authorization".to_owned(), format!("Bearer {}", settings.api_key))),
            AuthStyle::None => {}
        }
    }
    headers
}

/// The HTTP request for one model call.
pub(crate) fn build_http_request(settings: &Settings, call: ModelCall<'_>) -> HttpRequest {
    let (model, max_tokens, stream) = (&settings.model, settings.max_tokens, settings.streaming);
    let body = match settings.api_format {
        ApiFormat::Anthropic => request_body(model, max_tokens, call, stream),
        ApiFormat::Openai => openai::request_body(model, max_tokens, call, stream),
    };
    HttpRequest { method: "POST".to_owned(), url: endpoint(settings), headers: auth_headers(settings), body, stream }
}

/// A streamed answer being read, in either format.
enum Streamed {
    Messages(StreamAccumulator),
    Chat(openai::ChunkAccumulator),
}

impl Streamed {
    fn apply(&mut self, event: &crate::llm::sse::SseEvent) -> Result<Option<String>, LlmError> {
        match self {
            Streamed::Messages(acc) => acc.apply(event),
            Streamed::Chat(acc) => acc.apply(event),
        }
    }

    fn is_finished(&self) -> bool {
        match self {
            Streamed::Messages(acc) => acc.is_finished(),
            Streamed::Chat(acc) => acc.is_finished(),
        }
    }

    fn finish(self) -> Result<ModelResponse, LlmError> {
        match self {
            Streamed::Messages(acc) => acc.finish(),
            Streamed::Chat(acc) => acc.finish(),
        }
    }

    /// The answer so far, ended as one cut at its size limit: its tool calls are dropped.
    fn cut(self) -> Result<ModelResponse, LlmError> {
        let mut response = match self {
            Streamed::Messages(mut acc) => {
                acc.cut_short();
                acc.finish()
            }
            Streamed::Chat(mut acc) => {
                acc.cut_short();
                acc.finish()
            }
        }?;
        response.stop_reason = StopReason::AnswerTooLong;
        Ok(response)
    }
}

/// A host failure as the model call's error (aborted stays aborted; the rest is the network's).
pub(crate) fn host_error(e: HostError) -> LlmError {
    match e {
        HostError::Aborted => LlmError::aborted(),
        HostError::Network(msg) | HostError::Io(msg) => LlmError::new(ErrorKind::Network, msg),
        e @ HostError::NotAFile { .. } => LlmError::new(ErrorKind::Network, e.to_string()),
    }
}

/// Reads a body whole, refusing one over `limit` bytes.
pub(crate) async fn read_all<B: HttpBody>(body: &mut B, limit: usize) -> Result<Vec<u8>, LlmError> {
    let mut out = Vec::new();
    while let Some(chunk) = body.chunk().await.map_err(host_error)? {
        out.extend_from_slice(&chunk);
        if out.len() > limit {
            return Err(LlmError::new(ErrorKind::InvalidResponse, "response body too large"));
        }
    }
    Ok(out)
}

/// A body read as JSON: checked as UTF-8 first, then parsed as text. (`serde_json::from_slice`
/// would bring a second copy of the JSON reader into the wasm, ~8 KB; every other parse is text.)
pub(crate) fn json_text(body: &[u8]) -> Result<Value, String> {
    let text = std::str::from_utf8(body).map_err(|e| format!("it is not UTF-8 text ({e})"))?;
    serde_json::from_str(text).map_err(|e| e.to_string())
}

/// Turns an error response into a failure, reading the server's hints.
async fn status_error<H: Host>(host: &H, mut response: HttpResponse<H::Body>) -> LlmError {
    let body = read_all(&mut response.body, MAX_BODY_BYTES).await.unwrap_or_default();
    let parsed: Option<Value> = json_text(&body).ok();
    let error_type = parsed.as_ref().and_then(|v| v.pointer("/error/type")).and_then(Value::as_str);
    let server_message = parsed.as_ref().and_then(|v| v.pointer("/error/message")).and_then(Value::as_str);
    let message = server_message
        .map(str::to_owned)
        .unwrap_or_else(|| String::from_utf8_lossy(&body[..body.len().min(300)]).into_owned());
    let mut error = LlmError::from_status(response.status, error_type, format!("HTTP {}: {message}", response.status));
    // Only a message the server meant for us is shown; a web page's first bytes are not.
    error.server_said = server_message.and_then(said);
    error.retry_after_ms =
        parse_retry_after(response.header("retry-after-ms"), response.header("retry-after"), host.now_ms());
    error.should_retry = match response.header("x-should-retry") {
        Some("true") => Some(true),
        Some("false") => Some(false),
        _ => None,
    };
    error
}

/// Most of an answer read from a stream (its text, and the data of its other events): past it
/// the answer is cut, as at
/// the token limit. A server that never ends its answer would otherwise grow the core's memory
/// until it traps.
pub(crate) const MAX_ANSWER_BYTES: usize = 4 * 1024 * 1024;
/// Longest wait for a whole answer that is not streamed (there is no first event to wait for).
const NOT_STREAMED_LIMIT_MS: u64 = 5 * 60_000;
/// After this long with no answer begun, the user is told what the call waits for.
pub(crate) const WAIT_NOTICE_MS: u64 = 10_000;

/// Waits for `work` at most `limit_ms`, telling `on_attempt` once, after [`WAIT_NOTICE_MS`],
/// that the answer has not begun. `None` when the time ran out. (Timers only: no clock reading.)
pub(crate) async fn within<H: Host, T>(
    host: &H,
    work: impl std::future::Future<Output = T>,
    limit_ms: u64,
    on_attempt: &mut dyn FnMut(Attempt<'_>),
) -> Option<T> {
    let mut work = std::pin::pin!(work);
    let mut rest = limit_ms;
    if WAIT_NOTICE_MS < limit_ms {
        let notice = std::pin::pin!(host.sleep(WAIT_NOTICE_MS));
        match select(work.as_mut(), notice).await {
            Either::Left((done, _)) => return Some(done),
            Either::Right(_) => on_attempt(Attempt::Waiting { waited_ms: WAIT_NOTICE_MS, limit_ms }),
        }
        rest -= WAIT_NOTICE_MS;
    }
    let timer = std::pin::pin!(host.sleep(rest));
    match select(work, timer).await {
        Either::Left((done, _)) => Some(done),
        Either::Right(_) => None,
    }
}

/// How an answer began: a stream with its first bytes (`None`: it ended at once), or a whole
/// body.
enum Begun<B> {
    Stream(HttpResponse<B>, Option<Vec<u8>>),
    Whole(Vec<u8>),
}

/// Sends the request and waits for the answer to begin: the status and headers, then the first
/// bytes of a stream, or the whole of an answer that is not streamed. A redirect or an error
/// status ends it here.
async fn begin<H: Host>(host: &H, settings: &Settings, request: HttpRequest) -> Result<Begun<H::Body>, LlmError> {
    let mut response = host.http(request).await.map_err(host_error)?;
    if (300..400).contains(&response.status) {
        return Err(LlmError::redirected(&endpoint(settings), response.header("location")));
    }
    if !(200..300).contains(&response.status) {
        return Err(status_error(host, response).await);
    }
    if settings.streaming {
        let first = response.body.chunk().await.map_err(host_error)?;
        Ok(Begun::Stream(response, first))
    } else {
        Ok(Begun::Whole(read_all(&mut response.body, MAX_BODY_BYTES).await?))
    }
}

/// Makes one model call. Streamed text goes to `on_text` as it arrives; a wait for the answer
/// to begin goes to `on_attempt`. `ready`, when given, runs beside the request and is finished
/// before the answer is read (a run's start, made durable without delaying the request). No
/// retries here: the caller decides (see [`call_with_retry`]).
pub(crate) async fn call_model<H: Host>(
    host: &H,
    settings: &Settings,
    call: ModelCall<'_>,
    on_text: &mut dyn FnMut(&str),
    on_attempt: &mut dyn FnMut(Attempt<'_>),
    ready: &mut Option<LocalBoxFuture<'_, ()>>,
) -> Result<ModelResponse, LlmError> {
    let request = build_http_request(settings, call);
    if settings.api_format == ApiFormat::Anthropic && request.body.len() as u64 > MAX_REQUEST_BYTES {
        return Err(LlmError::new(
            ErrorKind::TooLarge,
            format!(
                "the request is {}, over the API's limit of {}",
                size_text(request.body.len() as u64),
                size_text(MAX_REQUEST_BYTES)
            ),
        ));
    }
    let limit = if settings.streaming { settings.response_start_timeout_ms } else { NOT_STREAMED_LIMIT_MS };
    let ready = async {
        if let Some(ready) = ready.take() {
            ready.await;
        }
    };
    let begun = within(host, join(begin(host, settings, request), ready), limit, on_attempt).await.map(|(b, ())| b);
    let (mut response, first) = match begun {
        None => return Err(LlmError::unanswered(&endpoint(settings), limit)),
        Some(Err(mut error)) => {
            if matches!(error.kind, ErrorKind::InvalidRequest | ErrorKind::TooLarge) {
                // Which attachment, if any, the refusal was about: read back from the request.
                let body = build_http_request(settings, call).body;
                error.advice = refused_attachment(&body, error.server_said.as_deref().unwrap_or(""));
            }
            return Err(error);
        }
        Some(Ok(begun)) => match begun {
            Begun::Stream(response, first) => (response, first),
            Begun::Whole(body) => {
                let value: Value = json_text(&body)
                    .map_err(|e| LlmError::new(ErrorKind::InvalidResponse, format!("response is not JSON: {e}")))?;
                return match settings.api_format {
                    ApiFormat::Anthropic => parse_response(&value)
                        .ok_or_else(|| LlmError::new(ErrorKind::InvalidResponse, "response has no content")),
                    ApiFormat::Openai => openai::parse_response(&value),
                };
            }
        },
    };
    let mut parser = SseParser::new();
    let mut acc = match settings.api_format {
        ApiFormat::Anthropic => Streamed::Messages(StreamAccumulator::new()),
        ApiFormat::Openai => Streamed::Chat(openai::ChunkAccumulator::default()),
    };
    let mut answer_bytes = 0usize;
    let mut first = Some(first);
    loop {
        let chunk = match first.take() {
            Some(first) => first,
            None => {
                let next = std::pin::pin!(response.body.chunk());
                let idle = std::pin::pin!(host.sleep(settings.stream_idle_timeout_ms));
                match select(next, idle).await {
                    Either::Left((chunk, _)) => chunk.map_err(host_error)?,
                    Either::Right(_) => {
                        return Err(LlmError::new(
                            ErrorKind::Network,
                            format!("no data from the server for {} s", settings.stream_idle_timeout_ms / 1000),
                        ))
                    }
                }
            }
        };
        let Some(chunk) = chunk else { break };
        let events = parser.feed(&chunk).map_err(|e| LlmError::new(ErrorKind::InvalidResponse, e.to_string()))?;
        for event in &events {
            match acc.apply(event)? {
                Some(text) => {
                    answer_bytes += text.len();
                    on_text(&text);
                }
                // A tool's input, usage, a ping: counted as sent (a tool's input grows too).
                None => answer_bytes += event.data.len(),
            }
            if answer_bytes > MAX_ANSWER_BYTES {
                // Dropping the body aborts the request.
                return acc.cut();
            }
        }
        if acc.is_finished() {
            break;
        }
    }
    if let Some(event) = parser.finish() {
        if let Some(text) = acc.apply(&event)? {
            on_text(&text);
        }
    }
    acc.finish()
}

/// What the retry loop is about to do, for whoever reports progress.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Attempt<'a> {
    /// A request goes out.
    Request,
    /// The call failed and attempt number `attempt` follows after `delay_ms`.
    Retry { attempt: u32, delay_ms: u64, error: &'a LlmError },
    /// The server has not begun to answer after `waited_ms`; the call gives up at `limit_ms`.
    Waiting { waited_ms: u64, limit_ms: u64 },
}

/// One model call under the retry policy, reporting each request and each wait.
pub(crate) async fn call_with_retry<H: Host>(
    host: &H,
    settings: &Settings,
    call: ModelCall<'_>,
    on_text: &mut dyn FnMut(&str),
    on_attempt: &mut dyn FnMut(Attempt<'_>),
    ready: &mut Option<LocalBoxFuture<'_, ()>>,
) -> Result<ModelResponse, LlmError> {
    let mut retries = 0;
    loop {
        on_attempt(Attempt::Request);
        let error = match call_model(host, settings, call, on_text, on_attempt, ready).await {
            Ok(response) => return Ok(response),
            Err(error) => error,
        };
        let Some(delay_ms) = next_delay(retries, &error) else { return Err(error) };
        retries += 1;
        host.log(LogLevel::Info, &format!("model call failed ({error}); retry {retries} in {delay_ms} ms"));
        on_attempt(Attempt::Retry { attempt: retries as u32 + 1, delay_ms, error: &error });
        host.sleep(delay_ms).await;
    }
}

#[cfg(test)]
mod tests {
    use super::json_text;

    #[test]
    fn a_body_that_is_not_utf8_says_so() {
        let error = json_text(b"{\"error\":\"caf\xe9\"}").unwrap_err();
        assert!(error.starts_with("it is not UTF-8 text ("), "{error}");
        assert_eq!(json_text(b"{\"a\":1}").unwrap(), serde_json::json!({"a": 1}));
        assert!(json_text(b"{\"a\":").unwrap_err().contains("EOF"));
    }
}
