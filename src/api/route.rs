//! Which endpoint a request means, and its query parameters.

use super::{bad, ApiError, MAX_WAIT_SECONDS};

/// An endpoint with what its path names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Route {
    Config,
    /// `/context` (`None`: the port's context) or `/context/<name>`.
    Context(Option<String>),
    CreateVerification,
    Verification(String),
    CreateMessage,
    Message(String),
}

/// A routed request: the endpoint and the query parameters every endpoint understands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Routed {
    pub route: Route,
    /// `?wait=<seconds>`: hold the answer until something changes, at most this long.
    pub wait_ms: u64,
    /// `?context=<name>`: the context a verification on the main port is for.
    pub context: Option<String>,
}

/// The endpoint for a method and URL, or why there is none.
pub(crate) fn route(method: &str, url: &str) -> Result<Routed, ApiError> {
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    let trimmed = path.trim_end_matches('/');
    let segments: Vec<&str> = trimmed.split('/').skip(1).collect();
    let (route, allowed) = match segments.as_slice() {
        ["config"] => (Route::Config, "GET"),
        ["context"] => (Route::Context(None), "GET"),
        ["context", name] if !name.is_empty() => (Route::Context(Some(decode("path", name)?)), "GET"),
        ["verify"] => (Route::CreateVerification, "POST"),
        ["verify", id] if !id.is_empty() => (Route::Verification(decode("path", id)?), "GET"),
        ["messages"] => (Route::CreateMessage, "POST"),
        ["messages", id] if !id.is_empty() => (Route::Message(decode("path", id)?), "GET"),
        _ => return Err(ApiError::NotFound(path.to_owned())),
    };
    if method != allowed {
        return Err(ApiError::MethodNotAllowed { method: method.to_owned(), path: path.to_owned(), allowed });
    }
    let mut routed = Routed { route, wait_ms: 0, context: None };
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        match key {
            "wait" => {
                let seconds = value.parse::<u64>().ok().filter(|s| *s <= MAX_WAIT_SECONDS).ok_or_else(|| {
                    bad("wait", format!("must be whole seconds from 0 to {MAX_WAIT_SECONDS} (got {value:?})"))
                })?;
                routed.wait_ms = seconds * 1_000;
            }
            "context" => routed.context = Some(decode("context", value)?),
            // Unknown parameters are ignored, as most HTTP APIs do.
            _ => {}
        }
    }
    Ok(routed)
}

/// A request's URL as it may be logged: the path, and of the query only the parameters this
/// API reads (`wait`, `context`); every other value is replaced by `[redacted]`. An agent that
/// sends its token as `?token=…` (or anything else secret in the query) never finds it in a
/// `--verbose` log.
pub(crate) fn loggable_url(url: &str) -> String {
    let Some((path, query)) = url.split_once('?') else { return url.to_owned() };
    let pairs: Vec<String> = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| match pair.split_once('=') {
            Some((key @ ("wait" | "context"), value)) => format!("{key}={value}"),
            Some((key, _)) => format!("{key}=[redacted]"),
            None => pair.to_owned(),
        })
        .collect();
    format!("{path}?{}", pairs.join("&"))
}

/// Ids and names are plain ASCII; a percent sign or anything unusual is not one of ours.
fn decode(field: &'static str, segment: &str) -> Result<String, ApiError> {
    if !segment.is_empty()
        && segment.len() <= 64
        && segment.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        Ok(segment.to_owned())
    } else {
        Err(bad(field, format!("{segment:?} is not an id or a context name (letters, digits, - and _)")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_methods_and_queries() {
        let ok = |m: &str, u: &str| route(m, u).unwrap();
        assert_eq!(ok("GET", "/config").route, Route::Config);
        assert_eq!(ok("GET", "/config/").route, Route::Config);
        assert_eq!(ok("GET", "/context").route, Route::Context(None));
        assert_eq!(ok("GET", "/context/reviewer").route, Route::Context(Some("reviewer".into())));
        assert_eq!(ok("POST", "/verify?context=ci").context.as_deref(), Some("ci"));
        let poll = ok("GET", "/verify/ver-abc?wait=30");
        assert_eq!((poll.route, poll.wait_ms), (Route::Verification("ver-abc".into()), 30_000));
        assert_eq!(ok("POST", "/messages").route, Route::CreateMessage);
        assert_eq!(ok("GET", "/messages/api-1?x=y").route, Route::Message("api-1".into()));

        assert_eq!(route("GET", "/nope"), Err(ApiError::NotFound("/nope".into())));
        assert_eq!(route("GET", "/"), Err(ApiError::NotFound("/".into())));
        assert_eq!(route("GET", "/verify/a/b"), Err(ApiError::NotFound("/verify/a/b".into())));
        assert!(matches!(route("DELETE", "/config"), Err(ApiError::MethodNotAllowed { allowed: "GET", .. })));
        assert!(matches!(route("GET", "/verify"), Err(ApiError::MethodNotAllowed { allowed: "POST", .. })));
        for bad_wait in ["/verify/x?wait=61", "/verify/x?wait=-1", "/verify/x?wait=soon"] {
            assert!(matches!(route("GET", bad_wait), Err(ApiError::BadField { field: "wait", .. })), "{bad_wait}");
        }
        assert!(matches!(route("GET", "/verify/..%2f"), Err(ApiError::BadField { field: "path", .. })));
        assert!(matches!(route("POST", "/verify?context=a%20b"), Err(ApiError::BadField { field: "context", .. })));
    }

    #[test]
    fn logged_urls_keep_no_secret() {
        for (url, logged) in [
            ("/config", "/config"),
            ("/config?token=s3cret", "/config?token=[redacted]"),
            ("/verify/ver-1?wait=30&access_token=s3cret", "/verify/ver-1?wait=30&access_token=[redacted]"),
            ("/verify?context=ci&Authorization=Bearer%20s3cret", "/verify?context=ci&Authorization=[redacted]"),
            ("/messages?key=a=b=s3cret&&x", "/messages?key=[redacted]&x"),
            ("/config?TOKEN=s3cret#frag", "/config?TOKEN=[redacted]"),
        ] {
            assert_eq!(loggable_url(url), logged, "{url}");
            assert!(!loggable_url(url).contains("s3cret"));
        }
    }
}
