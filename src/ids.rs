//! Random identifiers for conversations, history lines and approval requests.

use crate::host::Host;

/// A fresh id: `prefix` followed by 16 random hex digits (64 bits from the host's random source).
pub(crate) fn new_id<H: Host>(host: &H, prefix: &str) -> String {
    format!("{prefix}{:016x}", host.random_u64())
}

/// Turns any message id into a safe file name: ASCII letters, digits, `-` and `_` are kept,
/// every other byte becomes `~XX`. The mapping is one-to-one, so two ids never share a file.
pub(crate) fn file_stem(id: &str) -> String {
    let mut out = String::with_capacity(id.len());
    for b in id.bytes() {
        if b.is_ascii_alphanumeric() || b == b'-' || b == b'_' {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("~{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_stems_are_safe_and_distinct() {
        assert_eq!(file_stem("msg-1_a"), "msg-1_a");
        assert_eq!(file_stem("../etc/passwd"), "~2E~2E~2Fetc~2Fpasswd");
        assert_eq!(file_stem("a.b"), "a~2Eb");
        assert_ne!(file_stem("a~2E"), file_stem("a."));
        assert_eq!(file_stem("é"), "~C3~A9");
    }
}
