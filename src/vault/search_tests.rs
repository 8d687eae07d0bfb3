//! `search.rs`'s unit tests: plain and regex matches, excerpts, ranking, weighed patterns.

use super::*;

fn entry(path: &str, modified_ms: u64) -> VaultEntry {
    VaultEntry { path: path.into(), modified_ms, ..VaultEntry::default() }
}

#[test]
fn plain_and_regex_search_with_excerpts_and_ranking() {
    let m = Matcher::new("milk", false, false).unwrap();
    let a = search_file(&m, &entry("Shopping.md", 10), "- Milk\n- eggs\n- oat milk\n").unwrap();
    assert_eq!((a.matches, a.excerpts.clone()), (2, vec![(1, "- Milk".into()), (3, "- oat milk".into())]));
    let b = search_file(&m, &entry("Milk facts.md", 0), "nothing here").unwrap();
    assert!(b.name_matches && b.matches == 0);
    assert!(search_file(&m, &entry("Other.md", 0), "tea").is_none());
    let mut hits = vec![a.clone(), b.clone()];
    rank(&mut hits, Corpus { notes: 3, avg_size: 20.0 });
    assert_eq!(hits[0].path, "Milk facts.md", "a name match ranks high");
    let re = Matcher::new(r"\b\d{4}-\d{2}-\d{2}\b", true, false).unwrap();
    let dates = search_file(&re, &entry("Log.md", 0), "on 2026-11-20 and 2026-11-21\nnone").unwrap();
    assert_eq!(dates.matches, 2);
    assert!(Matcher::new("(unclosed", true, false).unwrap_err().contains("not valid"));
    assert!(Matcher::new("", false, false).is_err());
}

#[test]
fn a_pattern_that_backtracks_badly_elsewhere_returns_quickly() {
    // Catastrophic for backtracking engines (JS, PCRE): (a+)+$ against "aaaa…b".
    let re = Matcher::new("(a+)+$", true, true).unwrap();
    let text = format!("{}b", "a".repeat(50_000));
    let started = std::time::Instant::now();
    assert!(search_file(&re, &entry("x.md", 0), &text).is_none());
    let nested = Matcher::new("(a|aa)*c", true, true).unwrap();
    assert!(search_file(&nested, &entry("x.md", 0), &text).is_none());
    // Not a benchmark: a backtracking engine needs about 2^50000 steps here and would never
    // return; a linear one returns in milliseconds. The bound only tells the two apart.
    assert!(started.elapsed().as_secs() < 30, "took {:?}", started.elapsed());
}

#[test]
fn long_lines_are_cut_around_the_match() {
    let m = Matcher::new("needle", false, true).unwrap();
    let line = format!("{}needle{}", "x".repeat(500), "y".repeat(500));
    let hit = search_file(&m, &entry("x.md", 0), &line).unwrap();
    let shown = &hit.excerpts[0].1;
    assert!(shown.contains("needle") && shown.starts_with('…') && shown.ends_with('…'));
    assert!(shown.chars().count() <= EXCERPT_CHARS + 2);
}

#[test]
fn heavy_patterns_are_weighed_refused_or_cut() {
    let light = Matcher::new("milk", true, false).unwrap();
    assert_eq!(light.weight(), 1);
    let heavy = Matcher::new("a{0,1000}b", true, true).unwrap();
    assert!(heavy.weight() >= 64, "weight {}", heavy.weight());
    for hostile in ["(a{0,100}){0,100}b", "a{0,1000}{0,1000}", "(?:\\w{0,500}){0,50}"] {
        let e = Matcher::new(hostile, true, true).unwrap_err();
        assert!(e.contains("too large") && e.contains("plain-text"), "{hostile}: {e}");
    }
    // One long line: searched in its first LINE_WORK / weight bytes, and counted as cut.
    let line = format!("{}b", "a".repeat(100_000));
    let mut scan = FileScan::new(&heavy, &entry("x.md", 0), &line);
    assert!(!scan.step(&heavy, usize::MAX));
    assert_eq!(scan.cut_lines, 1);
    // Slices: a small budget returns after one line.
    let text = "ab\n".repeat(10);
    let mut scan = FileScan::new(&heavy, &entry("x.md", 0), &text);
    assert!(scan.step(&heavy, 1));
    while scan.step(&heavy, 1) {}
    assert_eq!(scan.finish().unwrap().matches, 10);
}
