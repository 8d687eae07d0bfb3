//! Glob patterns for `list_files`: `*` (within a name), `**` (any folders), `?`, `[abc]`, and
//! `{md,txt}` alternatives. Matched without case.

use crate::lean::fold_case;

/// Whether a vault path matches a glob pattern.
pub(crate) fn matches(pattern: &str, path: &str) -> bool {
    let pattern = fold_case(pattern);
    let path = fold_case(path);
    expand_braces(&pattern).iter().any(|p| match_segments(&split(p), &split(&path)))
}

fn split(s: &str) -> Vec<&str> {
    s.split('/').filter(|x| !x.is_empty()).collect()
}

/// `a{b,c}d` → `abd`, `acd` (one level of braces).
fn expand_braces(pattern: &str) -> Vec<String> {
    match (pattern.find('{'), pattern.find('}')) {
        (Some(open), Some(close)) if open < close => {
            let (head, rest) = pattern.split_at(open);
            let inner = &rest[1..close - open];
            let tail = &rest[close - open + 1..];
            inner.split(',').flat_map(|alt| expand_braces(&format!("{head}{alt}{tail}"))).collect()
        }
        _ => vec![pattern.to_owned()],
    }
}

fn match_segments(pattern: &[&str], path: &[&str]) -> bool {
    match pattern.split_first() {
        None => path.is_empty(),
        Some((&"**", rest)) => (0..=path.len()).any(|i| match_segments(rest, &path[i..])),
        Some((first, rest)) => path.split_first().is_some_and(|(name, others)| {
            match_name(first.as_bytes(), name.as_bytes()) && match_segments(rest, others)
        }),
    }
}

/// One name against one pattern segment, iteratively (no exponential backtracking).
fn match_name(pattern: &[u8], name: &[u8]) -> bool {
    let (mut p, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        if p < pattern.len() {
            match pattern[p] {
                b'*' => {
                    star = Some((p, n));
                    p += 1;
                    continue;
                }
                b'?' => {
                    p += 1;
                    n += 1;
                    continue;
                }
                b'[' => {
                    if let Some(end) = pattern[p..].iter().position(|c| *c == b']') {
                        let class = &pattern[p + 1..p + end];
                        if class_matches(class, name[n]) {
                            p += end + 1;
                            n += 1;
                            continue;
                        }
                    }
                }
                c if c == name[n] => {
                    p += 1;
                    n += 1;
                    continue;
                }
                _ => {}
            }
        }
        match star {
            Some((sp, sn)) => {
                p = sp + 1;
                n = sn + 1;
                star = Some((sp, sn + 1));
            }
            None => return false,
        }
    }
    pattern[p..].iter().all(|c| *c == b'*')
}

fn class_matches(class: &[u8], c: u8) -> bool {
    let (negate, class) = match class.first() {
        Some(b'!' | b'^') => (true, &class[1..]),
        _ => (false, class),
    };
    let mut i = 0;
    let mut hit = false;
    while i < class.len() {
        if i + 2 < class.len() && class[i + 1] == b'-' {
            hit |= (class[i]..=class[i + 2]).contains(&c);
            i += 3;
        } else {
            hit |= class[i] == c;
            i += 1;
        }
    }
    hit != negate
}

#[cfg(test)]
mod tests {
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
}
