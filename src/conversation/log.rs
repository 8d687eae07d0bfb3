//! Reading a conversation's JSONL file: complete turns are kept; a line this version cannot
//! read (whole JSON of another shape — a newer version, a sync conflict — or a damaged line with
//! its newline) is skipped for the model, counted for the view, and left on disk untouched; only
//! a provably torn tail (the last line, without its newline, and not JSON: a crash mid-append)
//! may be cut, after being copied aside.

use serde::de::IgnoredAny;

use super::context_edit::{base_before, read_context, ContextBase};
use super::line::{HistoryLine, Turn};
use super::stored_line::ReadLine;
use crate::llm::Usage;

/// The result of reading a history file.
#[derive(Debug, Default)]
pub struct LoadedLog {
    pub turns: Vec<Turn>,
    /// What was skipped, for the log and the user.
    pub warnings: Vec<String>,
    /// Bytes that may stay: the whole file, unless it ends in a torn tail; then the end of the
    /// last complete turn or kept line before it. What follows is copied aside, then cut, before
    /// anything is appended.
    pub valid_len: usize,
    /// Lines kept on disk that this version could not read (the view says so).
    pub unreadable: usize,
    /// The file's last kept line has no newline (a whole line written by someone else): one goes
    /// before the next append, so the two never run together.
    pub needs_newline: bool,
    /// The newest full message context read, and the edits read of it since: where the writer
    /// goes on from (`context_edit.rs`).
    pub(crate) context_base: Option<ContextBase>,
    /// User lines whose stored context could not be resolved (their base is not in what was
    /// read): read without it.
    pub(crate) unresolved_contexts: usize,
}

impl LoadedLog {
    /// Whether the file ends in a torn tail to cut.
    pub fn torn(&self, text_len: usize) -> bool {
        self.valid_len < text_len
    }
}

/// Parses a history file.
pub fn parse_log(text: &str) -> LoadedLog {
    parse_log_after(text, None)
}

/// Parses a history file, or a region of one after `base` (the newest full context before it).
pub(crate) fn parse_log_after(text: &str, base: Option<ContextBase>) -> LoadedLog {
    let mut out = LoadedLog { valid_len: text.len(), context_base: base, ..LoadedLog::default() };
    let mut open: Vec<HistoryLine> = Vec::new();
    // The end of the last line that must stay: a turn's closing line, a kept unreadable line, or
    // the start of a turn begun after an abandoned one.
    let mut keep_end = 0;
    let mut offset = 0;
    for (n, raw) in text.split_inclusive('\n').enumerate() {
        let start = offset;
        offset += raw.len();
        let whole = raw.ends_with('\n');
        let line = raw.strip_suffix('\n').unwrap_or(raw);
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() {
            continue;
        }
        let read: ReadLine = match serde_json::from_str(line) {
            Ok(read) => read,
            Err(_) if !whole && serde_json::from_str::<IgnoredAny>(line).is_err() => {
                out.warnings.push(format!("line {}: torn last line skipped (the plugin stopped mid-write)", n + 1));
                out.valid_len = keep_end;
                break;
            }
            Err(e) => {
                out.warnings.push(format!("line {}: unreadable line skipped, kept in the file ({e})", n + 1));
                out.unreadable += 1;
                out.needs_newline = !whole;
                keep_end = offset;
                continue;
            }
        };
        out.needs_newline = !whole;
        let mut parsed = read.into_line(open.first());
        if !read_context(&mut parsed, line, &mut out.context_base) {
            out.warnings.push(format!("line {}: its message context could not be read; read without it", n + 1));
            out.unresolved_contexts += 1;
        }
        // A turn begun again (a retry after a crash wrote some of its lines) or another message's
        // turn: the earlier, unfinished lines are skipped (they stay in the file).
        if open
            .first()
            .is_some_and(|first| first.message_id != parsed.message_id || open.iter().any(|l| l.id == parsed.id))
        {
            out.warnings.push(format!("line {}: unfinished turn of message {} skipped", n + 1, open[0].message_id));
            open.clear();
            keep_end = start;
        }
        let closes = parsed.turn.is_some();
        open.push(parsed);
        if closes {
            out.turns.push(Turn { lines: std::mem::take(&mut open) });
            keep_end = offset;
        }
    }
    if let Some(first) = open.first() {
        out.warnings.push(format!("unfinished last turn of message {} skipped", first.message_id));
    }
    out
}

/// One page of a history file, newest turns last: what the chat view draws without reading the
/// whole conversation.
#[derive(Debug, Default)]
pub(crate) struct LogPage {
    pub turns: Vec<Turn>,
    /// Lines of this page's region this version could not read.
    pub unreadable: usize,
    /// Where the page begins (just after a turn's closing line): the cursor for the page before
    /// it; `None` when the page reaches the start of the file.
    pub before: Option<usize>,
    /// User lines of the page read without their context (its base is before `text`).
    pub unresolved_contexts: usize,
}

/// Adds the usage recorded on the closing lines of `text` (whole lines) to `total`: what a
/// conversation has cost, as the chat view shows it. Only lines naming a usage are parsed.
pub(crate) fn add_turn_usage(text: &str, total: &mut Usage) {
    for line in text.lines().filter(|l| l.contains("\"usage\"")) {
        if let Ok(HistoryLine { turn: Some(turn), .. }) = serde_json::from_str::<HistoryLine>(line) {
            if let Some(usage) = &turn.usage {
                total.add(usage);
            }
        }
    }
}

/// Whether a line is a readable closing line: the only place the reader's state is empty again,
/// so a region starting just after one reads exactly as the whole file reads there.
fn closes_turn(line: &str) -> bool {
    let line = line.strip_suffix('\n').unwrap_or(line);
    let line = line.strip_suffix('\r').unwrap_or(line);
    line.contains("\"turn\"") && serde_json::from_str::<HistoryLine>(line).is_ok_and(|l| l.turn.is_some())
}

/// The newest `limit` turns ending at `before` (a byte offset from an earlier page; the end of the
/// file when `None`), found by walking back from there line by line: only the page's lines are
/// parsed. The region is read by [`parse_log`] itself, so a page holds exactly the turns a whole
/// read holds there, torn and unreadable lines included.
pub(crate) fn parse_page(text: &str, before: Option<usize>, limit: usize) -> LogPage {
    let end = before.filter(|&b| b <= text.len() && text.is_char_boundary(b)).unwrap_or(text.len());
    let start = page_start(text, end, limit);
    let region = parse_log_after(&text[start.unwrap_or(0)..end], start.and_then(|s| base_before(text, s)));
    LogPage {
        turns: region.turns,
        unreadable: region.unreadable,
        before: start,
        unresolved_contexts: region.unresolved_contexts,
    }
}

/// Where the newest `limit` turns ending at `end` begin: just after the closing line of the turn
/// before them, found by walking back line by line; `None` when they reach the start.
pub(crate) fn page_start(text: &str, end: usize, limit: usize) -> Option<usize> {
    let limit = limit.max(1);
    // More than `limit` closing lines need more than `limit` lines: with fewer newlines before
    // the last line the walk would reach the start, parsing every closing line on the way (the
    // current conversation's whole file at each start, twice, issue 37). Counting stops at
    // `limit`, so a long file pays only for its first `limit` lines here.
    let before_last = text.as_bytes().get(..end.saturating_sub(1)).unwrap_or_default();
    if before_last.iter().filter(|&&b| b == b'\n').take(limit).count() < limit {
        return None;
    }
    let mut closing = 0;
    let mut line_end = end;
    while line_end > 0 {
        // The line ending at `line_end` (its newline included) starts after the newline before.
        let line_start = text[..line_end - 1].rfind('\n').map_or(0, |i| i + 1);
        if closes_turn(&text[line_start..line_end]) {
            closing += 1;
            if closing > limit {
                return Some(line_end);
            }
        }
        line_end = line_start;
    }
    None
}

/// The newest `limit` turns of a history file and what a whole read says of its end (the torn
/// tail, the missing newline), parsing only those turns: what a conversation needs to go on
/// (its recent context, the turns a crash may have left to finish), at a cost that does not grow
/// with the conversation. Offsets are the whole file's.
pub(crate) fn parse_tail(text: &str, limit: usize) -> LoadedLog {
    let start = page_start(text, text.len(), limit).unwrap_or(0);
    let mut log = parse_log_after(&text[start..], base_before(text, start));
    log.valid_len += start;
    log
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conversation::context_edit::ContextBase;
    use crate::conversation::line::{LineRole, TurnEnd};
    use crate::llm::ContentBlock;
    use crate::message::MessageSource;

    fn line(msg: &str, n: u32, role: LineRole, end: bool) -> String {
        let l = HistoryLine {
            id: format!("{msg}#{n}"),
            message_id: msg.into(),
            role,
            content: vec![ContentBlock::text(format!("{msg} {n}"))],
            source: MessageSource::Direct,
            visible: true,
            ts: "2026-01-01T00:00:00.000Z".into(),
            turn: end.then(TurnEnd::default),
            context: None,
        };
        serde_json::to_string(&l).unwrap() + "\n"
    }

    #[test]
    fn the_tail_reads_as_the_whole_file_reads_there_torn_end_included() {
        let mut text = String::new();
        for i in 0..30 {
            text += &line(&format!("m{i}"), 0, LineRole::User, false);
            text += &line(&format!("m{i}"), 1, LineRole::Assistant, true);
        }
        let half = line("late", 0, LineRole::User, true);
        for whole_text in [text.clone(), text.clone() + &half[..half.len() / 2]] {
            let whole = parse_log(&whole_text);
            for limit in [1, 5, 29, 30, 31, 100] {
                let tail = parse_tail(&whole_text, limit);
                let expected = &whole.turns[whole.turns.len().saturating_sub(limit)..];
                assert_eq!(tail.turns, expected, "limit {limit}");
                assert_eq!(
                    (tail.valid_len, tail.needs_newline),
                    (whole.valid_len, whole.needs_newline),
                    "limit {limit}"
                );
            }
        }
    }

    #[test]
    fn complete_turns_load() {
        let text = line("a", 0, LineRole::User, false)
            + &line("a", 1, LineRole::Assistant, true)
            + &line("b", 0, LineRole::User, true);
        let log = parse_log(&text);
        assert_eq!(log.turns.len(), 2);
        assert_eq!(log.turns[0].response_text(), "a 1");
        assert_eq!(log.valid_len, text.len());
        assert!(log.warnings.is_empty());
    }

    #[test]
    fn torn_tail_and_unfinished_turn_are_skipped_and_cut_back() {
        let good = line("a", 0, LineRole::User, false) + &line("a", 1, LineRole::Assistant, true);
        let half = line("b", 1, LineRole::Assistant, true);
        let text = good.clone() + &line("b", 0, LineRole::User, false) + &half[..half.len() / 2];
        let log = parse_log(&text);
        assert_eq!(log.turns.len(), 1);
        assert_eq!(log.valid_len, good.len());
        assert_eq!(log.warnings.len(), 2, "{:?}", log.warnings);
    }

    #[test]
    fn corrupt_middle_line_is_reported_not_fatal() {
        let text = line("a", 0, LineRole::User, true) + "{not json\n" + &line("b", 0, LineRole::User, true);
        let log = parse_log(&text);
        assert_eq!(log.turns.len(), 2);
        assert_eq!(log.warnings.len(), 1);
        assert!(log.warnings[0].starts_with("line 2"));
    }

    #[test]
    fn lines_of_another_shape_are_kept_and_counted_never_cut() {
        let a = line("a", 0, LineRole::User, true);
        let future = "{\"id\":\"x#0\",\"messageId\":\"x\",\"role\":\"robot\",\"content\":[],\"v\":9}\n";
        let b = line("b", 0, LineRole::User, true);
        let text = a.clone() + future + &b + future.trim_end();
        let log = parse_log(&text);
        assert_eq!(log.turns.len(), 2);
        assert_eq!(log.unreadable, 2);
        assert_eq!(log.valid_len, text.len(), "nothing may be cut");
        assert!(log.needs_newline, "the last line has no newline");
    }

    #[test]
    fn a_turn_begun_again_replaces_its_unfinished_lines() {
        let first_try = line("a", 0, LineRole::User, false);
        let text = first_try.clone() + &first_try + &line("a", 1, LineRole::Assistant, true);
        let log = parse_log(&text);
        assert_eq!(log.turns.len(), 1);
        assert_eq!(log.turns[0].lines.len(), 2);
        assert_eq!(log.valid_len, text.len());
    }

    #[test]
    fn a_damaged_middle_line_is_kept_and_a_torn_tail_after_it_is_cut_to_it() {
        let a = line("a", 0, LineRole::User, true);
        let damaged = "{\"id\":\"b#0\",\"mess\n";
        let text = a.clone() + damaged + "{\"id\":\"c#0";
        let log = parse_log(&text);
        assert_eq!(log.turns.len(), 1);
        assert_eq!(log.unreadable, 1);
        assert_eq!(log.valid_len, a.len() + damaged.len());
    }

    /// A file with every kind of line the reader has rules for: retried and unfinished turns,
    /// lines of another shape, damaged lines, blank lines, turns of several lines, a torn tail.
    fn hostile_file() -> String {
        let mut text = String::new();
        for i in 0..40 {
            let m = format!("m{i}");
            match i % 7 {
                0 => text += &(line(&m, 0, LineRole::User, false) + &line(&m, 1, LineRole::Assistant, true)),
                1 => text += &line(&m, 0, LineRole::User, true),
                2 => {
                    // Begun again after a crash: the first try's lines stay in the file.
                    text += &(line(&m, 0, LineRole::User, false) + &line(&m, 1, LineRole::Assistant, false));
                    text += &(line(&m, 0, LineRole::User, false) + &line(&m, 1, LineRole::Assistant, true));
                }
                3 => {
                    text +=
                        &(line(&m, 0, LineRole::User, false) + "{not json\n" + &line(&m, 1, LineRole::Assistant, true))
                }
                4 => text += &(line(&m, 0, LineRole::User, true) + "\n{\"id\":\"x#0\",\"role\":\"robot\",\"v\":9}\n"),
                5 => text += &(line("gone", 0, LineRole::User, false) + &line(&m, 0, LineRole::User, true)),
                _ => {
                    text += &(line(&m, 0, LineRole::User, false)
                        + &line(&m, 1, LineRole::Assistant, false)
                        + &line(&m, 2, LineRole::Assistant, true))
                }
            }
        }
        let torn = line("t", 0, LineRole::User, true);
        text + &line("u", 0, LineRole::User, false) + &torn[..torn.len() / 2]
    }

    #[test]
    fn pages_hold_exactly_the_turns_of_a_whole_read_at_any_page_size() {
        for text in
            [hostile_file(), hostile_file()[..hostile_file().rfind('\n').unwrap() + 1].to_owned(), String::new()]
        {
            let whole = parse_log(&text);
            assert!(text.is_empty() || whole.unreadable > 0);
            for limit in 1..=13 {
                let (mut turns, mut unreadable, mut before, mut pages) = (Vec::new(), 0, None, 0);
                loop {
                    let page = parse_page(&text, before, limit);
                    assert!(page.turns.len() <= limit, "a page holds at most its limit");
                    pages += 1;
                    unreadable += page.unreadable;
                    turns.splice(0..0, page.turns);
                    match page.before {
                        Some(b) => {
                            assert!(before.is_none_or(|old| b < old), "pages move back");
                            before = Some(b);
                        }
                        None => break,
                    }
                }
                assert_eq!(turns, whole.turns, "limit {limit}");
                assert_eq!(unreadable, whole.unreadable, "limit {limit}");
                assert_eq!(
                    pages,
                    whole.turns.len().div_ceil(limit).max(1),
                    "limit {limit}: every page but the last is full"
                );
            }
        }
    }

    /// The walk as it was before counting lines first: every line back from `end`.
    fn walked_page_start(text: &str, end: usize, limit: usize) -> Option<usize> {
        let (mut closing, mut line_end) = (0, end);
        while line_end > 0 {
            let line_start = text[..line_end - 1].rfind('\n').map_or(0, |i| i + 1);
            if closes_turn(&text[line_start..line_end]) {
                closing += 1;
                if closing > limit.max(1) {
                    return Some(line_end);
                }
            }
            line_end = line_start;
        }
        None
    }

    /// Counting the lines first (a file with no more lines than the limit starts its page at
    /// the start) finds every page where the walk over all lines finds it, at every end a page
    /// can have and every limit, past the number of lines too.
    #[test]
    fn a_page_starts_where_the_walk_over_every_line_starts_it() {
        let text = hostile_file();
        let lines = text.split_inclusive('\n').count();
        let ends: Vec<usize> =
            std::iter::once(text.len()).chain(text.match_indices('\n').map(|(i, _)| i + 1)).chain([0]).collect();
        for end in ends {
            for limit in 0..=lines + 2 {
                assert_eq!(
                    page_start(&text, end, limit),
                    walked_page_start(&text, end, limit),
                    "end {end}, limit {limit}"
                );
            }
        }
    }

    #[test]
    fn the_newest_page_is_the_end_of_a_whole_read() {
        let text = hostile_file();
        let whole = parse_log(&text);
        let page = parse_page(&text, None, 5);
        assert_eq!(page.turns, whole.turns[whole.turns.len() - 5..]);
        assert!(page.before.is_some_and(|b| b > 0 && text[..b].ends_with('\n')));
        let Some(b) = page.before else { return };
        let older = parse_page(&text, Some(b), 5);
        assert_eq!(older.turns, whole.turns[whole.turns.len() - 10..whole.turns.len() - 5]);
    }

    /// A page or tail that starts after the newest full context resolves its first lines'
    /// edits against it: each reads exactly as the whole file reads there.
    #[test]
    fn pages_and_tails_starting_between_full_contexts_read_every_context() {
        let mut base = None;
        let mut text = String::new();
        for i in 0..150 {
            let context =
                format!("<context>\nCurrent time (UTC): 2026-01-01T00:{:02}:{:02}.000Z.\n</context>", i / 60, i % 60);
            let user = line(&format!("m{i}"), 0, LineRole::User, false);
            let stored = match ContextBase::store(&mut base, &context) {
                Some(edit) => {
                    format!("{},\"contextEdit\":{}}}\n", &user[..user.len() - 2], serde_json::to_string(&edit).unwrap())
                }
                None => {
                    format!("{},\"context\":{}}}\n", &user[..user.len() - 2], serde_json::to_string(&context).unwrap())
                }
            };
            text += &stored;
            text += &line(&format!("m{i}"), 1, LineRole::Assistant, true);
        }
        assert_eq!(text.matches("\"context\":").count(), 3, "in full every 65th");
        let whole = parse_log(&text);
        assert!(whole.turns.iter().all(|t| t.lines[0].context.is_some()) && whole.unresolved_contexts == 0);
        for limit in [1, 5, 64, 65, 66, 100, 149] {
            let expected = &whole.turns[whole.turns.len() - limit..];
            assert_eq!(parse_page(&text, None, limit).turns, expected, "page of {limit}");
            assert_eq!(parse_tail(&text, limit).turns, expected, "tail of {limit}");
            assert_eq!(parse_tail(&text, limit).context_base, whole.context_base, "the writer goes on alike");
        }
        // Without the lines before it, a region cannot resolve its edits: they read without.
        let cut = page_start(&text, text.len(), 10).unwrap();
        let alone = parse_log(&text[cut..]);
        assert_eq!(alone.unresolved_contexts, 10);
    }
}
