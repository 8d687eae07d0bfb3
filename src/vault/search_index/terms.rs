//! What the search index calls a term — a maximal run of alphanumeric characters of folded
//! text — and what a query needs of them: the terms of a text, whether a needle is one term, and
//! the literal runs a regular expression cannot match without (its candidates' narrowing).

use crate::lean::fold_case;

/// The terms of already folded text, in order.
pub(crate) fn tokens(folded: &str) -> impl Iterator<Item = &str> {
    folded.split(|c: char| !c.is_alphanumeric()).filter(|t| !t.is_empty())
}

/// Whether every character of a folded needle is a term character (then the index answers it
/// exactly).
pub(crate) fn is_term(needle: &str) -> bool {
    !needle.is_empty() && needle.chars().all(char::is_alphanumeric)
}

/// Whether a character's folding depends on the characters around it (capital sigma lowers to
/// ς at a word's end, else σ): a literal folded alone may then not be what the text folds to.
pub(crate) fn context_folded(c: char) -> bool {
    c == 'Σ'
}

/// The literal runs of term characters a regular expression cannot match without (folded): a
/// conservative reading — any alternation, and anything it does not understand, gives none (then
/// every note is a candidate).
pub(crate) fn required_literals(pattern: &str) -> Vec<String> {
    if pattern.contains('|') {
        return Vec::new();
    }
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = Vec::new();
    let mut run = String::new();
    let mut depth = 0usize;
    let mut i = 0;
    let flush = |run: &mut String, out: &mut Vec<String>| {
        if !run.is_empty() {
            out.push(std::mem::take(run));
        }
    };
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' => {
                flush(&mut run, &mut out);
                i += 2;
                continue;
            }
            '[' => {
                flush(&mut run, &mut out);
                // Skip the class: a ']' first is literal.
                i += 1;
                if chars.get(i) == Some(&'^') {
                    i += 1;
                }
                if chars.get(i) == Some(&']') {
                    i += 1;
                }
                while i < chars.len() && chars[i] != ']' {
                    if chars[i] == '\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            '(' => {
                flush(&mut run, &mut out);
                depth += 1;
            }
            ')' => {
                flush(&mut run, &mut out);
                depth = depth.saturating_sub(1);
            }
            '?' | '*' | '{' => {
                // The atom before may be absent: drop it from the run.
                run.pop();
                flush(&mut run, &mut out);
                if c == '{' {
                    while i < chars.len() && chars[i] != '}' {
                        i += 1;
                    }
                }
            }
            c if c.is_alphanumeric() && depth == 0 => {
                // Folded as the text is; a character whose folding is not one term character,
                // or depends on its neighbours (Σ: σ or a word's final ς), ends the run.
                let folded = fold_case(&c.to_string());
                if is_term(&folded) && !context_folded(c) {
                    run.push_str(&folded);
                } else {
                    flush(&mut run, &mut out);
                }
            }
            _ => flush(&mut run, &mut out),
        }
        i += 1;
    }
    flush(&mut run, &mut out);
    // A quantifier after a run ends it one character early; a run of one character narrows
    // little.
    out.retain(|r| !r.is_empty());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_a_regex_requires() {
        assert_eq!(required_literals(r"\bstep (one|two)$"), Vec::<String>::new());
        assert_eq!(required_literals(r"Zebra\d+ crossing"), vec!["zebra", "crossing"]);
        assert_eq!(required_literals("colou?r"), vec!["colo", "r"]);
        assert_eq!(required_literals("a{0,1000}b"), vec!["b"]);
        assert_eq!(required_literals("[abc]+xyz(q)*"), vec!["xyz"]);
    }
}
