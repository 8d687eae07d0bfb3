//! `search_files`: plain text or a regular expression through `regex-lite`, a linear-time engine
//! (no pattern can make it backtrack for ever), over the vault's text files; results ranked and
//! shown with excerpts.

use crate::lean::fold_case;
use regex_lite::{Regex, RegexBuilder};

use super::resolve::VaultEntry;

/// Most excerpts shown per file.
const EXCERPTS_PER_FILE: usize = 3;
/// Longest excerpt, in characters.
const EXCERPT_CHARS: usize = 160;
/// Largest compiled pattern accepted, in bytes.
const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// How the query matches a line.
#[derive(Debug)]
pub(crate) enum Matcher {
    Plain { needle: String, case_sensitive: bool },
    Regex(Regex),
}

impl Matcher {
    /// A plain-text or regex matcher; a bad pattern is an error the model can read.
    pub(crate) fn new(query: &str, regex: bool, case_sensitive: bool) -> Result<Self, String> {
        if query.is_empty() {
            return Err("the query is empty".to_owned());
        }
        if regex {
            RegexBuilder::new(query)
                .case_insensitive(!case_sensitive)
                .size_limit(REGEX_SIZE_LIMIT)
                .build()
                .map(Matcher::Regex)
                .map_err(|e| format!("the regular expression is not valid: {e}"))
        } else {
            let needle = if case_sensitive { query.to_owned() } else { fold_case(query) };
            Ok(Matcher::Plain { needle, case_sensitive })
        }
    }

    /// Where the query matches in a line (byte offsets of the first match), and how many times.
    fn find(&self, line: &str) -> (usize, Option<usize>) {
        match self {
            Matcher::Plain { needle, case_sensitive } => {
                let haystack = if *case_sensitive { line.to_owned() } else { fold_case(line) };
                let count = haystack.matches(needle.as_str()).count();
                // Offsets of the lower-cased line may differ from the original's: excerpt from a
                // char position instead.
                let first = haystack.find(needle.as_str()).map(|b| haystack[..b].chars().count());
                (count, first)
            }
            Matcher::Regex(re) => {
                let mut count = 0;
                let mut first = None;
                for m in re.find_iter(line) {
                    first.get_or_insert(line[..m.start()].chars().count());
                    count += 1;
                }
                (count, first)
            }
        }
    }
}

/// What matched in one file.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FileHit {
    pub path: String,
    pub matches: usize,
    pub name_matches: bool,
    /// (line number, excerpt)
    pub excerpts: Vec<(usize, String)>,
    pub modified_ms: u64,
}

impl FileHit {
    /// Ranking score: matches (diminishing), a name match, and recency.
    pub(crate) fn score(&self, newest_ms: u64) -> f64 {
        let age_days = newest_ms.saturating_sub(self.modified_ms) as f64 / 86_400_000.0;
        (1.0 + self.matches as f64).ln() * 2.0
            + if self.name_matches { 3.0 } else { 0.0 }
            + 1.0 / (1.0 + age_days / 30.0)
    }
}

fn excerpt(line: &str, at_char: usize) -> String {
    let chars: Vec<char> = line.trim_end().chars().collect();
    if chars.len() <= EXCERPT_CHARS {
        return chars.into_iter().collect();
    }
    let start = at_char.saturating_sub(EXCERPT_CHARS / 3).min(chars.len() - EXCERPT_CHARS);
    let body: String = chars[start..start + EXCERPT_CHARS].iter().collect();
    format!("{}{body}{}", if start > 0 { "…" } else { "" }, if start + EXCERPT_CHARS < chars.len() { "…" } else { "" })
}

/// Matches a file's name and text.
pub(crate) fn search_file(matcher: &Matcher, entry: &VaultEntry, text: &str) -> Option<FileHit> {
    let (name_count, _) = matcher.find(&entry.path);
    let mut hit = FileHit {
        path: entry.path.clone(),
        matches: 0,
        name_matches: name_count > 0,
        excerpts: Vec::new(),
        modified_ms: entry.modified_ms,
    };
    for (n, line) in text.lines().enumerate() {
        let (count, first) = matcher.find(line);
        if count == 0 {
            continue;
        }
        hit.matches += count;
        if hit.excerpts.len() < EXCERPTS_PER_FILE {
            hit.excerpts.push((n + 1, excerpt(line, first.unwrap_or(0))));
        }
    }
    (hit.matches > 0 || hit.name_matches).then_some(hit)
}

/// Best first.
pub(crate) fn rank(hits: &mut [FileHit]) {
    let newest = hits.iter().map(|h| h.modified_ms).max().unwrap_or(0);
    crate::lean::sort_by(hits, |a, b| {
        b.score(newest)
            .partial_cmp(&a.score(newest))
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| a.path.cmp(&b.path))
    });
}

#[cfg(test)]
mod tests {
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
        rank(&mut hits);
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
}
