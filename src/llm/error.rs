//! Model-call failures, their codes (seed 003) and the messages the user sees.

use thiserror::Error;

/// What kind of failure a model call had; decides the code, the message and the retry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ErrorKind {
    Auth,
    Permission,
    NotFound,
    RateLimit,
    Network,
    InvalidRequest,
    TooLarge,
    Server,
    Overloaded,
    /// The server answered with something we could not read (malformed SSE or JSON).
    InvalidResponse,
    /// The server answered with a redirect: it is not followed (the request carries the key).
    Redirected,
    /// The server took the request and did not begin to answer in time.
    Unanswered,
    /// The user's own agent (ACP) failed: retried in this session when the failure passes (it
    /// ended mid-turn: `should_retry`), else kept for the next start (the program, its version,
    /// a login: the user must fix them).
    Agent,
    /// The user stopped it.
    Aborted,
}

impl ErrorKind {
    /// The code of seed 003 (and ours for the cases it does not name).
    pub(crate) fn code(self) -> &'static str {
        match self {
            ErrorKind::Auth => "auth_error",
            ErrorKind::Permission => "permission_error",
            ErrorKind::NotFound => "not_found",
            ErrorKind::RateLimit => "rate_limit",
            ErrorKind::Network => "network_error",
            ErrorKind::InvalidRequest => "invalid_request",
            ErrorKind::TooLarge => "request_too_large",
            ErrorKind::Server => "server_error",
            ErrorKind::Overloaded => "overloaded",
            ErrorKind::InvalidResponse => "invalid_response",
            ErrorKind::Redirected => "redirected",
            ErrorKind::Unanswered => "no_answer",
            ErrorKind::Agent => "agent_error",
            ErrorKind::Aborted => "aborted",
        }
    }

    /// Whether trying the same call again can help.
    pub(crate) fn retryable_by_default(self) -> bool {
        matches!(
            self,
            ErrorKind::RateLimit
                | ErrorKind::Network
                | ErrorKind::Unanswered
                | ErrorKind::Server
                | ErrorKind::Overloaded
                | ErrorKind::InvalidResponse
        )
    }
}

/// A failed model call.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{}: {detail}", kind.code())]
pub(crate) struct LlmError {
    pub kind: ErrorKind,
    /// What the server or the network said, for logs.
    pub detail: String,
    /// The server's own words for a refused request (its error message), shown after ours: a 400
    /// may be an image the model cannot see or a parameter it does not know, not only length.
    pub server_said: Option<String>,
    /// The server's `retry-after`, in milliseconds.
    pub retry_after_ms: Option<u64>,
    /// The server's `x-should-retry`, which overrides the status rule.
    pub should_retry: Option<bool>,
    /// What the core knows the user should do instead of the kind's general words: which
    /// attachment to drop from a request too large, which one the server refused, where a
    /// redirect pointed, how long a silent server was given.
    pub advice: Option<String>,
}

impl LlmError {
    /// A failure with no server hints.
    pub(crate) fn new(kind: ErrorKind, detail: impl Into<String>) -> Self {
        LlmError {
            kind,
            detail: detail.into(),
            server_said: None,
            retry_after_ms: None,
            should_retry: None,
            advice: None,
        }
    }

    /// A redirect from `url` to `location` (absent where the platform hides it): never followed,
    /// since the request carries the key and the redirect may lead to another server.
    pub(crate) fn redirected(url: &str, location: Option<&str>) -> Self {
        let (detail, advice) = match location.map(str::trim).filter(|l| !l.is_empty()) {
            Some(to) => (
                format!("{url} redirected to {to}"),
                format!("The server redirected the request to {to}. Your API key is not sent to another address: set the base URL to it in settings if you trust it."),
            ),
            None => (
                format!("{url} redirected the request elsewhere"),
                "The server redirected the request to another address. Your API key is not sent there: set the base URL to the server's own address in settings.".to_owned(),
            ),
        };
        LlmError { advice: Some(advice), ..LlmError::new(ErrorKind::Redirected, detail) }
    }

    /// A server at `endpoint` that took the request and had not begun to answer in `waited_ms`.
    pub(crate) fn unanswered(endpoint: &str, waited_ms: u64) -> Self {
        let seconds = waited_ms.div_ceil(1000);
        let advice = format!(
            "The model server took the request but did not begin to answer in {seconds} s. It may be overloaded, or still reading a long prompt (a local model); if it is only slow, raise the wait for an answer to start in settings."
        );
        let detail = format!("connected, but no answer in {seconds} s from {endpoint}");
        LlmError { advice: Some(advice), ..LlmError::new(ErrorKind::Unanswered, detail) }
    }

    /// The failure of a user stop.
    pub(crate) fn aborted() -> Self {
        LlmError::new(ErrorKind::Aborted, "stopped by the user")
    }

    /// Whether the retry policy may try again.
    pub(crate) fn retryable(&self) -> bool {
        self.kind != ErrorKind::Aborted && self.should_retry.unwrap_or_else(|| self.kind.retryable_by_default())
    }

    /// Whether the server refused the request itself (400, 413, or over the limit before it was
    /// sent): sending the same again can only be refused again.
    pub(crate) fn refused_as_sent(&self) -> bool {
        matches!(self.kind, ErrorKind::InvalidRequest | ErrorKind::TooLarge) && !self.retryable()
    }

    /// What the user reads (seed 003's messages for its four codes).
    pub(crate) fn user_message(&self, model: &str) -> String {
        if let Some(advice) = &self.advice {
            return match &self.server_said {
                Some(said) => format!("{advice} The server said: {said}"),
                None => advice.clone(),
            };
        }
        match self.kind {
            ErrorKind::Auth => "API key is missing or invalid".to_owned(),
            ErrorKind::RateLimit => "Too many requests. Please try again in a moment.".to_owned(),
            ErrorKind::Network => "Network error. Please check your internet connection.".to_owned(),
            ErrorKind::InvalidRequest => match self.server_said.as_deref() {
                Some(said) => {
                    format!("Unable to process request. The message may be too long. The server said: {said}")
                }
                None => "Unable to process request. The message may be too long.".to_owned(),
            },
            ErrorKind::Permission => "The API key is not allowed to use this model or feature.".to_owned(),
            ErrorKind::NotFound => format!("The model \"{model}\" was not found. Check the model name in settings."),
            ErrorKind::TooLarge => "The request is too large for the AI service. Try a shorter message.".to_owned(),
            ErrorKind::Server => "The AI service had an internal error. Please try again later.".to_owned(),
            ErrorKind::Overloaded => "The AI service is overloaded. Please try again in a few minutes.".to_owned(),
            ErrorKind::InvalidResponse => "The AI service sent a response that could not be read.".to_owned(),
            // Made with their advice; these words only if one was built without.
            ErrorKind::Redirected => "The server redirected the request to another address.".to_owned(),
            ErrorKind::Unanswered => "The model server did not begin to answer in time.".to_owned(),
            ErrorKind::Agent => "The agent failed.".to_owned(),
            ErrorKind::Aborted => "Stopped.".to_owned(),
        }
    }

    /// Maps an HTTP error status (and the error type in its body, when present) to a failure.
    pub(crate) fn from_status(status: u16, error_type: Option<&str>, detail: String) -> Self {
        let kind = match (status, error_type) {
            (_, Some("authentication_error")) | (401, _) => ErrorKind::Auth,
            (_, Some("permission_error")) | (403, _) => ErrorKind::Permission,
            (_, Some("not_found_error")) | (404, _) => ErrorKind::NotFound,
            (_, Some("request_too_large")) | (413, _) => ErrorKind::TooLarge,
            (_, Some("rate_limit_error")) | (429, _) => ErrorKind::RateLimit,
            (_, Some("overloaded_error")) | (529, _) => ErrorKind::Overloaded,
            (408 | 409, _) => ErrorKind::Network,
            (500..=599, _) | (_, Some("api_error")) => ErrorKind::Server,
            _ => ErrorKind::InvalidRequest,
        };
        LlmError::new(kind, detail)
    }

    /// Maps an `error` event that arrives inside a stream.
    pub(crate) fn from_stream_error(error_type: &str, message: &str) -> Self {
        let kind = match error_type {
            "overloaded_error" => ErrorKind::Overloaded,
            "rate_limit_error" => ErrorKind::RateLimit,
            "authentication_error" => ErrorKind::Auth,
            "permission_error" => ErrorKind::Permission,
            "not_found_error" => ErrorKind::NotFound,
            "invalid_request_error" => ErrorKind::InvalidRequest,
            "request_too_large" => ErrorKind::TooLarge,
            _ => ErrorKind::Server,
        };
        LlmError { server_said: said(message), ..LlmError::new(kind, format!("{error_type}: {message}")) }
    }
}

/// Most characters of the server's message shown to the user.
const SERVER_SAID_CHARS: usize = 300;

/// The server's message as the user is shown it: trimmed, one line, cut at a few hundred
/// characters; none when it said nothing.
pub(crate) fn said(message: &str) -> Option<String> {
    let line = message.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.is_empty() {
        return None;
    }
    Some(match line.char_indices().nth(SERVER_SAID_CHARS) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_map_to_seed_codes_and_messages() {
        let cases = [
            (400, None, "invalid_request", false),
            (401, None, "auth_error", false),
            (403, None, "permission_error", false),
            (404, None, "not_found", false),
            (413, None, "request_too_large", false),
            (429, None, "rate_limit", true),
            (500, None, "server_error", true),
            (503, None, "server_error", true),
            (529, None, "overloaded", true),
            (400, Some("overloaded_error"), "overloaded", true),
            (408, None, "network_error", true),
        ];
        for (status, ty, code, retry) in cases {
            let e = LlmError::from_status(status, ty, String::new());
            assert_eq!((e.kind.code(), e.retryable()), (code, retry), "{status}");
        }
        assert_eq!(LlmError::new(ErrorKind::Auth, "").user_message("m"), "API key is missing or invalid");
        assert!(LlmError::new(ErrorKind::NotFound, "").user_message("claude-x").contains("claude-x"));
    }

    #[test]
    fn a_refused_request_says_what_the_server_said_after_the_seed_message() {
        let mut e = LlmError::from_status(400, Some("invalid_request_error"), "HTTP 400: x".into());
        assert_eq!(e.user_message("m"), "Unable to process request. The message may be too long.");
        e.server_said = said("  image input is\nnot supported  ");
        assert_eq!(
            e.user_message("m"),
            "Unable to process request. The message may be too long. The server said: image input is not supported"
        );
        let long = said(&"é".repeat(400)).unwrap_or_default();
        assert_eq!(long.chars().count(), SERVER_SAID_CHARS + 1, "cut at a character, with an ellipsis");
        assert_eq!(said(" \n "), None);
        let streamed = LlmError::from_stream_error("invalid_request_error", "tools.0: unknown field");
        assert!(streamed.user_message("m").ends_with("The server said: tools.0: unknown field"));
    }

    #[test]
    fn should_retry_header_overrides_and_abort_never_retries() {
        let mut e = LlmError::from_status(500, None, String::new());
        e.should_retry = Some(false);
        assert!(!e.retryable());
        let mut e = LlmError::from_status(400, None, String::new());
        e.should_retry = Some(true);
        assert!(e.retryable());
        let mut e = LlmError::aborted();
        e.should_retry = Some(true);
        assert!(!e.retryable());
    }
}
