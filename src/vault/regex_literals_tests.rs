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
    }
}
