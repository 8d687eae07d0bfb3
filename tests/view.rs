//! What the chat view asks of the core: the hidden "chat opened" line (UC014), new chat,
//! reopening a past conversation, reading one, clearing history.

mod common;

use common::*;
use smarthole_agent::conversation::index::ConversationIndex;
use smarthole_agent::conversation::{ConversationStatus, LineRole};
use smarthole_agent::testing::{FakeHost, Reply};

const SUMMARY: &str = "You title and summarise conversations";

fn index(host: &FakeHost) -> ConversationIndex {
    serde_json::from_str(&host.file("conversations/index.json").unwrap()).unwrap()
}

#[test]
fn opening_the_chat_writes_a_hidden_line_that_never_reaches_the_model() {
    let host = FakeHost::new();
    host.script([Reply::text("hello!")]);
    let p = processor(&host);
    let id = host.run(p.record_system_line("chat opened")).unwrap();
    host.run(p.process(direct("a", "hi")));
    let lines = host.run(p.conversation_lines(&id)).unwrap();
    assert_eq!(
        lines.iter().map(|l| (l.role, l.visible)).collect::<Vec<_>>(),
        [(LineRole::System, false), (LineRole::User, true), (LineRole::Assistant, true)]
    );
    assert!(!host.requests()[0].body.to_string().contains("chat opened"));
    assert_eq!(host.requests()[0].body["messages"].as_array().unwrap().len(), 1);
    assert_eq!(index(&host).conversations[0].title.as_deref(), Some("hi"), "titled by the first message");
}

#[test]
fn opening_the_chat_after_a_long_break_starts_the_new_conversation() {
    let host = FakeHost::new();
    host.script([Reply::text("one"), Reply::text("two")]);
    host.script_matching(SUMMARY, Reply::text(r#"{"title": "Old", "summary": "s"}"#));
    let p = processor(&host);
    host.run(p.process(direct("a", "first")));
    host.run_for(31 * 60_000);
    let id = host.run(p.record_system_line("chat opened")).unwrap();
    host.run(p.process(direct("b", "second")));
    let idx = index(&host);
    assert_eq!(idx.conversations.len(), 2);
    assert_eq!(idx.current.as_deref(), Some(id.as_str()));
    assert_eq!(idx.conversations[0].end_reason.as_deref(), Some("idle"));
    let body = &host.requests_matching("second")[0].body;
    assert_eq!(body["messages"].as_array().unwrap().len(), 1, "the old conversation is not sent");
}

#[test]
fn new_chat_ends_the_current_conversation() {
    let host = FakeHost::new();
    host.script([Reply::text("one"), Reply::text("two")]);
    host.script_matching(SUMMARY, Reply::text(r#"{"title": "Old", "summary": "s"}"#));
    let p = processor(&host);
    host.run(p.process(direct("a", "first")));
    host.run(p.new_conversation()).unwrap();
    assert!(host.run(p.current_conversation()).is_none());
    host.run(p.process(direct("b", "second")));
    let idx = index(&host);
    assert_eq!(
        (idx.conversations[0].status, idx.conversations[0].end_reason.as_deref()),
        (ConversationStatus::Archived, Some("new chat"))
    );
    assert_eq!(idx.conversations.len(), 2);
}

#[test]
fn a_past_conversation_can_be_opened_and_continued() {
    let host = FakeHost::new();
    host.script([Reply::text("Miso is noted."), Reply::text("unrelated"), Reply::text("Your cat is Miso.")]);
    host.script_matching(SUMMARY, Reply::text(r#"{"title": "Cat", "summary": "s"}"#));
    host.script_matching(SUMMARY, Reply::text(r#"{"title": "Other", "summary": "s"}"#));
    let p = processor(&host);
    host.run(p.process(direct("a", "my cat is Miso")));
    let cat = host.run(p.current_conversation()).unwrap().id;
    host.run(p.new_conversation()).unwrap();
    host.run(p.process(direct("b", "something else")));
    host.run_for(1_000);
    let opened = host.run(p.open_conversation(&cat)).unwrap();
    assert_eq!(opened.status, ConversationStatus::Active, "reopened");
    assert!(opened.ended_at.is_none());
    host.run(p.process(direct("c", "what is my cat called?")));
    let body = &host.requests_matching("what is my cat called?")[0].body;
    assert_eq!(body["messages"][0]["content"][0]["text"], "my cat is Miso", "its history came back");
    let idx = index(&host);
    assert_eq!(idx.current.as_deref(), Some(cat.as_str()));
    assert_eq!(idx.conversations[1].end_reason.as_deref(), Some("switched to another conversation"));
    assert!(host.run(p.open_conversation("c-missing")).is_err());
}

#[test]
fn clear_history_deletes_conversations_and_keeps_the_inbox() {
    let host = FakeHost::new();
    host.script([Reply::text("one"), Reply::error(401, "authentication_error")]);
    let p = processor(&host);
    host.run(p.process(direct("a", "first")));
    host.run(p.process(direct("b", "fails, stays in the inbox")));
    assert_eq!(host.run(p.clear_history()).unwrap(), 1);
    assert!(host.paths_under("conversations").iter().all(|p| p.ends_with("index.json")));
    assert!(index(&host).conversations.is_empty());
    assert_eq!(inbox(&host), ["inbox/b.json"]);
}

#[test]
fn view_operations_wait_for_the_message_in_flight() {
    let host = FakeHost::new();
    host.script([Reply::slow_text("a slow answer", 100)]);
    let p = processor(&host);
    host.run(async {
        let message = p.process(direct("a", "first"));
        let new_chat = p.new_conversation();
        let (result, done) = futures::join!(message, new_chat);
        assert!(result.success);
        done.unwrap();
    });
    // The answer went into the conversation that then ended, not into a fresh one.
    let idx = index(&host);
    assert_eq!(idx.conversations.len(), 1);
    assert!(idx.current.is_none());
}
