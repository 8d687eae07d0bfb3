//! A regular expression's literal prefilter (issue 37): the strings every match contains one of
//! (read from the pattern by `regex_literals.rs`), found in a note's whole text with a `memchr`
//! scan for their rarest byte, so the regex runs only on the lines holding one; and, when every
//! match starts with one, the pattern anchored there, so each is tried at one place only.

use super::regex_literals::required_and_starts;

/// How common a byte is in notes (higher: more common), to pick the byte of a literal to scan
/// for: spaces and frequent letters high, punctuation low.
fn commonness(b: u8) -> u8 {
    const LETTERS: &[u8] = b"zqjxkvbpygfwmucldrhsnioate";
    match b {
        b' ' => 255,
        b'a'..=b'z' => 120 + LETTERS.iter().position(|&l| l == b).unwrap_or(0) as u8 * 4,
        b'A'..=b'Z' => 60 + commonness(b.to_ascii_lowercase()) / 4,
        b'0'..=b'9' => 80,
        b'.' | b',' | b'-' | b'\n' | b'\'' | b'"' => 100,
        0x80.. => 20,
        _ => 40,
    }
}

/// The strings a regular expression's every match contains one of, found fast in a text.
#[derive(Debug)]
pub(crate) struct Prefilter {
    /// The literals (ASCII-lowercased when case is ignored), each with the offset of the byte
    /// scanned for.
    literals: Vec<(Vec<u8>, usize)>,
    case_insensitive: bool,
    /// The distinct bytes scanned for (both cases of a letter when case is ignored).
    needles: Vec<u8>,
    /// Whether every match starts with one of the literals (then a line is searched from the
    /// first one on), and the largest offset of a scanned byte in its literal.
    starts: bool,
    deepest: usize,
    /// When every match starts with a literal: the pattern's leading assertions and the rest
    /// anchored, to try a match at one place only ([`Prefilter::with_anchored`]).
    anchored: Option<Box<Anchored>>,
    lead: Option<usize>,
}

/// A pattern split where its first literal run starts: the assertions before it, and the rest
/// anchored at the start of what it is given.
#[derive(Debug)]
struct Anchored {
    lead: Option<regex_lite::Regex>,
    rest: regex_lite::Regex,
}

impl Prefilter {
    /// The prefilter of a pattern, if it has one (see [`required_and_starts`]).
    pub(crate) fn new(pattern: &str, case_insensitive: bool) -> Option<Self> {
        let (set, lead) = required_and_starts(pattern, case_insensitive)?;
        let starts = lead.is_some();
        let mut needles = Vec::new();
        let literals: Vec<(Vec<u8>, usize)> = set
            .into_iter()
            .map(|s| {
                let bytes = s.into_bytes();
                let at = (0..bytes.len()).min_by_key(|&k| commonness(bytes[k])).unwrap_or(0);
                needles.push(bytes[at]);
                if case_insensitive {
                    needles.push(bytes[at].to_ascii_uppercase());
                }
                (bytes, at)
            })
            .collect();
        crate::lean::sort_by(&mut needles, Ord::cmp);
        needles.dedup();
        let deepest = literals.iter().map(|(_, at)| *at).max().unwrap_or(0);
        Some(Prefilter { literals, case_insensitive, needles, starts, deepest, anchored: None, lead })
    }

    /// Where a search for the next match at or after `from` may begin, when every match starts
    /// with a literal: no literal starts between `from` and there. `None` when no match can
    /// start at or after `from`, or when matches do not all start with a literal.
    pub(crate) fn search_from(&self, text: &[u8], from: usize) -> Option<usize> {
        if !self.starts {
            return None;
        }
        Some(self.find(text, from)?.saturating_sub(self.deepest).max(from))
    }

    /// With the anchored forms of `pattern` (compiled within `size_limit`), when every match
    /// starts with a literal: a line is then tried at each literal's start only, where regex-lite
    /// stops as soon as no thread is left, instead of scanning on to the line's end.
    pub(crate) fn with_anchored(mut self, pattern: &str, case_insensitive: bool, size_limit: usize) -> Self {
        let Some(lead) = self.lead.filter(|&lead| pattern.is_char_boundary(lead)) else { return self };
        let build = |p: &str| {
            regex_lite::RegexBuilder::new(p).case_insensitive(case_insensitive).size_limit(size_limit).build().ok()
        };
        let rest = build(&format!(r"\A(?:{})", &pattern[lead..]));
        let lead = if lead == 0 { Some(None) } else { build(&pattern[..lead]).map(Some) };
        if let (Some(lead), Some(rest)) = (lead, rest) {
            self.anchored = Some(Box::new(Anchored { lead, rest }));
        }
        self
    }

    /// Whether matches can be tried at one place ([`Prefilter::match_at`]).
    pub(crate) fn anchors(&self) -> bool {
        self.anchored.is_some()
    }

    /// Where a match starting at `at` (a literal's start) ends, if there is one (`None` without
    /// the anchored forms).
    pub(crate) fn match_at(&self, line: &str, at: usize) -> Option<Option<usize>> {
        let anchored = self.anchored.as_ref()?;
        if !line.is_char_boundary(at) {
            return Some(None);
        }
        if let Some(lead) = &anchored.lead {
            if lead.find_at(line, at).map(|m| m.start()) != Some(at) {
                return Some(None);
            }
        }
        Some(anchored.rest.find(&line[at..]).map(|m| at + m.end()))
    }

    /// Whether a literal starts at `at`.
    pub(crate) fn literal_at(&self, text: &[u8], at: usize) -> bool {
        self.literals.iter().any(|(literal, _)| {
            let Some(there) = text.get(at..at + literal.len()) else { return false };
            if self.case_insensitive {
                there.eq_ignore_ascii_case(literal)
            } else {
                there == literal
            }
        })
    }

    /// The largest offset of a scanned byte in its literal: no literal at or after `from`
    /// starts before [`Prefilter::find`]'s answer less this.
    pub(crate) fn deepest(&self) -> usize {
        self.deepest
    }

    /// Whether every match starts with one of the literals.
    pub(crate) fn starts_matches(&self) -> bool {
        self.starts
    }

    /// Whether a literal holds U+FFFD, which a lossy decoding puts where bytes are not UTF-8
    /// (then raw bytes without a literal may still decode to one).
    pub(crate) fn holds_replacement(&self) -> bool {
        self.literals.iter().any(|(l, _)| l.windows(3).any(|w| w == "\u{FFFD}".as_bytes()))
    }

    /// Where the next needle byte is, at or after `from`.
    fn next_needle(&self, text: &[u8], from: usize) -> Option<usize> {
        let rest = &text[from..];
        let found = match self.needles[..] {
            [a] => memchr::memchr(a, rest),
            [a, b] => memchr::memchr2(a, b, rest),
            [a, b, c] => memchr::memchr3(a, b, c, rest),
            _ => rest.iter().position(|b| self.needles.binary_search(b).is_ok()),
        };
        found.map(|k| from + k)
    }

    /// A position at or after `from` inside an occurrence of one of the literals (none at or
    /// after `from` whose scanned byte comes earlier), if there is one.
    pub(crate) fn find(&self, text: &[u8], from: usize) -> Option<usize> {
        let mut at = from;
        while at < text.len() {
            let hit = self.next_needle(text, at)?;
            for (literal, k) in &self.literals {
                let Some(start) = hit.checked_sub(*k) else { continue };
                let Some(there) = text.get(start..start + literal.len()) else { continue };
                let same = if self.case_insensitive { there.eq_ignore_ascii_case(literal) } else { there == literal };
                if same {
                    return Some(hit);
                }
            }
            at = hit + 1;
        }
        None
    }
}
