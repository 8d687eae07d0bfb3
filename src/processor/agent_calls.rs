//! Exactly once for an ACP agent's `smarthole` tool calls, as the turn journal gives the
//! built-in agent's: each call is journaled as it starts and ends (`inbox/<id>.turn.jsonl`).
//! A retried turn (after the agent or the plugin stopped mid-turn) is told in its prompt what
//! already ran; a call it makes again — matched by tool name and input, as the agent's call ids
//! change — answers with its recorded result, or, if it started without a result, is reported
//! as interrupted; neither runs again. The earlier calls' effects hold for the retried turn.

use serde_json::Value;

use super::handle::MessageProcessor;
use crate::host::Host;
use crate::journal::{Journal, JournalRecord};
use crate::message::RoutedMessage;
use crate::settings::Settings;
use crate::tools::{ToolEffect, ToolOutput};

/// How much of an earlier call's input and result the retried prompt quotes.
const NOTE_CHARS: usize = 200;

/// What the agent reads when it calls a tool after asking the user a question in the turn.
const AFTER_QUESTION: &str = "Not run: you asked the user a question in this turn; wait for the answer.";

/// A call an earlier run of the turn made.
#[derive(Debug, Clone, PartialEq)]
struct EarlierCall {
    name: String,
    input: Value,
    /// Its result, if it finished.
    done: Option<ToolOutput>,
    /// A call of this run was answered with it.
    matched: bool,
}

/// The `smarthole` calls earlier runs of a turn made, from its journal.
#[derive(Debug, Default)]
pub(super) struct EarlierCalls {
    calls: Vec<EarlierCall>,
}

impl EarlierCalls {
    /// The calls the journal's records name, in the order they started.
    pub(super) fn from_records(records: &[JournalRecord]) -> Self {
        let mut started: Vec<(String, EarlierCall)> = Vec::new();
        for record in records {
            match record {
                JournalRecord::AgentToolStarted { call, name, input } => started.push((
                    call.clone(),
                    EarlierCall { name: name.clone(), input: input.clone(), done: None, matched: false },
                )),
                JournalRecord::AgentToolDone { call, content, is_error, effect } => {
                    if let Some((_, earlier)) = started.iter_mut().find(|(c, _)| c == call) {
                        let output =
                            ToolOutput { content: content.clone(), is_error: *is_error, effect: effect.clone() };
                        earlier.done = Some(output);
                    }
                }
                _ => {}
            }
        }
        EarlierCalls { calls: started.into_iter().map(|(_, call)| call).collect() }
    }

    /// The answer to a call of `name` with `input` that an earlier run made (the oldest one not
    /// answered yet): its recorded result, or the report that it was interrupted.
    fn answer(&mut self, name: &str, input: &Value) -> Option<ToolOutput> {
        let earlier = self.calls.iter_mut().find(|c| !c.matched && c.name == name && c.input == *input)?;
        earlier.matched = true;
        Some(match &earlier.done {
            Some(done) => ToolOutput { effect: ToolEffect::None, ..done.clone() },
            None => interrupted(name),
        })
    }

    /// The effects of the calls that finished, in order: they hold for the retried turn.
    pub(super) fn effects(&self) -> impl Iterator<Item = &ToolEffect> {
        self.calls.iter().filter_map(|c| c.done.as_ref().map(|d| &d.effect))
    }

    /// The tools that ran, for the turn's list of tools used.
    pub(super) fn names(&self) -> impl Iterator<Item = &str> {
        self.calls.iter().filter(|c| c.done.is_some()).map(|c| c.name.as_str())
    }

    /// What the retried prompt tells the agent about the earlier run, if it made calls.
    pub(super) fn note(&self) -> Option<String> {
        if self.calls.is_empty() {
            return None;
        }
        let mut note = String::from(
            "<earlier_attempt>\nAn earlier attempt at answering this message stopped before it finished. \
These SmartHole tool calls already ran in it; do not repeat them (the same call again gives its recorded \
result and does not run again):",
        );
        for call in &self.calls {
            let input = short(&call.input.to_string());
            let outcome = match &call.done {
                Some(done) if done.is_error => format!("failed: {}", short(&done.content)),
                Some(done) => format!("done: {}", short(&done.content)),
                None => "interrupted, its outcome is unknown: check its effect before doing it again".to_owned(),
            };
            note.push_str(&format!("\n- {} {input} — {outcome}", call.name));
        }
        note.push_str("\n</earlier_attempt>");
        Some(note)
    }
}

/// The result of a call that started in an earlier run and left no result: never run again.
fn interrupted(name: &str) -> ToolOutput {
    ToolOutput::error(format!(
        "The {name} call was interrupted in an earlier attempt (the app or the agent stopped while it ran); its \
outcome is unknown and it was not run again. Check its effect before trying again."
    ))
}

fn short(text: &str) -> String {
    match text.char_indices().nth(NOTE_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// The `smarthole` calls of one run of an ACP turn: journaled, matched against the earlier
/// runs', stopped after a question.
pub(super) struct RunCalls {
    pub(super) earlier: EarlierCalls,
    /// This run's number (the inbox entry's attempt), naming its calls in the journal.
    attempt: u32,
    made: u32,
    /// The agent asked the user a question in this run: the turn ends and waits.
    pub(super) asked: bool,
}

impl RunCalls {
    pub(super) fn new(earlier: EarlierCalls, attempt: u32) -> Self {
        RunCalls { earlier, attempt, made: 0, asked: false }
    }
}

impl<H: Host + 'static> MessageProcessor<H> {
    /// What earlier runs of `message`'s turn journaled (nothing on its first run).
    pub(super) async fn earlier_records(&self, message: &RoutedMessage, attempts: u32) -> Vec<JournalRecord> {
        if attempts <= 1 {
            return Vec::new();
        }
        Journal::new(&self.inner.host, &message.id).load().await.unwrap_or_default()
    }

    /// Answers one `smarthole` call of the turn: from an earlier run's record, refused after a
    /// question, or run — journaled as it starts and as it ends.
    pub(super) async fn served_call(
        &self,
        message: &RoutedMessage,
        settings: &Settings,
        calls: &mut RunCalls,
        (name, input): (&str, &Value),
        tool_use_id: String,
    ) -> ToolOutput {
        if let Some(recorded) = calls.earlier.answer(name, input) {
            return recorded;
        }
        if calls.asked {
            return ToolOutput::error(AFTER_QUESTION);
        }
        calls.made += 1;
        let call = format!("{}.{}", calls.attempt, calls.made);
        let journal = Journal::new(&self.inner.host, &message.id);
        let (name_owned, input_owned) = (name.to_owned(), input.clone());
        journal
            .record(&JournalRecord::AgentToolStarted { call: call.clone(), name: name_owned, input: input_owned })
            .await;
        let output = self.run_served(message, settings, name, input, tool_use_id).await;
        let (content, is_error, effect) = (output.content.clone(), output.is_error, output.effect.clone());
        journal.record(&JournalRecord::AgentToolDone { call, content, is_error, effect }).await;
        calls.asked |= matches!(output.effect, ToolEffect::Question { .. });
        output
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn started(call: &str, name: &str, input: Value) -> JournalRecord {
        JournalRecord::AgentToolStarted { call: call.into(), name: name.into(), input }
    }

    fn done(call: &str, content: &str) -> JournalRecord {
        JournalRecord::AgentToolDone {
            call: call.into(),
            content: content.into(),
            is_error: false,
            effect: ToolEffect::None,
        }
    }

    #[test]
    fn a_retried_call_is_matched_by_name_and_input_once() {
        let records = [
            JournalRecord::Started,
            started("1.1", "edit_file", json!({"path": "a.md"})),
            done("1.1", "Edited a.md"),
            started("1.2", "send_message", json!({"message": "hi"})),
        ];
        let mut earlier = EarlierCalls::from_records(&records);
        assert!(earlier.answer("edit_file", &json!({"path": "b.md"})).is_none(), "another input runs");
        assert_eq!(earlier.answer("edit_file", &json!({"path": "a.md"})), Some(ToolOutput::ok("Edited a.md")));
        assert!(earlier.answer("edit_file", &json!({"path": "a.md"})).is_none(), "matched once");
        let interrupted = earlier.answer("send_message", &json!({"message": "hi"})).expect("matched");
        assert!(interrupted.is_error && interrupted.content.contains("interrupted"), "{interrupted:?}");
        let note = earlier.note().expect("a note");
        assert!(note.contains("- edit_file {\"path\":\"a.md\"} — done: Edited a.md"), "{note}");
        assert!(note.contains("- send_message {\"message\":\"hi\"} — interrupted"), "{note}");
        assert_eq!(earlier.names().collect::<Vec<_>>(), ["edit_file"]);
    }

    #[test]
    fn the_journal_records_read_back() {
        let records = [started("2.1", "edit_file", json!({"path": "a.md"})), done("2.1", "ok")];
        for record in records {
            let line = serde_json::to_string(&record).unwrap();
            assert_eq!(serde_json::from_str::<JournalRecord>(&line).unwrap(), record, "{line}");
        }
    }
}
