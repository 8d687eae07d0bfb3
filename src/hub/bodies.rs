//! What a notification on the hub says: one answer, shortened to what a desktop notification
//! shows, or several answers listed one a line. Plain text (the hub shows no Markdown), cut with
//! a pointer to the full answer in Obsidian.

use super::frames::shorten_to_plain_text;

/// Longest single answer body, in characters (the hub shows a desktop notification).
pub(crate) const ANSWER_BODY_CHARS: usize = 240;
/// Longest body of a notification that lists several answers.
const LIST_BODY_CHARS: usize = 900;
/// What a shortened answer says about where the rest is.
pub(crate) const FULL_ANSWER_POINTER: &str = " (full answer in Obsidian)";

/// An answer as a notification body: plain text, shortened, saying where the rest is when cut.
pub(crate) fn answer_body(text: &str) -> String {
    let whole = shorten_to_plain_text(text, ANSWER_BODY_CHARS);
    if !whole.ends_with('…') {
        return whole;
    }
    let budget = ANSWER_BODY_CHARS - FULL_ANSWER_POINTER.chars().count();
    format!("{}{FULL_ANSWER_POINTER}", shorten_to_plain_text(text, budget))
}

/// Several answers in one body, given as (request, answer) in Markdown: each request's gist with
/// its answer's gist, one a line — each named, however many (the pacer lists at most 20).
pub(crate) fn list_body(items: &[(&str, &str)]) -> String {
    let per_item = (LIST_BODY_CHARS / items.len().max(1)).max(40);
    let request_chars = (per_item / 3).clamp(12, 40);
    let mut lines: Vec<String> = items
        .iter()
        .map(|(request, text)| {
            let request = shorten_to_plain_text(request, request_chars);
            let answer = shorten_to_plain_text(text, per_item.saturating_sub(request.chars().count() + 4));
            if request.is_empty() {
                format!("• {answer}")
            } else {
                format!("• {request}: {answer}")
            }
        })
        .collect();
    lines.push("Full answers in Obsidian.".to_owned());
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_answer_says_where_the_rest_is_and_a_list_names_every_answer() {
        let body = answer_body(&"word ".repeat(100));
        assert!(body.ends_with(FULL_ANSWER_POINTER), "{body}");
        assert!(body.chars().count() <= ANSWER_BODY_CHARS);
        assert_eq!(answer_body("Short."), "Short.");
        let texts: Vec<(String, String)> =
            (0..20).map(|i| (format!("request number {i}"), format!("answer number {i}"))).collect();
        let items: Vec<(&str, &str)> = texts.iter().map(|(r, t)| (r.as_str(), t.as_str())).collect();
        let body = list_body(&items);
        assert!(body.chars().count() <= LIST_BODY_CHARS + 100, "{body}");
        for i in 0..20 {
            assert!(body.contains(&format!("answer number {i}\n")), "{i}: {body}");
        }
    }
}
