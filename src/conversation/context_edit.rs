//! A user line's message context stored once (issue 37): the context block sent ahead of each
//! user message must be replayed byte for byte (the conversation stays a prompt-cache prefix),
//! but from one message to the next it differs only in a few characters (the time), while the
//! rest (time zone, state, the recent conversations) is hundreds of bytes. So a line stores its
//! context in full only now and then — the *base* — and otherwise as a [`ContextEdit`] of the
//! newest base before it in the same file: what to keep of its start and end, and the text in
//! between. A reader resolves each edit against the newest full context it read before it; the
//! base's hash is kept in the edit, so an edit never resolves against another base (a file
//! changed by someone else, a write that failed half-way): such a line is read without its
//! context instead.
//!
//! On disk: `"context":"<full text>"` (every line before this format, and every base), or
//! `"contextEdit":[keep_start, keep_end, "text between", base_hash]`.

use serde::{Deserialize, Serialize};

use super::line::HistoryLine;

/// Edits made against one base before the writer stores the context in full again: bounds how
/// far a reader starting mid-file looks back for the base.
pub(crate) const MAX_EDITS_PER_BASE: usize = 64;

/// A context as an edit of a base: `base[..keep_start] + text + base[base.len() - keep_end..]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ContextEdit(pub usize, pub usize, pub String, pub u32);

/// FNV-1a (32 bits) of a base: which base an edit was made against.
pub(crate) fn base_hash(text: &str) -> u32 {
    text.bytes().fold(0x811c_9dc5_u32, |h, b| (h ^ u32::from(b)).wrapping_mul(0x0100_0193))
}

impl ContextEdit {
    /// `context` as an edit of `base`, if that is shorter than half the context (else storing
    /// it in full is worth its bytes: it becomes the next base).
    pub(crate) fn between(base: &str, context: &str) -> Option<ContextEdit> {
        let mut keep_start = base.bytes().zip(context.bytes()).take_while(|(a, b)| a == b).count();
        while !context.is_char_boundary(keep_start) {
            keep_start -= 1;
        }
        let room = base.len().min(context.len()) - keep_start;
        let mut keep_end = base.bytes().rev().zip(context.bytes().rev()).take(room).take_while(|(a, b)| a == b).count();
        while !context.is_char_boundary(context.len() - keep_end) || !base.is_char_boundary(base.len() - keep_end) {
            keep_end -= 1;
        }
        let text = &context[keep_start..context.len() - keep_end];
        (text.len() * 2 < context.len()).then(|| ContextEdit(keep_start, keep_end, text.to_owned(), base_hash(base)))
    }

    /// The context this edit makes of `base`; `None` when `base` is not the one it was made of.
    pub(crate) fn apply(&self, base: &str) -> Option<String> {
        let ContextEdit(keep_start, keep_end, text, hash) = self;
        if base_hash(base) != *hash || keep_start + keep_end > base.len() {
            return None;
        }
        let (start, end) = (base.get(..*keep_start)?, base.get(base.len() - keep_end..)?);
        Some(format!("{start}{text}{end}"))
    }
}

/// The writer's side: the newest full context of the file it appends to, and the edits made of
/// it since. `None` where the writer does not know the file's newest base (it then writes the
/// next context in full).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct ContextBase {
    pub text: String,
    pub edits: usize,
}

impl ContextBase {
    /// How to store `context` after this base: as an edit (the base stays), or in full (it
    /// becomes the base).
    pub(crate) fn store(base: &mut Option<ContextBase>, context: &str) -> Option<ContextEdit> {
        if let Some(current) = base.as_mut().filter(|b| b.edits < MAX_EDITS_PER_BASE) {
            if let Some(edit) = ContextEdit::between(&current.text, context) {
                current.edits += 1;
                return Some(edit);
            }
        }
        *base = Some(ContextBase { text: context.to_owned(), edits: 0 });
        None
    }
}

/// The field a stored line's edit is read from (the line's other fields are [`HistoryLine`]'s).
#[derive(Deserialize)]
pub(crate) struct StoredEdit {
    #[serde(rename = "contextEdit")]
    pub edit: ContextEdit,
}

/// The newest full context among the whole lines of `text` before `end` that read as history
/// lines, with the edits after it up to `end`: the base a region of a file starting at `end`
/// resolves its first edits against. Walks back line by line; the writer stores a context in
/// full at least every [`MAX_EDITS_PER_BASE`] user lines, so the walk is short.
pub(crate) fn base_before(text: &str, end: usize) -> Option<ContextBase> {
    let mut line_end = end.min(text.len());
    let mut edits = 0;
    while line_end > 0 {
        let line_start = text[..line_end - 1].rfind('\n').map_or(0, |i| i + 1);
        let line = text[line_start..line_end].trim_end_matches(['\n', '\r']);
        if line.contains("\"context\":\"") {
            if let Ok(HistoryLine { context: Some(text), .. }) = serde_json::from_str::<HistoryLine>(line) {
                return Some(ContextBase { text, edits });
            }
        } else if line.contains("\"contextEdit\"") {
            edits += 1;
        }
        line_end = line_start;
    }
    None
}

/// Reads a stored line's context (`raw` is the line's text): a full one becomes the base, an
/// edit is resolved against the base. False when the line's edit could not be resolved (the
/// line is then read without its context).
pub(crate) fn read_context(line: &mut HistoryLine, raw: &str, base: &mut Option<ContextBase>) -> bool {
    if let Some(full) = &line.context {
        *base = Some(ContextBase { text: full.clone(), edits: 0 });
        return true;
    }
    if !raw.contains("\"contextEdit\"") {
        return true;
    }
    let Ok(StoredEdit { edit }) = serde_json::from_str::<StoredEdit>(raw) else { return false };
    let Some(current) = base.as_mut() else { return false };
    let Some(context) = edit.apply(&current.text) else { return false };
    current.edits += 1;
    line.context = Some(context);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "<context>\nCurrent time (UTC): 2026-11-27T01:42:31.243Z. This message was typed in the Obsidian chat view.\n\nRecent conversations with the user: a, b, c — é.\n</context>";

    #[test]
    fn an_edit_gives_back_the_context_it_was_made_of_and_only_from_its_base() {
        let next = BASE.replace("01:42:31.243", "05:10:02.118");
        let edit = ContextEdit::between(BASE, &next).expect("a small change is an edit");
        assert_eq!(edit.2, "5:10:02.118");
        assert_eq!(edit.apply(BASE).as_deref(), Some(next.as_str()));
        assert_eq!(edit.apply(&BASE.replace('a', "A")), None, "another base");
        // Equal contexts, multi-byte characters at the edges of the change.
        for context in [BASE.to_owned(), BASE.replace("é", "è"), BASE.replace("é.", "éé.")] {
            let edit = ContextEdit::between(BASE, &context).unwrap();
            assert_eq!(edit.apply(BASE).as_deref(), Some(context.as_str()));
        }
        assert_eq!(ContextEdit::between(BASE, "<context>\nsomething else entirely\n</context>"), None);
    }

    #[test]
    fn the_writer_stores_in_full_again_after_its_edits_run_out() {
        let mut base = None;
        assert_eq!(ContextBase::store(&mut base, BASE), None, "the first is stored in full");
        for _ in 0..MAX_EDITS_PER_BASE {
            assert!(ContextBase::store(&mut base, &BASE.replace("243", "244")).is_some());
        }
        assert_eq!(ContextBase::store(&mut base, &BASE.replace("243", "245")), None);
        assert_eq!(base.map(|b| (b.text, b.edits)), Some((BASE.replace("243", "245"), 0)));
    }
}
