//! Glob patterns for `list_files`: `*` (within a name), `**` (any folders), `?`, `[abc]`, and
//! `{md,txt}` alternatives (nested too). Matched without case.
//!
//! The pattern is compiled once into a small automaton (one state per pattern character, about)
//! and every path is run through it as a set of states (Thompson's construction). Braces are
//! alternatives inside the automaton, never expanded, so ten brace groups cost ten groups, not
//! 2^10 patterns; `**` repeated is a loop of states, never backtracking. Matching one path costs
//! at most `states × path characters` steps, and the pattern's size is capped, so a model-chosen
//! glob cannot freeze the host.

use thiserror::Error;

use crate::lean::fold_case;

/// Longest glob accepted, in characters.
pub(crate) const MAX_GLOB_CHARS: usize = 1_000;
/// Most brace groups (`{…}`) in one glob.
pub(crate) const MAX_BRACE_GROUPS: usize = 32;
/// Deepest nesting of brace groups.
pub(crate) const MAX_BRACE_DEPTH: usize = 8;

/// Why a glob was refused: said so that the model can write a smaller one.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub(crate) enum GlobError {
    #[error("the glob is {0} characters long; at most {MAX_GLOB_CHARS} are accepted")]
    Long(usize),
    #[error("the glob has {0} brace groups; at most {MAX_BRACE_GROUPS} are accepted — list a folder, or call list_files more than once")]
    Braces(usize),
    #[error("the glob nests braces {0} deep; at most {MAX_BRACE_DEPTH} are accepted")]
    Deep(usize),
}

/// One state of the automaton; `usize` fields are the states that follow.
#[derive(Debug, Clone)]
enum State {
    /// This character.
    Char(char, usize),
    /// Any character but `/` (`?`, and `*`'s loop).
    Name(usize),
    /// Any character, `/` included (`**`'s loop).
    Any(usize),
    /// A character of a `[…]` class, never `/`: (negated, ranges).
    Class(bool, Vec<(char, char)>, usize),
    /// Both ways, consuming nothing.
    Split(usize, usize),
    /// The whole path matched.
    Match,
}

/// A compiled glob.
#[derive(Debug, Clone)]
pub(crate) struct Glob {
    states: Vec<State>,
    start: usize,
}

/// A parsed piece of a pattern.
#[derive(Debug)]
enum Node {
    Char(char),
    Name,
    Star,
    Class(bool, Vec<(char, char)>),
    /// `**/`: nothing, or any folders ending with `/`.
    FoldersThenSlash,
    /// `/**` at the end: nothing, or `/` and anything.
    SlashThenAnything,
    /// `**` alone: anything.
    Anything,
    Alt(Vec<Vec<Node>>),
}

impl Glob {
    /// Compiles a pattern (folded to lower case); too long or too many braces is refused.
    pub(crate) fn new(pattern: &str) -> Result<Glob, GlobError> {
        let count = pattern.chars().count();
        if count > MAX_GLOB_CHARS {
            return Err(GlobError::Long(count));
        }
        let chars: Vec<char> = normalize_slashes(&fold_case(pattern)).chars().collect();
        let pairs = brace_pairs(&chars);
        let groups = pairs.iter().filter(|p| p.is_some()).count();
        if groups > MAX_BRACE_GROUPS {
            return Err(GlobError::Braces(groups));
        }
        let mut parser = Parser { chars: &chars, pairs: &pairs, depth: 0, deepest: 0 };
        let nodes = parser.sequence(0, chars.len());
        if parser.deepest > MAX_BRACE_DEPTH {
            return Err(GlobError::Deep(parser.deepest));
        }
        let mut states = vec![State::Match];
        let start = compile(&nodes, 0, &mut states);
        Ok(Glob { states, start })
    }

    /// Whether a vault path matches (folded to lower case; empty folder names ignored).
    pub(crate) fn matches(&self, path: &str) -> bool {
        let path = normalize_slashes(&fold_case(path));
        let n = self.states.len();
        let mut current: Vec<usize> = Vec::with_capacity(n);
        let mut next: Vec<usize> = Vec::with_capacity(n);
        // `mark[s] == generation` when s is already in the set being built.
        let mut mark = vec![0usize; n];
        let mut generation = 1;
        let mut stack = Vec::new();
        self.add(self.start, &mut current, &mut mark, generation, &mut stack);
        for c in path.chars() {
            generation += 1;
            next.clear();
            for &s in &current {
                let to = match &self.states[s] {
                    State::Char(want, to) if *want == c => *to,
                    State::Name(to) if c != '/' => *to,
                    State::Any(to) => *to,
                    State::Class(negated, ranges, to)
                        if c != '/' && ranges.iter().any(|(lo, hi)| (*lo..=*hi).contains(&c)) != *negated =>
                    {
                        *to
                    }
                    _ => continue,
                };
                self.add(to, &mut next, &mut mark, generation, &mut stack);
            }
            std::mem::swap(&mut current, &mut next);
            if current.is_empty() {
                return false;
            }
        }
        current.iter().any(|&s| matches!(self.states[s], State::Match))
    }

    /// Adds a state and everything it reaches without consuming a character.
    fn add(&self, state: usize, set: &mut Vec<usize>, mark: &mut [usize], generation: usize, stack: &mut Vec<usize>) {
        stack.push(state);
        while let Some(s) = stack.pop() {
            if mark[s] == generation {
                continue;
            }
            mark[s] = generation;
            match self.states[s] {
                State::Split(a, b) => {
                    stack.push(b);
                    stack.push(a);
                }
                _ => set.push(s),
            }
        }
    }
}

/// Whether a vault path matches a glob pattern (a refused pattern matches nothing).
#[cfg(test)]
pub(crate) fn matches(pattern: &str, path: &str) -> bool {
    Glob::new(pattern).is_ok_and(|g| g.matches(path))
}

/// `a//b/` → `a/b`: empty folder names mean nothing, in the pattern as in the path.
fn normalize_slashes(s: &str) -> String {
    s.split('/').filter(|x| !x.is_empty()).collect::<Vec<_>>().join("/")
}

/// For each `{`, the index of its matching `}` (`None` for a brace without a partner, which is
/// then an ordinary character, as is every `}` without one).
fn brace_pairs(chars: &[char]) -> Vec<Option<usize>> {
    let mut pairs = vec![None; chars.len()];
    let mut open = Vec::new();
    for (i, c) in chars.iter().enumerate() {
        match c {
            '{' => open.push(i),
            '}' => {
                if let Some(o) = open.pop() {
                    pairs[o] = Some(i);
                }
            }
            _ => {}
        }
    }
    pairs
}

struct Parser<'a> {
    chars: &'a [char],
    pairs: &'a [Option<usize>],
    depth: usize,
    deepest: usize,
}

impl Parser<'_> {
    /// Whether position `i` starts or ends a name (pattern edge, `/`, or a brace's edge).
    fn boundary(&self, i: Option<usize>) -> bool {
        match i {
            None => true,
            Some(i) => match self.chars.get(i) {
                None => true,
                Some('/') | Some(',') => true,
                Some('{') => self.pairs[i].is_some(),
                Some('}') => self.pairs.contains(&Some(i)),
                _ => false,
            },
        }
    }

    /// The nodes of `chars[from..to]` (a brace group's alternative, or the whole pattern).
    fn sequence(&mut self, from: usize, to: usize) -> Vec<Node> {
        let mut out = Vec::new();
        let mut i = from;
        while i < to {
            let c = self.chars[i];
            match c {
                '*' => {
                    let mut end = i;
                    while end < to && self.chars[end] == '*' {
                        end += 1;
                    }
                    let before = if i == from { None } else { Some(i - 1) };
                    let whole_name =
                        end - i >= 2 && (i == from || self.boundary(before)) && (end == to || self.boundary(Some(end)));
                    if !whole_name {
                        out.push(Node::Star);
                    } else if end < to && self.chars[end] == '/' {
                        out.push(Node::FoldersThenSlash);
                        end += 1;
                    } else if matches!(out.last(), Some(Node::Char('/'))) {
                        out.pop();
                        out.push(Node::SlashThenAnything);
                    } else {
                        out.push(Node::Anything);
                    }
                    i = end;
                }
                '?' => {
                    out.push(Node::Name);
                    i += 1;
                }
                '[' => match self.class(i, to) {
                    Some((node, end)) => {
                        out.push(node);
                        i = end;
                    }
                    None => {
                        out.push(Node::Char('['));
                        i += 1;
                    }
                },
                '{' if self.pairs[i].is_some_and(|close| close < to) => {
                    let close = self.pairs[i].unwrap_or(i);
                    self.depth += 1;
                    self.deepest = self.deepest.max(self.depth);
                    let mut alternatives = Vec::new();
                    let mut start = i + 1;
                    let mut j = i + 1;
                    while j <= close {
                        if j == close || self.chars[j] == ',' {
                            alternatives.push(self.sequence(start, j));
                            start = j + 1;
                            j += 1;
                        } else if let Some(inner) = self.pairs[j].filter(|_| self.chars[j] == '{') {
                            j = inner + 1;
                        } else {
                            j += 1;
                        }
                    }
                    self.depth -= 1;
                    out.push(Node::Alt(alternatives));
                    i = close + 1;
                }
                _ => {
                    out.push(Node::Char(c));
                    i += 1;
                }
            }
        }
        out
    }

    /// A `[…]` class at `at` (within one name): the node and the index after `]`.
    fn class(&self, at: usize, to: usize) -> Option<(Node, usize)> {
        let close = (at + 1..to).take_while(|&j| self.chars[j] != '/').find(|&j| self.chars[j] == ']')?;
        let mut body = &self.chars[at + 1..close];
        let negated = matches!(body.first(), Some('!' | '^'));
        if negated {
            body = &body[1..];
        }
        let mut ranges = Vec::new();
        let mut k = 0;
        while k < body.len() {
            if k + 2 < body.len() && body[k + 1] == '-' {
                ranges.push((body[k], body[k + 2]));
                k += 3;
            } else {
                ranges.push((body[k], body[k]));
                k += 1;
            }
        }
        Some((Node::Class(negated, ranges), close + 1))
    }
}

/// Compiles nodes backwards onto `next`; returns the first state.
fn compile(nodes: &[Node], next: usize, states: &mut Vec<State>) -> usize {
    let mut next = next;
    for node in nodes.iter().rev() {
        next = compile_node(node, next, states);
    }
    next
}

fn push(states: &mut Vec<State>, state: State) -> usize {
    states.push(state);
    states.len() - 1
}

/// A loop over one consuming state, then `next`: the loop's entry.
fn repeat(states: &mut Vec<State>, any: bool, next: usize) -> usize {
    let split = push(states, State::Split(0, next));
    let step = push(states, if any { State::Any(split) } else { State::Name(split) });
    states[split] = State::Split(step, next);
    split
}

fn compile_node(node: &Node, next: usize, states: &mut Vec<State>) -> usize {
    match node {
        Node::Char(c) => push(states, State::Char(*c, next)),
        Node::Name => push(states, State::Name(next)),
        Node::Class(negated, ranges) => push(states, State::Class(*negated, ranges.clone(), next)),
        Node::Star => repeat(states, false, next),
        Node::Anything => repeat(states, true, next),
        Node::FoldersThenSlash => {
            let slash = push(states, State::Char('/', next));
            let folders = repeat(states, true, slash);
            push(states, State::Split(folders, next))
        }
        Node::SlashThenAnything => {
            let rest = repeat(states, true, next);
            let slash = push(states, State::Char('/', rest));
            push(states, State::Split(slash, next))
        }
        Node::Alt(alternatives) => {
            let mut entry: Option<usize> = None;
            for alternative in alternatives.iter().rev() {
                let first = compile(alternative, next, states);
                entry = Some(match entry {
                    None => first,
                    Some(other) => push(states, State::Split(first, other)),
                });
            }
            entry.unwrap_or(next)
        }
    }
}

#[cfg(test)]
mod tests;
