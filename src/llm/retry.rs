//! When to try a failed model call again: 1 s, 2 s, 4 s (seed 003), or longer when the server's
//! `retry-after` asks for it. Pure policy, no I/O: the loop that applies it is
//! `client::call_with_retry`, next to the call it repeats.

use super::error::LlmError;

/// The waits before the second, third and fourth attempts.
pub(crate) const BACKOFF_MS: [u64; 3] = [1_000, 2_000, 4_000];
/// The longest `retry-after` we wait for; a server asking for more gets an error to the user now
/// rather than a spinner for minutes.
pub(crate) const MAX_RETRY_AFTER_MS: u64 = 60_000;

/// The wait before the next attempt, or `None` to give up. `retries_done` counts the retries
/// already made (0 after the first failure).
pub(crate) fn next_delay(retries_done: usize, error: &LlmError) -> Option<u64> {
    if !error.retryable() {
        return None;
    }
    let base = *BACKOFF_MS.get(retries_done)?;
    match error.retry_after_ms {
        Some(asked) if asked > MAX_RETRY_AFTER_MS => None,
        Some(asked) => Some(base.max(asked)),
        None => Some(base),
    }
}

/// Reads `retry-after-ms`, or `retry-after` as seconds or an HTTP date.
pub(crate) fn parse_retry_after(retry_after_ms: Option<&str>, retry_after: Option<&str>, now_ms: u64) -> Option<u64> {
    if let Some(ms) = retry_after_ms.and_then(|v| decimal_scaled(v.trim(), 0)) {
        return Some(ms);
    }
    let value = retry_after?.trim();
    if let Some(ms) = decimal_scaled(value, 3) {
        return Some(ms);
    }
    crate::time::parse_http_date(value).map(|at| at.saturating_sub(now_ms))
}

/// A non-negative decimal number times 10^`shift`, rounded up ("1.5" with shift 3 is 1500); a
/// number too large saturates (and is then refused as too long a wait). Parsed by hand: the
/// float parser would add ~18 KB to the bundle for two headers.
fn decimal_scaled(text: &str, shift: usize) -> Option<u64> {
    let (int, frac) = text.split_once('.').unwrap_or((text, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if (int.is_empty() && frac.is_empty()) || !digits(int) || !digits(frac) {
        return None;
    }
    let push = |value: u64, digit: u8| value.saturating_mul(10).saturating_add(u64::from(digit - b'0'));
    let mut value = int.bytes().fold(0u64, push);
    let (kept, rest) = frac.split_at(frac.len().min(shift));
    value = kept.bytes().fold(value, push);
    value = value.saturating_mul(10u64.saturating_pow((shift - kept.len()) as u32));
    if rest.bytes().any(|b| b != b'0') {
        value = value.saturating_add(1);
    }
    Some(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::error::ErrorKind;

    fn err(kind: ErrorKind, after: Option<u64>) -> LlmError {
        LlmError { retry_after_ms: after, ..LlmError::new(kind, "") }
    }

    #[test]
    fn backoff_is_one_two_four_then_stop() {
        let e = err(ErrorKind::RateLimit, None);
        let delays: Vec<_> = (0..4).map(|i| next_delay(i, &e)).collect();
        assert_eq!(delays, [Some(1000), Some(2000), Some(4000), None]);
        assert_eq!(next_delay(0, &err(ErrorKind::Auth, None)), None);
    }

    #[test]
    fn retry_after_lengthens_but_never_shortens() {
        assert_eq!(next_delay(0, &err(ErrorKind::RateLimit, Some(3000))), Some(3000));
        assert_eq!(next_delay(2, &err(ErrorKind::RateLimit, Some(500))), Some(4000));
        assert_eq!(next_delay(0, &err(ErrorKind::RateLimit, Some(MAX_RETRY_AFTER_MS + 1))), None);
    }

    #[test]
    fn retry_after_forms_are_read() {
        assert_eq!(parse_retry_after(None, Some("2"), 0), Some(2000));
        assert_eq!(parse_retry_after(None, Some("1.5"), 0), Some(1500));
        assert_eq!(parse_retry_after(Some("250"), Some("9"), 0), Some(250));
        assert_eq!(parse_retry_after(None, Some("Wed, 21 Oct 2015 07:28:05 GMT"), 1_445_412_480_000), Some(5000));
        assert_eq!(parse_retry_after(None, Some("-3"), 0), None);
        assert_eq!(parse_retry_after(None, Some("later"), 0), None);
        assert_eq!(parse_retry_after(None, None, 0), None);
        assert_eq!(parse_retry_after(Some("12.01"), None, 0), Some(13));
        assert_eq!(parse_retry_after(Some(".5"), None, 0), Some(1));
        assert_eq!(parse_retry_after(None, Some("0.0005"), 0), Some(1));
        assert_eq!(parse_retry_after(None, Some("30."), 0), Some(30_000));
        assert_eq!(parse_retry_after(None, Some("."), 0), None);
        assert_eq!(parse_retry_after(None, Some("99999999999999999999999"), 0), Some(u64::MAX));
    }
}
