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

/// SHA-256 (FIPS 180-4), for the hash in shortened stems: an id chosen by a sender cannot be
/// made to collide with another one's file, which a plain checksum would allow.
fn sha256(data: &[u8]) -> [u8; 32] {
    const K: [u32; 64] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
        0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
        0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
        0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
        0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
        0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
        0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2,
    ];
    let mut h: [u32; 8] =
        [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
    let mut message = data.to_vec();
    message.push(0x80);
    while message.len() % 64 != 56 {
        message.push(0);
    }
    message.extend_from_slice(&((data.len() as u64).wrapping_mul(8)).to_be_bytes());
    for block in message.chunks_exact(64) {
        let mut w = [0u32; 64];
        for (i, word) in block.chunks_exact(4).enumerate() {
            w[i] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16].wrapping_add(s0).wrapping_add(w[i - 7]).wrapping_add(s1);
        }
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut hh] = h;
        for i in 0..64 {
            let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
            let ch = (e & f) ^ (!e & g);
            let t1 = hh.wrapping_add(s1).wrapping_add(ch).wrapping_add(K[i]).wrapping_add(w[i]);
            let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
            let maj = (a & b) ^ (a & c) ^ (b & c);
            let t2 = s0.wrapping_add(maj);
            hh = g;
            g = f;
            f = e;
            e = d.wrapping_add(t1);
            d = c;
            c = b;
            b = a;
            a = t1.wrapping_add(t2);
        }
        for (slot, value) in h.iter_mut().zip([a, b, c, d, e, f, g, hh]) {
            *slot = slot.wrapping_add(value);
        }
    }
    let mut out = [0u8; 32];
    for (chunk, word) in out.chunks_exact_mut(4).zip(h) {
        chunk.copy_from_slice(&word.to_be_bytes());
    }
    out
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
