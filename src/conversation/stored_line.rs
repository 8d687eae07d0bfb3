//! A history line as the file keeps it (issue 37: bytes per message). What a reader can work out
//! is left out: the message id when the line id (`<message id>#<n>`) holds it, `visible` when
//! true, a turn's empty tool list and zero counts, and the source and time of a line after its
//! turn's first when they are the first's (a turn is appended in one write, first line first);
//! a content of one text block is stored as its text. The host sees every line whole
//! ([`HistoryLine`]'s own `Serialize`); every line written before this form reads as before.

use serde::de::{Deserializer, SeqAccess, Visitor};
use serde::ser::Serializer;
use serde::{Deserialize, Serialize};

use super::context_edit::ContextEdit;
use super::line::{HistoryLine, LineRole, TurnEnd};
use crate::llm::stored_usage::StoredUsage;
use crate::llm::ContentBlock;
use crate::message::MessageSource;

/// The stored form of a line, with its context as an edit where the writer made one.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct StoredLine<'a> {
    id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    message_id: Option<&'a str>,
    role: LineRole,
    content: StoredContent<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<MessageSource>,
    #[serde(skip_serializing_if = "is_true")]
    visible: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    ts: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    turn: Option<StoredTurn<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    context: Option<&'a str>,
    #[serde(rename = "contextEdit", skip_serializing_if = "Option::is_none")]
    context_edit: Option<&'a ContextEdit>,
}

fn is_true(b: &bool) -> bool {
    *b
}

/// The message id a line id names (`<message id>#<n>`).
fn message_id_of(line_id: &str) -> Option<&str> {
    line_id.rsplit_once('#').map(|(message, _)| message)
}

impl<'a> StoredLine<'a> {
    /// `line` to store; its context as `edit` when given, else in full. `first` is the first
    /// line of its turn written in the same append, if it is not that line.
    pub(crate) fn of(line: &'a HistoryLine, edit: Option<&'a ContextEdit>, first: Option<&HistoryLine>) -> Self {
        let first = first.filter(|first| first.message_id == line.message_id);
        StoredLine {
            id: &line.id,
            message_id: (message_id_of(&line.id) != Some(line.message_id.as_str())).then_some(&line.message_id),
            role: line.role,
            content: StoredContent(&line.content),
            source: (first.map(|f| f.source) != Some(line.source)).then_some(line.source),
            visible: line.visible,
            ts: (first.map(|f| f.ts.as_str()) != Some(line.ts.as_str())).then_some(&line.ts),
            turn: line.turn.as_ref().map(StoredTurn::of),
            context: if edit.is_some() { None } else { line.context.as_deref() },
            context_edit: edit,
        }
    }
}

/// A turn's closing marker, its empty tool list and zero counts left out.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct StoredTurn<'a> {
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    tools_used: &'a [String],
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    waiting: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    ends_conversation: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    usage: Option<StoredUsage<'a>>,
}

impl<'a> StoredTurn<'a> {
    fn of(turn: &'a TurnEnd) -> Self {
        StoredTurn {
            tools_used: &turn.tools_used,
            waiting: turn.waiting,
            ends_conversation: turn.ends_conversation.as_deref(),
            usage: turn.usage.as_ref().map(StoredUsage::of),
        }
    }
}

/// Content blocks; one text block as its text.
struct StoredContent<'a>(&'a [ContentBlock]);

impl Serialize for StoredContent<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            [ContentBlock::Text { text }] => serializer.serialize_str(text),
            blocks => blocks.serialize(serializer),
        }
    }
}

/// Any line as read: the stored form or the whole one.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ReadLine {
    id: String,
    #[serde(default)]
    message_id: Option<String>,
    role: LineRole,
    #[serde(deserialize_with = "blocks_or_text")]
    content: Vec<ContentBlock>,
    #[serde(default)]
    source: Option<MessageSource>,
    #[serde(default = "yes")]
    visible: bool,
    #[serde(default)]
    ts: Option<String>,
    #[serde(default)]
    turn: Option<TurnEnd>,
    #[serde(default)]
    context: Option<String>,
}

fn yes() -> bool {
    true
}

impl ReadLine {
    /// The whole line; what it left to its turn's first line is taken from `first` (the first
    /// line read of the turn open before it, if any).
    pub(crate) fn into_line(self, first: Option<&HistoryLine>) -> HistoryLine {
        let message_id = self.message_id.unwrap_or_else(|| message_id_of(&self.id).unwrap_or(&self.id).to_owned());
        let first = first.filter(|first| first.message_id == message_id);
        HistoryLine {
            source: self.source.or(first.map(|f| f.source)).unwrap_or_default(),
            ts: self.ts.or_else(|| first.map(|f| f.ts.clone())).unwrap_or_default(),
            id: self.id,
            message_id,
            role: self.role,
            content: self.content,
            visible: self.visible,
            turn: self.turn,
            context: self.context,
        }
    }
}

/// A line read on its own (its turn's usage, its context): what it left to its turn's first line
/// is the default.
impl From<ReadLine> for HistoryLine {
    fn from(line: ReadLine) -> Self {
        line.into_line(None)
    }
}

/// Reads content blocks, or a text as one text block.
fn blocks_or_text<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<ContentBlock>, D::Error> {
    struct Blocks;
    impl<'de> Visitor<'de> for Blocks {
        type Value = Vec<ContentBlock>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("content blocks or a text")
        }
        fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Self::Value, E> {
            Ok(vec![ContentBlock::text(text)])
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut blocks = Vec::new();
            while let Some(block) = seq.next_element()? {
                blocks.push(block);
            }
            Ok(blocks)
        }
    }
    deserializer.deserialize_any(Blocks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::Usage;

    fn line(
        id: &str,
        message_id: &str,
        content: Vec<ContentBlock>,
        visible: bool,
        turn: Option<TurnEnd>,
    ) -> HistoryLine {
        HistoryLine {
            id: id.into(),
            message_id: message_id.into(),
            role: LineRole::Assistant,
            content,
            source: MessageSource::Direct,
            visible,
            ts: "2026-11-27T03:40:29.405Z".into(),
            turn,
            context: None,
        }
    }

    fn round_trip(line: &HistoryLine) -> String {
        let text = serde_json::to_string(&StoredLine::of(line, None, None)).unwrap();
        assert_eq!(&serde_json::from_str::<HistoryLine>(&text).unwrap(), line, "{text}");
        text
    }

    #[test]
    fn a_later_line_of_a_turn_takes_the_first_ones_source_and_time() {
        let mut first = line("m#0", "m", vec![ContentBlock::text("hi")], true, None);
        first.source = MessageSource::Websocket;
        let mut answer = line("m#1", "m", vec![ContentBlock::text("ok")], true, Some(TurnEnd::default()));
        answer.source = MessageSource::Websocket;
        let text = serde_json::to_string(&StoredLine::of(&answer, None, Some(&first))).unwrap();
        assert_eq!(text, r#"{"id":"m#1","role":"assistant","content":"ok","turn":{}}"#);
        let read: ReadLine = serde_json::from_str(&text).unwrap();
        assert_eq!(read.into_line(Some(&first)), answer);
        // Another message's line, or one whose time differs, keeps its own.
        let other = line("n#1", "n", vec![], true, None);
        assert!(serde_json::to_string(&StoredLine::of(&other, None, Some(&first)))
            .unwrap()
            .contains(r#""source":"direct","ts""#));
        let later = HistoryLine { ts: "2026-11-27T03:40:30.000Z".into(), ..answer };
        assert!(serde_json::to_string(&StoredLine::of(&later, None, Some(&first)))
            .unwrap()
            .contains(r#""ts":"2026-11-27T03:40:30.000Z""#));
    }

    #[test]
    fn a_plain_answer_is_stored_without_what_a_reader_works_out() {
        let usage = Usage {
            input_tokens: 6979,
            output_tokens: 1,
            model_calls: 1,
            context_tokens: 6980,
            model: "m".into(),
            ..Usage::default()
        };
        let turn = TurnEnd { usage: Some(usage), ..TurnEnd::default() };
        let text = round_trip(&line("m-4#1", "m-4", vec![ContentBlock::text("ok")], true, Some(turn)));
        assert_eq!(
            text,
            r#"{"id":"m-4#1","role":"assistant","content":"ok","source":"direct","ts":"2026-11-27T03:40:29.405Z","turn":{"usage":{"inputTokens":6979,"outputTokens":1,"modelCalls":1,"model":"m"}}}"#
        );
    }

    #[test]
    fn what_a_reader_cannot_work_out_is_kept() {
        let blocks = vec![ContentBlock::text("a"), ContentBlock::text("b")];
        let turn = TurnEnd { tools_used: vec!["read_file".into()], waiting: true, ..TurnEnd::default() };
        let text = round_trip(&line("x#y#2", "other", blocks, false, Some(turn)));
        assert!(text.contains(r#""messageId":"other""#) && text.contains(r#""visible":false"#), "{text}");
        assert!(text.contains(r#""toolsUsed":["read_file"]"#) && text.contains(r#""content":[{"#), "{text}");
        // A message id with `#` in it is still found in its line id.
        assert!(!round_trip(&line("a#b#0", "a#b", vec![], true, None)).contains("messageId"));
    }

    #[test]
    fn a_line_in_the_whole_form_reads_as_before() {
        let whole = line("m#0", "m", vec![ContentBlock::text("hi")], true, Some(TurnEnd::default()));
        let text = serde_json::to_string(&whole).unwrap();
        assert!(text.contains(r#""messageId":"m""#) && text.contains(r#""toolsUsed":[]"#));
        assert_eq!(serde_json::from_str::<HistoryLine>(&text).unwrap(), whole);
    }
}
