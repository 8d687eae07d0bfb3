//! The local agent API (seed 002): external agents on this computer read the plugin's
//! instruction context, send it messages and ask the user to verify actions. The shim only
//! listens on 127.0.0.1 and hands each request over; everything here decides: who may call
//! (`guard`), which endpoint a request means (`route`), what the answer is (the processor's
//! `api` module), and what `/config` says (`config`).

pub(crate) mod config;
pub(crate) mod guard;
pub(crate) mod route;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use thiserror::Error;

/// Largest request body read; the shim stops reading after this many bytes.
pub const BODY_LIMIT: usize = 64 * 1024;
/// Longest `?wait=` a request may ask for, in seconds.
pub(crate) const MAX_WAIT_SECONDS: u64 = 60;
/// Pending verifications one context may have at a time.
pub(crate) const MAX_PENDING_VERIFICATIONS: usize = 20;
/// Agent API messages not yet finished that may wait in the queue.
pub(crate) const MAX_MESSAGES_IN_FLIGHT: usize = 50;
/// Finished agent API messages whose results are kept for polling.
pub(crate) const KEEP_RESULTS: usize = 200;
/// Version of the API's wire format (bumped on incompatible changes).
pub(crate) const API_VERSION: u32 = 1;

/// One HTTP request, as the shim received it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ApiRequest {
    pub method: String,
    /// Path and query, as sent (`/verify/ver-1?wait=10`).
    pub url: String,
    /// Header names in lower case (Node's `IncomingMessage.headers`).
    pub headers: std::collections::BTreeMap<String, String>,
    /// The body, cut at [`BODY_LIMIT`].
    pub body: String,
    /// The body was longer than [`BODY_LIMIT`].
    pub body_too_large: bool,
    /// The port the request arrived on (which context it addresses).
    pub local_port: u16,
}

impl ApiRequest {
    /// A header by (case-insensitive) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// What the shim writes back: always a JSON body.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ApiResponse {
    pub status: u16,
    pub body: String,
    /// Extra headers (`Allow` on a 405, `Retry-After` on a 429).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub headers: Vec<(String, String)>,
}

impl ApiResponse {
    /// A JSON answer.
    pub fn json(status: u16, value: &Value) -> Self {
        ApiResponse { status, body: value.to_string(), headers: Vec::new() }
    }
}

/// Why a request failed; the status, code and message are what the caller sees.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub(crate) enum ApiError {
    #[error("requests from web pages are refused: this API is for programs on this computer, not for browsers")]
    BrowserOrigin,
    #[error("the Host header {0:?} is not this computer's loopback address and port")]
    ForeignHost(String),
    #[error("missing or wrong access token: send \"Authorization: Bearer <token>\" with the token from Settings → SmartHole Agent → Agent API")]
    Unauthorized,
    #[error("the request body is over {BODY_LIMIT} bytes")]
    TooLarge,
    #[error("there is no endpoint {0}; GET /config lists them")]
    NotFound(String),
    #[error("{method} is not allowed on {path}; use {allowed}")]
    MethodNotAllowed { method: String, path: String, allowed: &'static str },
    #[error("the body is not a JSON object: {0}")]
    NotJson(String),
    #[error("{field}: {reason}")]
    BadField { field: &'static str, reason: String },
    #[error("there is no context {0:?}; GET /config lists them")]
    UnknownContext(String),
    #[error("there is no verification {0}")]
    UnknownVerification(String),
    #[error("there is no message {0} (results are kept for the last {KEEP_RESULTS} messages until Obsidian restarts)")]
    UnknownMessage(String),
    #[error("{0}; try again later")]
    TooMany(String),
    #[error("the request could not be saved in the vault's .smarthole folder; see the plugin's log")]
    Storage,
    /// The core is starting or being rebuilt (its verifications not loaded yet): sent by the host.
    #[error("the agent is starting; retry in a moment")]
    NotReady,
    /// Answering failed (a bug, or a core that trapped): sent by the host; nothing internal said.
    #[error("the agent could not answer this request; see Obsidian's developer console")]
    Internal,
}

impl ApiError {
    /// The HTTP status.
    pub(crate) fn status(&self) -> u16 {
        match self {
            ApiError::BrowserOrigin | ApiError::ForeignHost(_) => 403,
            ApiError::Unauthorized => 401,
            ApiError::TooLarge => 413,
            ApiError::NotFound(_)
            | ApiError::UnknownContext(_)
            | ApiError::UnknownVerification(_)
            | ApiError::UnknownMessage(_) => 404,
            ApiError::MethodNotAllowed { .. } => 405,
            ApiError::NotJson(_) | ApiError::BadField { .. } => 400,
            ApiError::TooMany(_) => 429,
            ApiError::Storage | ApiError::NotReady => 503,
            ApiError::Internal => 500,
        }
    }

    /// The stable code programs match on.
    pub(crate) fn code(&self) -> &'static str {
        match self {
            ApiError::BrowserOrigin => "forbidden_origin",
            ApiError::ForeignHost(_) => "forbidden_host",
            ApiError::Unauthorized => "unauthorized",
            ApiError::TooLarge => "payload_too_large",
            ApiError::NotFound(_) => "not_found",
            ApiError::MethodNotAllowed { .. } => "method_not_allowed",
            ApiError::NotJson(_) => "invalid_json",
            ApiError::BadField { .. } => "invalid_field",
            ApiError::UnknownContext(_) => "unknown_context",
            ApiError::UnknownVerification(_) => "unknown_verification",
            ApiError::UnknownMessage(_) => "unknown_message",
            ApiError::TooMany(_) => "too_many_requests",
            ApiError::Storage => "storage_unavailable",
            ApiError::NotReady => "not_ready",
            ApiError::Internal => "internal_error",
        }
    }

    /// The error as the caller receives it: `{"error": {"code", "message", "field"?}}`.
    pub(crate) fn response(&self) -> ApiResponse {
        let mut error = json!({"code": self.code(), "message": self.to_string()});
        if let ApiError::BadField { field, .. } = self {
            error["field"] = json!(field);
        }
        let mut response = ApiResponse::json(self.status(), &json!({ "error": error }));
        match self {
            ApiError::MethodNotAllowed { allowed, .. } => response.headers.push(("Allow".into(), (*allowed).into())),
            ApiError::TooMany(_) | ApiError::Storage => response.headers.push(("Retry-After".into(), "5".into())),
            ApiError::NotReady => response.headers.push(("Retry-After".into(), "1".into())),
            _ => {}
        }
        response
    }
}

/// The answers the host sends when the core cannot answer, written here so the host only sends
/// them: taken once the core is loaded, they stay valid while it starts or is being rebuilt.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiFallbacks {
    /// 503 `not_ready` with `Retry-After: 1`: the core is starting or being rebuilt.
    pub not_ready: ApiResponse,
    /// 500 `internal_error`: answering the request failed.
    pub internal_error: ApiResponse,
}

/// The host's answers for when the core cannot answer.
pub fn api_fallbacks() -> ApiFallbacks {
    ApiFallbacks { not_ready: ApiError::NotReady.response(), internal_error: ApiError::Internal.response() }
}

/// A field the request must have, with its reason.
pub(crate) fn bad(field: &'static str, reason: impl Into<String>) -> ApiError {
    ApiError::BadField { field, reason: reason.into() }
}

/// Every error code, with its status and meaning (for `/config` and the docs' table).
pub(crate) const ERROR_CODES: [(u16, &str, &str); 15] = [
    (400, "invalid_json", "the body is not a JSON object"),
    (400, "invalid_field", "a field is missing or has the wrong type; `field` names it"),
    (401, "unauthorized", "no bearer token, or the wrong one"),
    (403, "forbidden_origin", "the request came from a web page (it had an Origin or Sec-Fetch-Site header)"),
    (403, "forbidden_host", "the Host header is not 127.0.0.1, localhost or [::1] with this port"),
    (404, "not_found", "no such endpoint"),
    (404, "unknown_context", "no instruction context of that name"),
    (404, "unknown_verification", "no verification with that id"),
    (404, "unknown_message", "no message with that id (or its result is no longer kept)"),
    (405, "method_not_allowed", "the endpoint exists but not with this method; see the Allow header"),
    (413, "payload_too_large", "the body is over 64 KiB"),
    (429, "too_many_requests", "too many pending verifications or queued messages; retry after Retry-After seconds"),
    (503, "storage_unavailable", "the vault's .smarthole folder could not be written; retry later"),
    (503, "not_ready", "the agent is starting or restarting; retry after Retry-After seconds"),
    (500, "internal_error", "the plugin failed to answer (a bug); nothing internal is included"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_published_error_table_matches_the_errors() {
        let every = [
            ApiError::BrowserOrigin,
            ApiError::ForeignHost(String::new()),
            ApiError::Unauthorized,
            ApiError::TooLarge,
            ApiError::NotFound(String::new()),
            ApiError::MethodNotAllowed { method: String::new(), path: String::new(), allowed: "GET" },
            ApiError::NotJson(String::new()),
            bad("text", "is required"),
            ApiError::UnknownContext(String::new()),
            ApiError::UnknownVerification(String::new()),
            ApiError::UnknownMessage(String::new()),
            ApiError::TooMany(String::new()),
            ApiError::Storage,
            ApiError::NotReady,
            ApiError::Internal,
        ];
        assert_eq!(every.len(), ERROR_CODES.len());
        for error in every {
            assert!(
                ERROR_CODES.iter().any(|(status, code, _)| *status == error.status() && *code == error.code()),
                "{} {} is not in ERROR_CODES",
                error.status(),
                error.code()
            );
        }
        let field = bad("reason", "is required").response();
        assert_eq!(
            field.body,
            r#"{"error":{"code":"invalid_field","field":"reason","message":"reason: is required"}}"#
        );
    }

    /// What the host sends when the core cannot answer: written by the core, in the same error
    /// format as every other answer.
    #[test]
    fn the_hosts_fallback_answers_are_the_cores() {
        let ApiFallbacks { not_ready, internal_error } = api_fallbacks();
        assert_eq!(not_ready.status, 503);
        assert_eq!(
            not_ready.body,
            r#"{"error":{"code":"not_ready","message":"the agent is starting; retry in a moment"}}"#
        );
        assert_eq!(not_ready.headers, [("Retry-After".to_owned(), "1".to_owned())]);
        assert_eq!(internal_error.status, 500);
        assert_eq!(
            internal_error.body,
            r#"{"error":{"code":"internal_error","message":"the agent could not answer this request; see Obsidian's developer console"}}"#
        );
        assert!(internal_error.headers.is_empty());
    }
}
