//! Random identifiers for conversations, history lines and approval requests, and the file names
//! message ids become.

use crate::host::Host;

/// A fresh id: `prefix` followed by 16 random hex digits (64 bits from the host's random source).
pub(crate) fn new_id<H: Host>(host: &H, prefix: &str) -> String {
    format!("{prefix}{:016x}", host.random_u64())
}

/// Longest file stem [`file_stem`] gives, in bytes. File systems allow 255 bytes a name; the
/// stem also carries `.turn.jsonl`, and an atomic write's temporary name (`.<name>.tmp-<pid>-<n>`)
/// adds some twenty more, so 120 leaves room on every disk.
pub(crate) const MAX_STEM_BYTES: usize = 120;

/// Hex digits of the hash a shortened stem ends with (128 bits of SHA-256).
const HASH_HEX: usize = 32;

/// What joins a shortened stem's readable prefix and its hash. A `~` in an escaped stem is
/// always followed by two upper-case hex digits, so `~x` never occurs in one that was not
/// shortened: the two kinds of stems can never be equal.
const HASH_MARK: &str = "~x";

/// Turns any message id into a safe file name of at most [`MAX_STEM_BYTES`] bytes: ASCII
/// letters, digits, `-` and `_` are kept, every other byte becomes `~XX`. When that is too
/// long (a 200-byte non-ASCII id escapes to 600), the escaped text is cut at an escape's edge
/// and `~x` plus 128 bits of the id's SHA-256 are added. The mapping depends on the id alone, so
/// a re-delivery finds the same file, and two ids never share one (short stems are one-to-one;
/// long ones differ in their hash).
pub(crate) fn file_stem(id: &str) -> String {
    let escaped = escape(id);
    if escaped.len() <= MAX_STEM_BYTES {
        return escaped;
    }
    let keep = MAX_STEM_BYTES - HASH_MARK.len() - HASH_HEX;
    let mut cut = keep;
    // Never split a `~XX` escape: a stem stays readable as escaped text.
    while escaped.as_bytes().get(cut.saturating_sub(2)..cut).is_some_and(|tail| tail.contains(&b'~')) {
        cut -= 1;
    }
    let digest = sha256(id.as_bytes());
    let hash: String = digest[..HASH_HEX / 2].iter().map(|b| format!("{b:02x}")).collect();
    format!("{}{HASH_MARK}{hash}", &escaped[..cut])
}

/// The stem versions before the length bound gave every id: the escaped id, however long. An
/// inbox file left under it by such a version is renamed to [`file_stem`]'s name, not set aside.
pub(crate) fn unbounded_stem(id: &str) -> String {
    escape(id)
}

/// The one-to-one escaping of an id (`~XX` for every byte but `[A-Za-z0-9_-]`).
fn escape(id: &str) -> String {
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

/// SHA-256, for the hash in shortened stems: an id chosen by a sender cannot be made to collide
/// with another one's file, which a plain checksum would allow.
fn sha256(data: &[u8]) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    Sha256::digest(data).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn file_stems_are_safe_and_distinct() {
        assert_eq!(file_stem("msg-1_a"), "msg-1_a");
        assert_eq!(file_stem("../etc/passwd"), "~2E~2E~2Fetc~2Fpasswd");
        assert_eq!(file_stem("a.b"), "a~2Eb");
        assert_ne!(file_stem("a~2E"), file_stem("a."));
        assert_eq!(file_stem("é"), "~C3~A9");
    }

    #[test]
    fn sha256_matches_the_standard_vectors() {
        assert_eq!(hex(&sha256(b"")), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        assert_eq!(hex(&sha256(b"abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        let two_blocks = b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
        assert_eq!(hex(&sha256(two_blocks)), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    }

    #[test]
    fn long_ids_get_short_stems_that_stay_distinct_and_stable() {
        let cases = [
            "é".repeat(100),
            "😀".repeat(50),
            format!("e{}", "\u{301}".repeat(99)),
            "x".repeat(200),
            format!("{}a", "ü".repeat(99)),
            format!("{}b", "ü".repeat(99)),
            format!("{}~", "a".repeat(119)),
        ];
        let stems: Vec<String> = cases.iter().map(|id| file_stem(id)).collect();
        for (id, stem) in cases.iter().zip(&stems) {
            assert!(stem.len() <= MAX_STEM_BYTES, "{} bytes: {stem}", stem.len());
            assert!(stem.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'~'), "{stem}");
            assert_eq!(&file_stem(id), stem, "the same id, the same file");
            // Never cut inside an escape: every `~` is followed by two hex digits or `x`.
            for (i, _) in stem.match_indices('~') {
                let next = &stem[i + 1..];
                assert!(
                    next.starts_with('x') || next.get(..2).is_some_and(|h| h.bytes().all(|b| b.is_ascii_hexdigit())),
                    "{stem}"
                );
            }
        }
        for (i, a) in stems.iter().enumerate() {
            for b in &stems[i + 1..] {
                assert_ne!(a, b);
            }
        }
        // A stem that fits is left as it is; one byte more is shortened.
        assert_eq!(file_stem(&"a".repeat(120)), "a".repeat(120));
        assert!(file_stem(&"a".repeat(121)).contains(HASH_MARK));
    }
}
