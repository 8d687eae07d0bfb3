//! A regular expression's literals, read from the pattern: a set of strings every match contains
//! one of, and whether every match starts with one — the prefilter (`regex_prefilter.rs`) finds them in a note's whole text with a `memchr` scan for their rarest byte, so
//! the regex runs only on the lines holding one (issue 37: regex-lite has no literal
//! optimisations of its own and costs about 70 ns a byte on any line; `memchr` a few tenths of
//! one). `regex` has these built in, at about 10x regex-lite's wasm size.
//!
//! The reading is conservative: whatever it does not understand (inline flags, `\x`/`\u`/`\p`
//! escapes, a counted repetition it cannot parse) gives no prefilter, and then every line is
//! searched, as before. Literals follow regex-lite's rules: case-insensitivity is ASCII only.

/// Most strings in one set (a cross product or an alternation past it is not a literal set).
const MOST_STRINGS: usize = 16;
/// Longest literal kept (a longer run is cut: a prefix of a required string is required too).
const LONGEST: usize = 64;

/// What a part of a pattern tells: the strings it matches exactly (a finite set), and a set of
/// strings every match of it contains one of.
#[derive(Debug, Clone, Default)]
struct Info {
    exact: Option<Vec<String>>,
    need: Option<Vec<String>>,
}

impl Info {
    /// The set every match contains one of: its own, else its exact strings if none is empty.
    fn need(&self) -> Option<Vec<String>> {
        self.need.clone().or_else(|| self.exact.clone().filter(|set| set.iter().all(|s| !s.is_empty())))
    }
}

/// The better of two required sets: longer shortest string, then fewer strings.
fn better(a: Option<Vec<String>>, b: Vec<String>) -> Option<Vec<String>> {
    let key = |set: &[String]| (set.iter().map(String::len).min().unwrap_or(0), usize::MAX - set.len());
    match a {
        Some(a) if key(&a) >= key(&b) => Some(a),
        _ => Some(b),
    }
}

/// A pattern being read, a character at a time.
struct Reader {
    chars: Vec<char>,
    at: usize,
    case_insensitive: bool,
    /// Groups the reader is in (0: the pattern's top level).
    depth: u32,
    /// The strings every match starts with one of (the top level's first literal run, with only
    /// zero-width assertions before it), once settled (`None` inside: not known).
    starts: Option<Option<Vec<String>>>,
    /// Where the top level's leading assertions end (chars), before the run `starts` tells.
    lead: usize,
}

impl Reader {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn eat(&mut self, c: char) -> bool {
        let found = self.peek() == Some(c);
        self.at += usize::from(found);
        found
    }

    /// Branches separated by `|`, up to a `)` or the end.
    fn alternation(&mut self) -> Option<Info> {
        let mut branches = vec![self.concat()?];
        while self.eat('|') {
            branches.push(self.concat()?);
        }
        if branches.len() == 1 {
            return branches.pop();
        }
        if self.depth == 0 {
            // Matches start in one branch or another: not told here.
            self.starts = Some(None);
        }
        let union = |sets: Vec<Option<Vec<String>>>| -> Option<Vec<String>> {
            let mut all: Vec<String> = Vec::new();
            for set in sets {
                all.extend(set?);
            }
            crate::lean::sort_by(&mut all, Ord::cmp);
            all.dedup();
            (all.len() <= MOST_STRINGS).then_some(all)
        };
        let exact = union(branches.iter().map(|b| b.exact.clone()).collect());
        let need = union(branches.iter().map(Info::need).collect());
        Some(Info { exact, need })
    }

    /// Atoms with their repetitions, up to a `|`, a `)` or the end.
    fn concat(&mut self) -> Option<Info> {
        let mut run: Option<Vec<String>> = Some(vec![String::new()]);
        let mut exact = true;
        let mut need: Option<Vec<String>> = None;
        let flush = |run: &mut Option<Vec<String>>, need: &mut Option<Vec<String>>| {
            if let Some(set) = run.take().filter(|set| set.iter().all(|s| !s.is_empty())) {
                *need = better(need.take(), set);
            }
        };
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            let from = self.at;
            let atom = self.atom()?;
            let atom = self.repetition(atom)?;
            let read: String = self.chars[from..self.at].iter().collect();
            let zero_width = matches!(read.as_str(), "^" | "$" | r"\b" | r"\B" | r"\A" | r"\z");
            match (&atom.exact, run.as_mut()) {
                (Some(strings), Some(current)) => {
                    let product: Vec<String> =
                        current.iter().flat_map(|a| strings.iter().map(move |b| format!("{a}{b}"))).collect();
                    if product.len() <= MOST_STRINGS && product.iter().all(|s| s.len() <= LONGEST) {
                        *current = product;
                    } else {
                        exact = false;
                        self.settle_starts(&run, false);
                        flush(&mut run, &mut need);
                        run = Some(strings.clone());
                    }
                }
                (Some(strings), None) => run = Some(strings.clone()),
                (None, _) => {
                    exact = false;
                    self.settle_starts(&run, zero_width);
                    flush(&mut run, &mut need);
                    if let Some(set) = atom.need() {
                        need = better(need, set);
                    }
                }
            }
        }
        let whole = if exact { run.clone() } else { None };
        self.settle_starts(&run, false);
        flush(&mut run, &mut need);
        Some(Info { exact: whole, need })
    }

    /// At the top level, where a literal run ends (`run`, `None` after an atom that is not a
    /// literal) before an atom that is not one (`zero_width`: an assertion, which consumes
    /// nothing): the run, if it is the first thing a match consumes, is what every match starts
    /// with one of; past anything else, nothing is.
    fn settle_starts(&mut self, run: &Option<Vec<String>>, zero_width: bool) {
        if self.depth > 0 || self.starts.is_some() {
            return;
        }
        match run {
            Some(set) if set.iter().all(|s| !s.is_empty()) => self.starts = Some(Some(set.clone())),
            Some(set) if zero_width && set.iter().all(String::is_empty) => self.lead = self.at,
            None if zero_width => self.lead = self.at,
            _ => self.starts = Some(None),
        }
    }

    /// One atom: a literal, an escape, a class, a group or `.`/`^`/`$`.
    fn atom(&mut self) -> Option<Info> {
        let c = self.peek()?;
        self.at += 1;
        match c {
            '\\' => {
                let e = self.peek()?;
                self.at += 1;
                match e {
                    // Escapes with arguments (and classes by name): beyond this reader.
                    'x' | 'u' | 'U' | 'p' | 'P' => None,
                    'b' | 'B' if self.peek() == Some('{') => None,
                    e if e.is_ascii_alphanumeric() || e == '<' || e == '>' || e == '\n' => Some(Info::default()),
                    e => Some(self.literal(e)),
                }
            }
            '[' => {
                self.class()?;
                Some(Info::default())
            }
            '(' => {
                if self.eat('?') {
                    if self.eat('P') && self.peek() != Some('<') {
                        return None;
                    }
                    if self.eat('<') {
                        while !self.eat('>') {
                            self.peek()?;
                            self.at += 1;
                        }
                    } else if !self.eat(':') {
                        return None; // inline flags
                    }
                }
                self.depth += 1;
                let inner = self.alternation()?;
                self.depth -= 1;
                self.eat(')').then_some(inner)
            }
            '.' | '^' | '$' | '\n' => Some(Info::default()),
            '*' | '+' | '?' | '{' | ')' | ']' => None,
            c => Some(self.literal(c)),
        }
    }

    fn literal(&self, c: char) -> Info {
        let c = if self.case_insensitive { c.to_ascii_lowercase() } else { c };
        Info { exact: Some(vec![c.to_string()]), need: None }
    }

    /// Skips a bracketed class (nested ones too; a `]` first in one is literal).
    fn class(&mut self) -> Option<()> {
        let mut depth = 1;
        let mut first = true;
        while depth > 0 {
            let c = self.peek()?;
            self.at += 1;
            match c {
                '^' if first => continue,
                ']' if first => {}
                '\\' => self.at += 1,
                '[' => {
                    depth += 1;
                    first = true;
                    continue;
                }
                ']' => depth -= 1,
                _ => {}
            }
            first = false;
        }
        Some(())
    }

    /// The repetition after an atom, if any, applied to it.
    fn repetition(&mut self, atom: Info) -> Option<Info> {
        let (min, max) = match self.peek() {
            Some('*') => (0, None),
            Some('+') => (1, None),
            Some('?') => (0, Some(1)),
            Some('{') => {
                self.at += 1;
                let number = |r: &mut Self| -> Option<u32> {
                    let start = r.at;
                    while r.peek().is_some_and(|c| c.is_ascii_digit()) {
                        r.at += 1;
                    }
                    r.chars[start..r.at].iter().collect::<String>().parse().ok()
                };
                let min = number(self)?;
                let max = if self.eat(',') {
                    if self.peek() == Some('}') {
                        None
                    } else {
                        Some(number(self)?)
                    }
                } else {
                    Some(min)
                };
                if self.peek() != Some('}') {
                    return None;
                }
                (min, max)
            }
            _ => return Some(atom),
        };
        self.at += 1;
        self.eat('?'); // lazy
        if min == 0 {
            return Some(Info::default());
        }
        let exact = if (min, max) == (1, Some(1)) { atom.exact.clone() } else { None };
        Some(Info { exact, need: atom.need() })
    }
}

/// The strings every match of `pattern` contains one of (the set of `required_and_starts`).
#[cfg(test)]
pub(crate) fn required_any(pattern: &str, case_insensitive: bool) -> Option<Vec<String>> {
    required_and_starts(pattern, case_insensitive).map(|(set, _)| set)
}

/// The strings every match of `pattern` contains one of (ASCII-lowercased when the search
/// ignores case), if the pattern says so plainly; and whether every match starts with one.
pub(super) fn required_and_starts(pattern: &str, case_insensitive: bool) -> Option<(Vec<String>, Option<usize>)> {
    let mut reader =
        Reader { chars: pattern.chars().collect(), at: 0, case_insensitive, depth: 0, starts: None, lead: 0 };
    let info = reader.alternation()?;
    if reader.at != reader.chars.len() {
        return None;
    }
    let set = info.need().filter(|set| !set.is_empty())?;
    let starts = reader.starts.flatten().is_some_and(|starts| starts == set);
    // The leading assertions' length in bytes, when every match starts with one of the set.
    let lead = starts.then(|| reader.chars[..reader.lead].iter().map(|c| c.len_utf8()).sum());
    Some((set, lead))
}

#[cfg(test)]
#[path = "regex_literals_sets.rs"]
mod tests;

/// The prefilter never changes an answer (a property test over random patterns and texts).
#[cfg(all(test, not(target_arch = "wasm32")))]
#[path = "regex_literals_tests.rs"]
mod never_misses;
