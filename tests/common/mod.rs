//! Helpers shared by the native integration tests.
#![allow(dead_code)]

pub mod acp;
pub mod agent_api;
pub mod attachments;
pub mod schedules;
pub mod vault_ops;

use serde_json::{json, Value};
use smarthole_agent::testing::internals::{log_path, ConversationIndex, INDEX_PATH};
use smarthole_agent::testing::{FakeHost, Reply};
use smarthole_agent::HistoryLine;
use smarthole_agent::{Event, Stage};
use smarthole_agent::{MessageProcessor, Settings};

pub fn settings() -> Settings {
    Settings {
        base_url: "http://model.test".into(),
        model: "test-model".into(),
        api_key: "test-key".into(),
        ..Settings::default()
    }
}

pub fn processor(host: &FakeHost) -> MessageProcessor<FakeHost> {
    processor_with(host, settings())
}

/// A processor, initialised; when the hub is on, connected to a fake hub that accepted its
/// registration.
pub fn processor_with(host: &FakeHost, settings: Settings) -> MessageProcessor<FakeHost> {
    let hub = settings.hub_enabled;
    let p = MessageProcessor::new(host.clone(), settings).expect("valid settings");
    host.run(p.initialize()).expect("initialize");
    if hub {
        connect_hub(host, &p);
    }
    p
}

/// The registration answer the hub gives.
pub const REGISTERED: &str = r#"{"type":"registration_response","payload":{"success":true,"clientId":"test-client"}}"#;

/// Opens the socket the processor asked for and accepts its registration; returns the socket.
pub fn connect_hub(host: &FakeHost, p: &MessageProcessor<FakeHost>) -> u64 {
    let socket = host.last_hub_socket().expect("the processor asked for a hub socket");
    let before = host.hub_registrations().len();
    p.hub_opened(socket);
    assert_eq!(host.hub_registrations().len(), before + 1, "one registration frame");
    p.hub_frame(socket, REGISTERED);
    assert_eq!(p.hub_status().0, smarthole_agent::HubStatus::Connected);
    socket
}

pub fn direct(id: &str, text: &str) -> Value {
    json!({"id": id, "text": text, "timestamp": "2026-02-05T10:00:00.000Z", "source": "direct"})
}

pub fn from_hub(id: &str, text: &str) -> Value {
    json!({"id": id, "text": text, "timestamp": "2026-02-05T10:00:00.000Z", "source": "websocket",
           "metadata": {"inputMethod": "voice", "directRouted": false}})
}

/// Every history line of every conversation, in index order.
pub fn history(host: &FakeHost) -> Vec<HistoryLine> {
    let Some(index) = host.file(INDEX_PATH) else { return Vec::new() };
    let index: ConversationIndex = serde_json::from_str(&index).expect("index parses");
    index
        .conversations
        .iter()
        .flat_map(|c| {
            host.file(&log_path(&c.id))
                .unwrap_or_default()
                .lines()
                .map(|l| serde_json::from_str::<HistoryLine>(l).expect("history line parses"))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// How many times each message id opens a turn in history (its user line).
pub fn recorded_count(host: &FakeHost, message_id: &str) -> usize {
    history(host).iter().filter(|l| l.message_id == message_id && l.id.ends_with("#0")).count()
}

/// The inbox's files but its ready slots (empty files kept for the next messages: no message).
pub fn inbox(host: &FakeHost) -> Vec<String> {
    host.paths_under("inbox")
        .into_iter()
        .filter(|p| !(p.ends_with(".slot") && host.file(p).is_some_and(|t| t.is_empty())))
        .collect()
}

pub fn stages(host: &FakeHost, message_id: &str) -> Vec<Stage> {
    host.events()
        .into_iter()
        .filter_map(|e| match e {
            Event::Stage { message_id: id, stage, .. } if id == message_id => Some(stage),
            _ => None,
        })
        .collect()
}

pub fn streamed_text(host: &FakeHost, message_id: &str) -> String {
    host.events()
        .into_iter()
        .filter_map(|e| match e {
            Event::TextDelta { message_id: id, text, .. } if id == message_id => Some(text),
            _ => None,
        })
        .collect()
}

pub fn agent_messages(host: &FakeHost) -> Vec<(String, bool)> {
    host.events()
        .into_iter()
        .filter_map(|e| match e {
            Event::AgentMessage { content, is_question, .. } => Some((content, is_question)),
            _ => None,
        })
        .collect()
}

/// Request times relative to the first request.
pub fn request_offsets(host: &FakeHost) -> Vec<u64> {
    let requests = host.requests();
    let first = requests.first().map(|r| r.at_ms).unwrap_or(0);
    requests.iter().map(|r| r.at_ms - first).collect()
}

/// Runs one tool call through a turn (message `id`); returns the result the model read next, and
/// whether it was an error.
pub fn tool_call(
    host: &FakeHost,
    p: &MessageProcessor<FakeHost>,
    id: &str,
    name: &str,
    input: Value,
) -> (String, bool) {
    host.script([Reply::tools("", &[("t1", name, input)]), Reply::text("ok")]);
    let result = host.run(p.process(direct(id, "do it")));
    assert!(result.success, "{result:?}");
    tool_result(host, "t1")
}

/// The newest result the model read for the tool call `tool_use_id`, and whether it was an error
/// (tests reuse tool ids from turn to turn).
pub fn tool_result(host: &FakeHost, tool_use_id: &str) -> (String, bool) {
    host.requests()
        .iter()
        .rev()
        .flat_map(|r| r.body["messages"].as_array().cloned().unwrap_or_default().into_iter().rev())
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .find(|b| b["type"] == "tool_result" && b["tool_use_id"] == tool_use_id)
        .map(|b| (b["content"].as_str().unwrap_or_default().to_owned(), b["is_error"] == json!(true)))
        .expect("the model was told the tool's result")
}

/// A request's `messages` as the conversation reads, without what issue 17 adds for the prompt
/// cache: the message context block that opens each user message (`<context>…`) and the
/// `cache_control` marks. Tests about which turns are sent compare this.
pub fn sent_messages(body: &Value) -> Value {
    let mut messages = body["messages"].clone();
    for message in messages.as_array_mut().into_iter().flatten() {
        if let Some(content) = message["content"].as_array_mut() {
            content.retain(|b| !b["text"].as_str().is_some_and(|t| t.starts_with("<context>")));
            for block in content.iter_mut() {
                if let Some(block) = block.as_object_mut() {
                    block.remove("cache_control");
                }
            }
        }
    }
    messages
}

/// The message context a request sent: the newest `<context>` block (it opens the user message of
/// the turn: the time, the source, the conversation's state, recent summaries, a pending question).
pub fn message_context(body: &Value) -> String {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    messages
        .iter()
        .filter(|m| m["role"] == "user")
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .filter_map(|b| b["text"].as_str().map(str::to_owned))
        .rfind(|t| t.starts_with("<context>"))
        .unwrap_or_default()
}

/// A change to the vault while the core runs, reported as the host reports it (the index
/// properties' steps): a write, a rename (both paths reported) or a delete; nothing is reported
/// for a rename or delete of a note that is not there.
pub enum VaultChange<'a> {
    Write(&'a str, &'a str),
    Rename(&'a str, &'a str),
    Delete(&'a str),
}

/// Makes the change in the fake vault and tells the processor.
pub fn change_vault(host: &FakeHost, p: &MessageProcessor<FakeHost>, change: VaultChange<'_>) {
    match change {
        VaultChange::Write(path, text) => {
            host.put_note(path, text);
            p.vault_changed(path, "modify");
        }
        VaultChange::Rename(from, to) => {
            if host.rename_note(from, to) {
                p.vault_changed(from, "rename");
                p.vault_changed(to, "rename");
            }
        }
        VaultChange::Delete(path) => {
            if host.remove_note(path) {
                p.vault_changed(path, "delete");
            }
        }
    }
}
