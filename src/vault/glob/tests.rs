//! The glob matcher's tests: what a pattern matches, what it refuses, and its cost bounded.

use super::*;

#[test]
fn globs_match_as_expected() {
    assert!(matches("**/*.md", "Notes/Plan.md"));
    assert!(matches("**/*.md", "Plan.md"));
    assert!(matches("*.md", "Plan.md"));
    assert!(!matches("*.md", "Notes/Plan.md"));
    assert!(matches("Daily/2026-*.md", "Daily/2026-11-20.md"));
    assert!(matches("daily/*", "Daily/x.md"), "no case");
    assert!(matches("**/*.{md,txt}", "a/b/c.txt"));
    assert!(matches("Notes/**", "Notes/a/b.md"));
    assert!(matches("?lan.md", "Plan.md"));
    assert!(matches("[pq]lan.md", "plan.md"));
    assert!(!matches("[!p]lan.md", "plan.md"));
    assert!(matches("[a-z]*.md", "x.md"));
    assert!(!matches("**/*.md", "Notes/image.png"));
    // Many stars against a long name: still fast.
    let name = "a".repeat(5_000);
    assert!(!matches(&"*a".repeat(50).chars().chain("b".chars()).collect::<String>(), &name));
}

#[test]
fn folders_braces_and_edges() {
    assert!(matches("Notes/**", "Notes"), "** may be no folder at all");
    assert!(matches("a/**/b.md", "a/b.md"));
    assert!(matches("a/**/b.md", "a/x/y/b.md"));
    assert!(!matches("a/**/b.md", "a/xb.md"));
    assert!(matches("**", "a/b/c.md"));
    assert!(matches("/Notes//Plan.md", "Notes/Plan.md"), "empty names ignored");
    assert!(matches("{Daily/*,Notes/**}", "Notes/a/b.md"), "alternatives may hold folders");
    assert!(matches("{Daily/*,Notes/**}", "Daily/x.md"));
    assert!(!matches("{Daily/*,Notes/**}", "Daily/a/x.md"));
    assert!(matches("x.{md,{txt,csv}}", "x.csv"), "nested braces");
    assert!(!matches("x.{md,{txt,csv}}", "x.pdf"));
    assert!(matches("a{,b}.md", "a.md"), "an empty alternative");
    assert!(matches("{a,b", "{a,b"), "an unclosed brace is a character");
    assert!(matches("a}b", "a}b"));
    assert!(matches("[ab", "[ab"), "an unclosed class is a character");
    assert!(!matches("*", "a/b"), "* stays within a name");
    assert!(matches("a**b", "axxb"), "** inside a name is a *");
    assert!(!matches("a**b", "ax/xb"));
    assert!(matches("é*.md", "Été.md"));
}

#[test]
fn hostile_globs_are_cheap_or_refused() {
    // Ten brace groups of four: 4^10 ≈ a million patterns if expanded; here 40 alternatives.
    let ten = "{a,b,c,d}".repeat(10) + "*.md";
    let started = std::time::Instant::now();
    assert!(matches(&ten, "abcdabcdab.md"));
    assert!(!matches(&ten, "abcdabcdaz.md"));
    let many_folders = "**/".repeat(50) + "*.md";
    let deep = "d/".repeat(200) + "x.md";
    assert!(matches(&many_folders, &deep));
    assert!(!matches(&(many_folders.clone() + "x"), &deep));
    let stars = "*".repeat(900) + "b";
    assert!(!matches(&stars, &"a".repeat(2_000)));
    // Not a benchmark: expansion or backtracking would take minutes here.
    assert!(started.elapsed().as_secs() < 30, "took {:?}", started.elapsed());
    assert_eq!(Glob::new(&"a".repeat(1_001)).unwrap_err(), GlobError::Long(1_001));
    assert_eq!(Glob::new(&"{a,b}".repeat(33)).unwrap_err(), GlobError::Braces(33));
    let nested = "{a,".repeat(9) + &"}".repeat(9);
    assert_eq!(Glob::new(&nested).unwrap_err(), GlobError::Deep(9));
    assert!(Glob::new(&"{a,b}".repeat(32)).is_ok());
}
