//! Reading a conversation's JSONL file: complete turns are kept, a torn last line (a crash
//! mid-append) is skipped with a warning, a corrupt line elsewhere is reported and skipped.

use super::line::{HistoryLine, Turn};

/// The result of reading a history file.
#[derive(Debug, Default)]
pub struct LoadedLog {
    pub turns: Vec<Turn>,
    /// What was skipped, for the log and the user.
    pub warnings: Vec<String>,
    /// Bytes up to the end of the last complete turn: the file should be cut back to this length
    /// before anything is appended, when it is shorter than the file.
    pub valid_len: usize,
}

/// Parses a history file.
pub fn parse_log(text: &str) -> LoadedLog {
    let mut out = LoadedLog::default();
    let mut open: Vec<HistoryLine> = Vec::new();
    let mut offset = 0;
    for (n, raw) in text.split_inclusive('\n').enumerate() {
        offset += raw.len();
        let Some(line) = raw.strip_suffix('\n') else {
            out.warnings.push(format!("line {}: torn last line skipped (the plugin stopped mid-write)", n + 1));
            break;
        };
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() {
            continue;
        }
        let parsed: HistoryLine = match serde_json::from_str(line) {
            Ok(parsed) => parsed,
            Err(e) => {
                out.warnings.push(format!("line {}: unreadable line skipped ({e})", n + 1));
                continue;
            }
        };
        if open.first().is_some_and(|first| first.message_id != parsed.message_id) {
            out.warnings.push(format!("line {}: unfinished turn of message {} skipped", n + 1, open[0].message_id));
            open.clear();
        }
        let closes = parsed.turn.is_some();
        open.push(parsed);
        if closes {
            out.turns.push(Turn { lines: std::mem::take(&mut open) });
            out.valid_len = offset;
        }
    }
    if let Some(first) = open.first() {
        out.warnings.push(format!("unfinished last turn of message {} skipped", first.message_id));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
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
        };
        serde_json::to_string(&l).unwrap() + "\n"
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
}
