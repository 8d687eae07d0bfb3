//! `regex_literals.rs`'s unit tests: the literal sets read from patterns, and whether matches
//! start with them.

use super::*;
use crate::vault::regex_prefilter::Prefilter;

fn need(pattern: &str, ci: bool) -> Option<Vec<String>> {
    required_any(pattern, ci)
}

#[test]
fn literal_sets_of_patterns() {
    let v = |s: &[&str]| Some(s.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    assert_eq!(need(r"\[\[[^\]|]+\|[^\]]+\]\]", false), v(&["[["]));
    assert_eq!(need(r"ForeignKey\(\w+", false), v(&["ForeignKey("]));
    assert_eq!(need(r"ForeignKey\(\w+", true), v(&["foreignkey("]));
    assert_eq!(need(r"\b(get|set)_\w+_(id|name)\b", true), v(&["get_", "set_"]));
    assert_eq!(need("colou?r", false), v(&["colo"]));
    assert_eq!(need("(a|b)c(d|e)", false), v(&["acd", "ace", "bcd", "bce"]));
    assert_eq!(need("x(?:ab)+y", false), v(&["ab"]));
    assert_eq!(need("(?P<n>abc)|(?<m>de)", false), v(&["abc", "de"]));
    assert_eq!(need("[]a]bcd[[:alpha:]]ef", false), v(&["bcd"]));
    assert_eq!(need("a{2,3}b", false), v(&["a"]));
    assert_eq!(need("ab{0}c", false), v(&["a"]));
    // Whether every match starts with one of them (then a line is searched from there on).
    let starts = |p: &str| Prefilter::new(p, false).is_some_and(|f| f.starts_matches());
    for yes in [r"\[\[[^\]|]+\|[^\]]+\]\]", r"ForeignKey\(\w+", r"\b(get|set)_\w+_(id|name)\b", r"^\bab?", "abc"] {
        assert!(starts(yes), "{yes}");
    }
    for no in [r"\w+_(id|name)", "a?bcd", "(?:x|yz)*abc", "ab|cd", r"x\bab", "(ab)+c\\w"] {
        assert!(!starts(no), "{no}");
    }
    // Nothing plainly required, or beyond the reader: no prefilter.
    for none in [r"\w+", "a|", "(a|b*)", "(?i)abc", r"\x41", r"\p{L}", "(ab)?", r"\b{start}x", "a{,3}"] {
        assert_eq!(need(none, false), None, "{none}");
    }
}
