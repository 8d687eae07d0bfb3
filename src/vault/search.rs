//! `search_files`: plain text or a regular expression through `regex-lite`, a linear-time engine
//! (no pattern can make it backtrack for ever), over the vault's text files; results ranked and
//! shown with excerpts.
//!
//! Linear is not cheap: regex-lite's cost per byte grows with the compiled pattern (`a{0,1000}b`
//! is a few thousand states, about 300 times the cost of `milk`). So a pattern is weighed when it
//! is compiled (the smallest of a few size limits it fits in), patterns over the largest are
//! refused, and a file is searched a slice of work at a time ([`FileScan`]) so the caller can
//! check its deadline and let the host breathe between slices; a line longer than the pattern's
//! weight allows is searched in its first part only, and the answer says so.

use crate::lean::fold_case;
use regex_lite::{Regex, RegexBuilder};

use super::regex_prefilter::Prefilter;
use super::resolve::VaultEntry;

/// Most excerpts shown per file.
const EXCERPTS_PER_FILE: usize = 3;
/// Longest excerpt, in characters.
const EXCERPT_CHARS: usize = 160;
/// The size limits a pattern is tried against, smallest first; the last one is the largest
/// compiled pattern accepted, in bytes. A pattern's weight is the first that fits, in KB.
const REGEX_SIZE_TIERS: [usize; 5] = [1 << 10, 1 << 12, 1 << 14, 1 << 16, 1 << 18];
/// Work (bytes × weight) one line may cost: about 10 ms natively whatever the pattern. A longer
/// line is searched in its first `LINE_WORK / weight` bytes.
pub(crate) const LINE_WORK: usize = 1 << 17;

/// How the query matches a line.
#[derive(Debug)]
pub(crate) enum Matcher {
    Plain {
        needle: String,
        case_sensitive: bool,
    },
    /// A compiled pattern, its weight (its compiled size in KB, rounded up to a tier), and the
    /// literals every match contains one of (then only the lines holding one are searched).
    Regex(Regex, usize, Option<Prefilter>),
}

impl Matcher {
    /// A plain-text or regex matcher; a bad or too large pattern is an error the model can read.
    pub(crate) fn new(query: &str, regex: bool, case_sensitive: bool) -> Result<Self, String> {
        if query.is_empty() {
            return Err("the query is empty".to_owned());
        }
        if !regex {
            let needle = if case_sensitive { query.to_owned() } else { fold_case(query) };
            return Ok(Matcher::Plain { needle, case_sensitive });
        }
        let mut last = String::new();
        // Compiled sizes count pointers: halved on wasm32, so the tiers are too (the same
        // pattern weighs the same on every host).
        let scale = |limit: usize| limit / 8 * std::mem::size_of::<usize>();
        for tier in REGEX_SIZE_TIERS {
            let limit = scale(tier);
            match RegexBuilder::new(query).case_insensitive(!case_sensitive).size_limit(limit).build() {
                Ok(re) => {
                    let prefilter =
                        Prefilter::new(query, !case_sensitive).map(|p| p.with_anchored(query, !case_sensitive, limit));
                    return Ok(Matcher::Regex(re, tier >> 10, prefilter));
                }
                Err(e) if e.to_string().contains("size limit") => last = e.to_string(),
                Err(e) => return Err(format!("the regular expression is not valid: {e}")),
            }
        }
        Err(format!(
            "the regular expression is too large once compiled ({last}, {} KB at most): counted repetitions such as {{0,1000}} multiply it; use smaller counts, + or *, or a plain-text search",
            REGEX_SIZE_TIERS[REGEX_SIZE_TIERS.len() - 1] >> 10
        ))
    }

    /// What one byte of text costs this matcher, relative to a plain regex.
    pub(crate) fn weight(&self) -> usize {
        match self {
            Matcher::Plain { .. } => 1,
            Matcher::Regex(_, weight, _) => (*weight).max(1),
        }
    }

    /// Most bytes of one line searched (plain text is searched whole: it is fast at any length).
    fn line_limit(&self) -> usize {
        match self {
            Matcher::Plain { .. } => usize::MAX,
            Matcher::Regex(..) => LINE_WORK / self.weight(),
        }
    }

    /// Whether the query matches a note's path (a name match counts on its own). Through the
    /// prefilter, as a line is: a path holding no literal of the pattern is not given to the
    /// regex (half the regex's time in a search of every note, before).
    pub(crate) fn name_matches(&self, path: &str) -> bool {
        match self {
            // A name is one line but for a rare newline in it (then searched whole, as before).
            Matcher::Regex(_, _, Some(prefilter)) if !path.contains('\n') => {
                prefilter.find(path.as_bytes(), 0).is_some() && self.find_in_line(path).0 > 0
            }
            _ => self.find(path).0 > 0,
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
            Matcher::Regex(re, ..) => {
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

impl Matcher {
    /// [`Matcher::find`] on a line of a note. When every match starts with a literal of the
    /// prefilter, the regex searches from each next literal on (regex-lite scans every byte it
    /// is given, at about 70 ns each): no match starts in what it passes over, so it finds the
    /// same matches.
    fn find_in_line(&self, line: &str) -> (usize, Option<usize>) {
        let Matcher::Regex(re, _, Some(prefilter)) = self else { return self.find(line) };
        if !prefilter.starts_matches() {
            return self.find(line);
        }
        let (mut count, mut first, mut at) = (0, None, 0);
        let bytes = line.as_bytes();
        // Tried at each literal's start, the first one a match starts at taken (leftmost).
        if prefilter.anchors() {
            'next: while let Some(hit) = prefilter.find(bytes, at) {
                for start in hit.saturating_sub(prefilter.deepest()).max(at)..=hit {
                    if !prefilter.literal_at(bytes, start) {
                        continue;
                    }
                    if let Some(Some(end)) = prefilter.match_at(line, start) {
                        first.get_or_insert(line[..start].chars().count());
                        count += 1;
                        at = end.max(start + 1);
                        continue 'next;
                    }
                }
                at = hit + 1;
            }
            return (count, first);
        }
        while let Some(mut from) = prefilter.search_from(line.as_bytes(), at) {
            while !line.is_char_boundary(from) {
                from -= 1;
            }
            let Some(m) = re.find_at(line, from) else { break };
            first.get_or_insert(line[..m.start()].chars().count());
            count += 1;
            // A literal is never empty, nor is a match.
            at = m.end().max(m.start() + 1);
            if at >= line.len() {
                break;
            }
        }
        (count, first)
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
    /// The note's size in bytes (its length for BM25).
    pub size: u64,
}

/// BM25's term-frequency saturation and length normalisation.
const BM25_K1: f64 = 1.2;
const BM25_B: f64 = 0.75;

/// What a ranking is computed against: the notes searched, and their average size.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Corpus {
    pub notes: usize,
    pub avg_size: f64,
}

impl FileHit {
    /// Ranking score: BM25 of the query in the note (its matches against its size, the query's
    /// rarity across the notes searched), a name match, and recency. Computed from the hits, the
    /// notes' sizes and their count only, so a scan and the index rank alike.
    pub(crate) fn score(&self, newest_ms: u64, corpus: Corpus, with_matches: usize) -> f64 {
        score(self.matches, self.name_matches, self.size, self.modified_ms, newest_ms, corpus, with_matches)
    }
}

/// [`FileHit::score`] from its parts: the index ranks its counted notes without making a hit of
/// each.
pub(crate) fn score(
    matches: usize,
    name_matches: bool,
    size: u64,
    modified_ms: u64,
    newest_ms: u64,
    corpus: Corpus,
    with_matches: usize,
) -> f64 {
    let age_days = newest_ms.saturating_sub(modified_ms) as f64 / 86_400_000.0;
    let idf = bm25_idf(corpus.notes as f64, with_matches as f64);
    // A match in the name weighs like a note full of matches (BM25's ceiling for the term).
    let name = if name_matches { BM25_K1 + 1.0 } else { 0.0 };
    idf * (bm25_tf(matches as f64, size as f64, corpus.avg_size) + name) + 1.0 / (1.0 + age_days / 30.0)
}

/// BM25's inverse document frequency of a term found in `df` of `notes` notes.
pub(crate) fn bm25_idf(notes: f64, df: f64) -> f64 {
    let n = notes.max(1.0);
    (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
}

/// BM25's weight of `tf` occurrences in a note of `length` where notes average `average` (both
/// in the same unit): what one term adds to a note's score, before its idf.
pub(crate) fn bm25_tf(tf: f64, length: f64, average: f64) -> f64 {
    let norm = 1.0 - BM25_B + BM25_B * length / average.max(1.0);
    tf * (BM25_K1 + 1.0) / (tf + BM25_K1 * norm)
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

/// One file's search under way, a slice of work at a time.
pub(crate) struct FileScan<'t> {
    text: &'t str,
    /// Where the next line starts, and its number (from 0; no longer kept once the excerpts
    /// are all taken, as only they show it).
    at: usize,
    line: usize,
    hit: FileHit,
    /// Lines searched in their first part only (longer than the pattern's weight allows).
    pub(crate) cut_lines: usize,
}

impl<'t> FileScan<'t> {
    /// Starts with the file's name (it counts as a match of its own).
    pub(crate) fn new(matcher: &Matcher, entry: &VaultEntry, text: &'t str) -> Self {
        let name_matches = matcher.name_matches(&entry.path);
        let hit = FileHit {
            path: entry.path.clone(),
            matches: 0,
            name_matches,
            excerpts: Vec::new(),
            modified_ms: entry.modified_ms,
            size: entry.size,
        };
        FileScan { text, at: 0, line: 0, hit, cut_lines: 0 }
    }

    /// The line starting at `at` (as `str::lines` gives it) and where the next one starts.
    fn next_line(&self) -> (&'t str, usize) {
        let rest = &self.text[self.at..];
        match memchr::memchr(b'\n', rest.as_bytes()) {
            Some(k) => (rest[..k].strip_suffix('\r').unwrap_or(&rest[..k]), self.at + k + 1),
            None => (rest, self.text.len()),
        }
    }

    /// Passes over the lines up to `upto` (a line's start, or the end) unsearched: counted, and
    /// those longer than `limit` counted as cut (a scan that searched them would have cut them).
    fn skip_to(&mut self, upto: usize, limit: usize) {
        let skipped = &self.text.as_bytes()[self.at..upto];
        if skipped.len() <= limit {
            // Line numbers only place excerpts: once a note has all its excerpts, or when no line
            // is searched after these (the rest of the note), the lines passed over go uncounted
            // (a byte scan of every note searched, most of it after its last match).
            if self.hit.excerpts.len() < EXCERPTS_PER_FILE && upto < self.text.len() {
                self.line += memchr::memchr_iter(b'\n', skipped).count();
            }
        } else {
            let mut start = 0;
            for end in memchr::memchr_iter(b'\n', skipped) {
                let len = end - start - usize::from(end > start && skipped[end - 1] == b'\r');
                self.cut_lines += usize::from(len > limit);
                self.line += 1;
                start = end + 1;
            }
            self.cut_lines += usize::from(skipped.len() - start > limit);
        }
        self.at = upto;
    }

    /// Searches lines until about `work` (bytes × the matcher's weight) is spent; returns
    /// whether lines remain. With a prefilter, the lines before the next one holding a literal
    /// are passed over at the cost of a byte scan.
    pub(crate) fn step(&mut self, matcher: &Matcher, work: usize) -> bool {
        let (weight, limit) = (matcher.weight(), matcher.line_limit());
        let prefilter = match matcher {
            Matcher::Regex(_, _, prefilter) => prefilter.as_ref(),
            Matcher::Plain { .. } => None,
        };
        let mut spent = 0usize;
        while self.at < self.text.len() {
            if let Some(prefilter) = prefilter {
                let bytes = self.text.as_bytes();
                let next = match prefilter.find(bytes, self.at) {
                    Some(hit) => memchr::memrchr(b'\n', &bytes[self.at..hit]).map_or(self.at, |k| self.at + k + 1),
                    None => bytes.len(),
                };
                spent = spent.saturating_add(next - self.at);
                self.skip_to(next, limit);
                if self.at >= self.text.len() {
                    break;
                }
            }
            let (line, next) = self.next_line();
            let n = self.line;
            (self.at, self.line) = (next, n + 1);
            let mut end = line.len().min(limit);
            while !line.is_char_boundary(end) {
                end -= 1;
            }
            if end < line.len() {
                self.cut_lines += 1;
            }
            let line = &line[..end];
            spent = spent.saturating_add(line.len().max(1).saturating_mul(weight));
            let (count, first) = matcher.find_in_line(line);
            if count > 0 {
                self.hit.matches += count;
                if self.hit.excerpts.len() < EXCERPTS_PER_FILE {
                    self.hit.excerpts.push((n + 1, excerpt(line, first.unwrap_or(0))));
                }
            }
            if spent >= work {
                return true;
            }
        }
        false
    }

    /// What matched, if anything.
    pub(crate) fn finish(self) -> Option<FileHit> {
        (self.hit.matches > 0 || self.hit.name_matches).then_some(self.hit)
    }
}

/// A note's answer from its raw bytes, when they show that no line can match: the pattern has a
/// prefilter and no literal of it is in them (a lossy decoding keeps every valid character and
/// adds only U+FFFD, so it adds no literal that does not hold one), and the note is too short
/// for a decoded line to be cut (a bad byte decodes to at most 3). `None`: decode it and scan.
/// A search thus decodes only the notes that may match (issue 37).
pub(crate) fn settle_raw(matcher: &Matcher, entry: &VaultEntry, bytes: &[u8]) -> Option<Option<FileHit>> {
    let Matcher::Regex(_, _, Some(prefilter)) = matcher else { return None };
    let short = bytes.len().saturating_mul(3) <= matcher.line_limit();
    if !short || prefilter.holds_replacement() || prefilter.find(bytes, 0).is_some() {
        return None;
    }
    Some(FileScan::new(matcher, entry, "").finish())
}

/// Matches a file's name and text, in one go.
#[cfg(test)]
pub(crate) fn search_file(matcher: &Matcher, entry: &VaultEntry, text: &str) -> Option<FileHit> {
    let mut scan = FileScan::new(matcher, entry, text);
    while scan.step(matcher, usize::MAX) {}
    scan.finish()
}

/// Best first.
pub(crate) fn rank(hits: &mut Vec<FileHit>, corpus: Corpus) {
    let newest = hits.iter().map(|h| h.modified_ms).max().unwrap_or(0);
    let with = hits.iter().filter(|h| h.matches > 0).count();
    // Each score computed once (thousands of hits: a comparison must not recompute them).
    let mut scored: Vec<(f64, FileHit)> = hits.drain(..).map(|h| (h.score(newest, corpus, with), h)).collect();
    crate::lean::sort_by(&mut scored, |(sa, a), (sb, b)| {
        sb.partial_cmp(sa).unwrap_or(std::cmp::Ordering::Equal).then_with(|| a.path.cmp(&b.path))
    });
    hits.extend(scored.into_iter().map(|(_, h)| h));
}

#[cfg(test)]
#[path = "search_tests.rs"]
mod tests;
