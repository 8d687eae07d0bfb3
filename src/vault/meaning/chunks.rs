//! A note cut into passages for embedding: along its headings, and along paragraphs where a
//! section is long, each passage led by where it sits ("Folder > Note > Heading"), which helps
//! a small model place it (measured: `../shared/reference/embeddings.md`).
//!
//! A passage's key is a hash of exactly the text that is embedded, so after an edit only the
//! passages whose text (or place) changed are embedded again.

use sha2::{Digest, Sha256};

/// Longest passage, in characters of its own text (the place comes on top). About 250 tokens
/// of English: well inside the model's 512, and the size that retrieved best.
pub(crate) const MAX_CHARS: usize = 1000;

/// One passage of a note.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Chunk {
    /// Where it sits: folders, the note's name, then the headings above it, joined by " > ".
    pub(crate) place: String,
    /// Its text as the note has it (frontmatter left out).
    pub(crate) text: String,
    /// Its first and last line in the note, from 1: where an excerpt or a jump points.
    pub(crate) lines: (u32, u32),
}

impl Chunk {
    /// What the embedding model is given.
    pub(crate) fn embed_text(&self) -> String {
        if self.text.is_empty() {
            self.place.clone()
        } else {
            format!("{}\n{}", self.place, self.text)
        }
    }

    /// Names the embedded text: equal keys need no new embedding.
    pub(crate) fn key(&self) -> u64 {
        let digest = Sha256::digest(self.embed_text().as_bytes());
        let mut first = [0u8; 8];
        first.copy_from_slice(&digest[..8]);
        u64::from_le_bytes(first)
    }
}

/// The passages of the note at `path` (vault-relative, with its extension). A note with no text
/// gives one passage of its place alone, so its name can still be found.
pub(crate) fn chunks(path: &str, text: &str) -> Vec<Chunk> {
    let note_place = note_place(path);
    let note_name = note_place.rsplit(" > ").next().unwrap_or_default().to_owned();
    let mut out = Vec::new();
    let mut headings: Vec<(usize, String)> = Vec::new();
    let mut section: Vec<(u32, &str)> = Vec::new();
    let mut fence: Option<&str> = None;
    let place_of = |headings: &[(usize, String)]| {
        let mut place = note_place.clone();
        for (i, (_, title)) in headings.iter().enumerate() {
            // A first heading that only repeats the note's name adds nothing.
            if i == 0 && title.eq_ignore_ascii_case(&note_name) {
                continue;
            }
            place.push_str(" > ");
            place.push_str(title);
        }
        place
    };
    for (number, line) in body_lines(text) {
        match fence {
            Some(marker) => {
                if line.trim_start().starts_with(marker) {
                    fence = None;
                }
            }
            None => {
                if let Some(marker) = fence_marker(line) {
                    fence = Some(marker);
                } else if let Some((level, title)) = heading(line) {
                    pack(&place_of(&headings), &section, &mut out);
                    section.clear();
                    headings.retain(|(l, _)| *l < level);
                    headings.push((level, title.to_owned()));
                    continue;
                }
            }
        }
        section.push((number, line));
    }
    pack(&place_of(&headings), &section, &mut out);
    if out.is_empty() {
        out.push(Chunk { place: note_place, text: String::new(), lines: (1, 1) });
    }
    out
}

/// "Folder > Sub > Note" from "Folder/Sub/Note.md".
fn note_place(path: &str) -> String {
    let stem = match path.rsplit_once('.') {
        Some((stem, ext)) if !ext.contains('/') => stem,
        _ => path,
    };
    stem.split('/').filter(|p| !p.is_empty()).collect::<Vec<_>>().join(" > ")
}

/// The note's lines with their numbers (from 1), frontmatter left out.
fn body_lines(text: &str) -> impl Iterator<Item = (u32, &str)> {
    let lines: Vec<&str> = text.lines().collect();
    let skip = if lines.first().map(|l| l.trim_end()) == Some("---") {
        lines.iter().skip(1).position(|l| matches!(l.trim_end(), "---" | "...")).map_or(0, |end| end + 2)
    } else {
        0
    };
    lines.into_iter().enumerate().skip(skip).map(|(i, l)| (u32::try_from(i + 1).unwrap_or(u32::MAX), l))
}

/// The marker that opens a fenced code block on this line, if it opens one.
fn fence_marker(line: &str) -> Option<&'static str> {
    let t = line.trim_start();
    if t.starts_with("```") {
        Some("```")
    } else if t.starts_with("~~~") {
        Some("~~~")
    } else {
        None
    }
}

/// An ATX heading's level and title.
fn heading(line: &str) -> Option<(usize, &str)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let t = &line[indent..];
    let level = t.bytes().take_while(|&b| b == b'#').count();
    if level == 0 || level > 6 {
        return None;
    }
    let rest = &t[level..];
    if !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
        return None;
    }
    let title = rest.trim().trim_end_matches('#').trim_end();
    (!title.is_empty()).then_some((level, title))
}

/// Cuts one section into passages: whole paragraphs while they fit in [`MAX_CHARS`], a longer
/// paragraph at sentence ends (or spaces) near the limit.
fn pack(place: &str, section: &[(u32, &str)], out: &mut Vec<Chunk>) {
    let mut current: Option<Chunk> = None;
    for (text, lines) in paragraphs(section) {
        for (piece, piece_lines) in split_long(&text, lines) {
            match current.as_mut() {
                Some(chunk) if chunk.text.len() + 2 + piece.len() <= MAX_CHARS => {
                    chunk.text.push_str("\n\n");
                    chunk.text.push_str(&piece);
                    chunk.lines.1 = piece_lines.1;
                }
                _ => {
                    out.extend(current.take());
                    current = Some(Chunk { place: place.to_owned(), text: piece, lines: piece_lines });
                }
            }
        }
    }
    out.extend(current);
}

/// The section's paragraphs (runs of non-blank lines), trimmed, with their first and last line.
fn paragraphs(section: &[(u32, &str)]) -> Vec<(String, (u32, u32))> {
    let mut out = Vec::new();
    let mut text = String::new();
    let mut first = 0;
    let mut last = 0;
    for &(number, line) in section {
        if line.trim().is_empty() {
            if !text.is_empty() {
                out.push((std::mem::take(&mut text), (first, last)));
            }
            continue;
        }
        if text.is_empty() {
            first = number;
        } else {
            text.push('\n');
        }
        text.push_str(line.trim_end());
        last = number;
    }
    if !text.is_empty() {
        out.push((text, (first, last)));
    }
    out
}

/// A paragraph in pieces of at most [`MAX_CHARS`], cut after a sentence's end where one is in
/// the second half of the piece, else at a space, else at a character boundary.
fn split_long(text: &str, lines: (u32, u32)) -> Vec<(String, (u32, u32))> {
    let mut out = Vec::new();
    let mut rest = text;
    while rest.len() > MAX_CHARS {
        let mut end = MAX_CHARS;
        while !rest.is_char_boundary(end) {
            end -= 1;
        }
        let window = &rest[..end];
        let cut = window
            .rfind(['.', '!', '?', '\n'])
            .filter(|&at| at >= end / 2)
            .map(|at| at + 1)
            .or_else(|| window.rfind(' ').filter(|&at| at > 0))
            .unwrap_or(end);
        out.push(rest[..cut].trim().to_owned());
        rest = rest[cut..].trim_start();
    }
    if !rest.trim().is_empty() {
        out.push(rest.trim().to_owned());
    }
    // Lines of the pieces of one paragraph: the paragraph's (close enough to point at it).
    out.into_iter().filter(|p| !p.is_empty()).map(|p| (p, lines)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_become_passages_led_by_their_place() {
        let note = "---\ntags: [a]\n---\n# Refunds\nIntro line.\n\n## How to ask\nWrite to us.\n\n### By mail\nSend a letter.\n## Limits\nThirty days.\n";
        let got = chunks("Help/Billing/Refunds.md", note);
        let places: Vec<&str> = got.iter().map(|c| c.place.as_str()).collect();
        assert_eq!(
            places,
            [
                "Help > Billing > Refunds",
                "Help > Billing > Refunds > How to ask",
                "Help > Billing > Refunds > How to ask > By mail",
                "Help > Billing > Refunds > Limits",
            ]
        );
        assert_eq!(got[0].text, "Intro line.");
        assert_eq!(got[0].lines, (5, 5));
        assert_eq!(got[3].embed_text(), "Help > Billing > Refunds > Limits\nThirty days.");
        assert!(!got.iter().any(|c| c.text.contains("tags")), "frontmatter is not embedded");
    }

    #[test]
    fn headings_inside_code_fences_are_text() {
        let note = "Intro\n```sh\n# not a heading\n\necho hi\n```\nAfter";
        let got = chunks("n.md", note);
        assert_eq!(got.len(), 1);
        assert!(got[0].text.contains("# not a heading"));
        assert_eq!(got[0].lines, (1, 7));
    }

    #[test]
    fn long_sections_are_cut_along_paragraphs_and_sentences_within_the_limit() {
        let paragraph = "This sentence is about twenty words long, give or take a few, and it ends here. ".repeat(8);
        let note = format!("# T\n{paragraph}\n\n{paragraph}\n\nShort tail.");
        let got = chunks("T.md", &note);
        assert!(got.len() >= 2);
        for chunk in &got {
            assert!(chunk.text.len() <= MAX_CHARS, "{}", chunk.text.len());
            assert!(chunk.text.ends_with('.'), "cut at a sentence end: {:?}", &chunk.text[chunk.text.len() - 20..]);
        }
        let words = |s: &str| s.split_whitespace().count();
        assert_eq!(got.iter().map(|c| words(&c.text)).sum::<usize>(), words(&note) - 2, "no word lost");
        let unbroken = "x".repeat(2500);
        assert!(chunks("U.md", &unbroken).iter().all(|c| c.text.len() <= MAX_CHARS));
        let wide = "é".repeat(1500);
        assert!(chunks("W.md", &wide).iter().all(|c| c.text.len() <= MAX_CHARS));
    }

    #[test]
    fn an_empty_note_is_found_by_its_name_and_keys_follow_the_embedded_text() {
        let got = chunks("Ideas/Garden plan.md", "---\na: 1\n---\n");
        assert_eq!(got, [Chunk { place: "Ideas > Garden plan".into(), text: String::new(), lines: (1, 1) }]);
        let a = chunks("A.md", "# X\nsame text");
        let b = chunks("B.md", "# X\nsame text");
        assert_ne!(a[0].key(), b[0].key(), "the place is part of what is embedded");
        assert_eq!(a[0].key(), chunks("A.md", "# X\nsame text\n")[0].key());
    }

    #[test]
    fn what_is_not_a_heading() {
        assert_eq!(heading("#tag"), None);
        assert_eq!(heading("    # indented code"), None);
        assert_eq!(heading("####### seven"), None);
        assert_eq!(heading("## Closed ##"), Some((2, "Closed")));
    }
}
