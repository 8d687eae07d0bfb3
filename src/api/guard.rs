//! Who may call: programs on this computer with the token. A browser page could otherwise reach
//! a loopback server (cross-site requests, DNS rebinding), so anything that looks like one is
//! refused before the token is even looked at.

use super::{ApiError, ApiRequest};

/// Checks a request's origin, host and token, then its size.
pub(crate) fn admit(request: &ApiRequest, token: &str) -> Result<(), ApiError> {
    // Browsers send Origin on cross-site requests and Sec-Fetch-Site on all of them (to a
    // loopback address too); programs written against this API send neither. (Node's fetch
    // sends Sec-Fetch-Mode, so that one says nothing.)
    if ["origin", "sec-fetch-site"].iter().any(|h| request.header(h).is_some()) {
        return Err(ApiError::BrowserOrigin);
    }
    let host = request.header("host").unwrap_or("");
    if !is_loopback_host(host, request.local_port) {
        return Err(ApiError::ForeignHost(host.to_owned()));
    }
    // The scheme name is case-insensitive (RFC 9110); the token is not.
    let given = request
        .header("authorization")
        .and_then(|v| v.trim().split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map_or("", |(_, token)| token);
    if token.is_empty() || !same_secret(given.trim().as_bytes(), token.as_bytes()) {
        return Err(ApiError::Unauthorized);
    }
    if request.body_too_large {
        return Err(ApiError::TooLarge);
    }
    Ok(())
}

/// `127.0.0.1:<port>`, `localhost:<port>` or `[::1]:<port>` (a name that resolves elsewhere,
/// as in DNS rebinding, is not).
fn is_loopback_host(host: &str, port: u16) -> bool {
    let Some((name, host_port)) = host.rsplit_once(':') else { return false };
    host_port.parse::<u16>().is_ok_and(|p| p == port)
        && matches!(name.to_ascii_lowercase().as_str(), "127.0.0.1" | "localhost" | "[::1]")
}

/// Compares without stopping at the first difference, so timing says nothing about the token.
fn same_secret(given: &[u8], expected: &[u8]) -> bool {
    let mut diff = given.len() ^ expected.len();
    for (i, b) in expected.iter().enumerate() {
        diff |= usize::from(b ^ given.get(i).copied().unwrap_or(0));
    }
    diff == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOKEN: &str = "0123456789abcdef0123456789abcdef";

    fn request(headers: &[(&str, &str)]) -> ApiRequest {
        ApiRequest {
            method: "GET".into(),
            url: "/config".into(),
            headers: headers.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            local_port: 8090,
            ..Default::default()
        }
    }

    #[test]
    fn only_local_programs_with_the_token_get_in() {
        let auth = format!("Bearer {TOKEN}");
        let ok = [("host", "127.0.0.1:8090"), ("authorization", auth.as_str())];
        assert_eq!(admit(&request(&ok), TOKEN), Ok(()));
        assert_eq!(admit(&request(&[("host", "localhost:8090"), ok[1]]), TOKEN), Ok(()));
        assert_eq!(admit(&request(&[("host", "[::1]:8090"), ok[1]]), TOKEN), Ok(()));
        let lower = format!("bearer {TOKEN}");
        assert_eq!(admit(&request(&[ok[0], ("authorization", lower.as_str())]), TOKEN), Ok(()), "scheme in any case");
        let cases: [(&[(&str, &str)], ApiError); 9] = [
            (&[ok[0]], ApiError::Unauthorized),
            (&[ok[0], ("authorization", "Bearer nope")], ApiError::Unauthorized),
            (&[ok[0], ("authorization", TOKEN)], ApiError::Unauthorized),
            (&[ok[0], ("authorization", "Bearer 0123456789abcdef0123456789abcdeX")], ApiError::Unauthorized),
            (&[ok[0], ok[1], ("origin", "https://evil.example")], ApiError::BrowserOrigin),
            (&[ok[0], ok[1], ("sec-fetch-site", "same-origin")], ApiError::BrowserOrigin),
            (&[("host", "evil.example:8090"), ok[1]], ApiError::ForeignHost("evil.example:8090".into())),
            (&[("host", "127.0.0.1:9999"), ok[1]], ApiError::ForeignHost("127.0.0.1:9999".into())),
            (&[ok[1]], ApiError::ForeignHost(String::new())),
        ];
        for (headers, expected) in cases {
            assert_eq!(admit(&request(headers), TOKEN), Err(expected), "{headers:?}");
        }
        assert_eq!(admit(&request(&ok), ""), Err(ApiError::Unauthorized), "no token configured: nobody gets in");
        let big = ApiRequest { body_too_large: true, ..request(&ok) };
        assert_eq!(admit(&big, TOKEN), Err(ApiError::TooLarge));
        let big_stranger = ApiRequest { body_too_large: true, ..request(&[ok[0]]) };
        assert_eq!(admit(&big_stranger, TOKEN), Err(ApiError::Unauthorized), "size is not revealed to strangers");
    }
}
