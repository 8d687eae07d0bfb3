//! The literal prefilter never changes an answer: over random patterns and texts, a search
//! with it finds what the same search without it finds, and what a line-by-line search
//! (`str::lines`, the regex on every line) finds; long lines it passes over are still counted.

use crate::vault::search::{search_file, FileHit, Matcher};
use crate::vault::VaultEntry;
use proptest::prelude::*;

const PIECES: &[&str] = &[
    "a", "b", "ab", "A", "é", "É", "_", " ", "[", "]", r"\[", r"\]", r"\|", r"\.", ".", r"\w", r"\b", r"\s", "[^\\]|]",
    "[ab]", "(", ")", "(?:", "|", "?", "*", "+", "{1,2}", "{0}", "{2}", "^", "$", "\r",
];
const TEXT: &[&str] = &["a", "b", "A", "B", "é", "É", "_", " ", "[", "]", "|", ".", "\n", "\r\n", "\r", "ab", "[["];

#[test]
fn long_lines_passed_over_are_still_counted_as_cut() {
    use crate::vault::search::FileScan;
    let with = Matcher::new("a{0,1000}b", true, true).unwrap();
    let Matcher::Regex(re, weight, Some(_)) = &with else { panic!("a prefilter for b") };
    let without = Matcher::Regex(re.clone(), *weight, None);
    let long = "x".repeat(crate::vault::search::LINE_WORK / weight + 1);
    let text = format!("{long}\r\nab\n{long}b\nnone\n{long}");
    let entry = VaultEntry { path: "n.md".into(), ..VaultEntry::default() };
    let run = |m: &Matcher| {
        let mut scan = FileScan::new(m, &entry, &text);
        while scan.step(m, 1) {}
        let cut = scan.cut_lines;
        (cut, scan.finish().map(|h| (h.matches, h.excerpts.iter().map(|e| e.0).collect::<Vec<_>>())))
    };
    assert_eq!(run(&with), (3, Some((1, vec![2]))));
    assert_eq!(run(&with), run(&without));
}

/// The old scan, line by line with `str::lines` (no prefilter).
fn line_by_line(re: &regex_lite::Regex, text: &str) -> (usize, Vec<usize>) {
    let mut matches = 0;
    let mut lines = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let count = re.find_iter(line).count();
        matches += count;
        if count > 0 && lines.len() < 3 {
            lines.push(n + 1);
        }
    }
    (matches, lines)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]
    #[test]
    fn a_prefiltered_search_finds_what_a_full_one_does(
        pattern in prop::collection::vec(prop::sample::select(PIECES), 1..7).prop_map(|p| p.concat()),
        text in prop::collection::vec(prop::sample::select(TEXT), 0..80).prop_map(|t| t.concat()),
        name in prop::collection::vec(prop::sample::select(TEXT), 0..8).prop_map(|t| t.concat()),
        case_sensitive in any::<bool>(),
    ) {
        let Ok(with) = Matcher::new(&pattern, true, case_sensitive) else { return Ok(()) };
        let Matcher::Regex(re, weight, prefilter) = &with else { unreachable!() };
        let without = Matcher::Regex(re.clone(), *weight, None);
        let entry = VaultEntry { path: "n.md".into(), ..VaultEntry::default() };
        let found = |m: &Matcher| search_file(m, &entry, &text).map(|h: FileHit| (h.matches, h.excerpts));
        let (a, b) = (found(&with), found(&without));
        prop_assert_eq!(&a, &b, "pattern {:?} prefilter {:?}", pattern, prefilter);
        let (matches, lines) = line_by_line(re, &text);
        let a = a.unwrap_or_default();
        prop_assert_eq!((a.0, a.1.iter().map(|e| e.0).collect::<Vec<_>>()), (matches, lines));
        // A note's name is matched through the prefilter too.
        prop_assert_eq!(with.name_matches(&name), re.is_match(&name), "pattern {:?} name {:?}", pattern, name);
    }
}

/// Pieces of a note's raw bytes: text, and bytes a lossy decoding turns into U+FFFD.
const RAW: &[&[u8]] = &[
    b"a",
    b"b",
    b"A",
    b"[",
    b"[[",
    b"]",
    b"|",
    b"\n",
    b"\r\n",
    b" ",
    "é".as_bytes(),
    "\u{FFFD}".as_bytes(),
    b"\xFF",
    b"\xC3",
    b"\xE2\x82",
    b"\xEF\xBF",
    b"\x80",
];
const RAW_PATTERNS: &[&str] = &["a", "ab", r"\[\[", "é", "\u{FFFD}", "a\u{FFFD}", "(a|b)b", r"\[\[[^\]|]+\|", "b+"];

#[test]
fn a_note_without_a_literal_is_settled_from_its_bytes_unless_a_literal_may_come_from_decoding() {
    use crate::vault::search::settle_raw;
    let entry = |p: &str| VaultEntry { path: p.into(), ..VaultEntry::default() };
    let m = Matcher::new(r"\[\[", true, true).unwrap();
    assert_eq!(settle_raw(&m, &entry("n.md"), b"no link \xFF here"), Some(None));
    assert_eq!(settle_raw(&m, &entry("[[n.md"), b"none").map(|h| h.map(|h| h.name_matches)), Some(Some(true)));
    assert_eq!(settle_raw(&m, &entry("n.md"), b"a [[link"), None);
    let bad = Matcher::new("a\u{FFFD}", true, true).unwrap();
    assert_eq!(settle_raw(&bad, &entry("n.md"), b"a\xFF"), None, "decoded, it holds the literal");
    let plain = Matcher::new("a", false, true).unwrap();
    assert_eq!(settle_raw(&plain, &entry("n.md"), b"b"), None, "plain text has no prefilter");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]
    /// What a note's raw bytes settle is what its lossily decoded text gives when searched.
    #[test]
    fn what_raw_bytes_settle_is_what_the_decoded_text_gives(
        pattern in prop::sample::select(RAW_PATTERNS),
        raw in prop::collection::vec(prop::sample::select(RAW), 0..40).prop_map(|t| t.concat()),
        name in prop::sample::select(&["n.md", "ab.md", "[[x.md"][..]),
        case_sensitive in any::<bool>(),
    ) {
        use crate::vault::search::{settle_raw, FileScan};
        let m = Matcher::new(pattern, true, case_sensitive).unwrap();
        let entry = VaultEntry { path: name.into(), ..VaultEntry::default() };
        let text = String::from_utf8_lossy(&raw);
        let mut scan = FileScan::new(&m, &entry, &text);
        while scan.step(&m, usize::MAX) {}
        prop_assert_eq!(scan.cut_lines, 0);
        let decoded = scan.finish();
        if let Some(settled) = settle_raw(&m, &entry, &raw) {
            prop_assert_eq!(settled, decoded, "pattern {:?} raw {:?}", pattern, raw);
        }
    }
}
