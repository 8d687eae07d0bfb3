//! What the chat view asks of the core: the hidden "chat opened" line (UC014), new chat,
//! reopening a past conversation, reading one, clearing history.

mod common;

use common::*;
use smarthole_agent::testing::internals::ConversationIndex;
use smarthole_agent::testing::{FakeHost, Reply};
use smarthole_agent::MessageProcessor;
use smarthole_agent::{ConversationStatus, LineRole};

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

/// A processor whose conversation has one answered message; the next answer is "two", and a
/// summary is ready for when the conversation ends.
fn after_a_first_message() -> (FakeHost, MessageProcessor<FakeHost>) {
    let host = FakeHost::new();
    host.script([Reply::text("one"), Reply::text("two")]);
    host.script_matching(SUMMARY, Reply::text(r#"{"title": "Old", "summary": "s"}"#));
    let p = processor(&host);
    host.run(p.process(direct("a", "first")));
    (host, p)
}

#[test]
fn opening_the_chat_after_a_long_break_starts_the_new_conversation() {
    let (host, p) = after_a_first_message();
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
    let (host, p) = after_a_first_message();
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
    assert_eq!(sent_messages(body)[0]["content"][0]["text"], "my cat is Miso", "its history came back");
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
    // What was set aside from a conversation's files, and the turns' undo records.
    let id = index(&host).current.unwrap();
    host.put_file(&format!("conversations/{id}.torn-5.jsonl"), "{\"id\": \"a#1\", \"ro");
    host.put_file("conversations/index.quarantine", "{}\n");
    host.put_file("undo/a.jsonl", "{}\n");
    host.put_file("undo/b.jsonl", "{}\n");
    assert_eq!(host.run(p.clear_history()).unwrap(), 1);
    assert_eq!(host.paths_under("conversations"), ["conversations/index.json"]);
    assert!(index(&host).conversations.is_empty());
    assert_eq!(inbox(&host), ["inbox/b.json", "inbox/b.turn.jsonl"], "the entry and its run's journal");
    assert_eq!(host.paths_under("undo"), ["undo/b.jsonl"], "the waiting message's turn may still resume");
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

/// Ends `n` conversations, each with one message and a summary.
fn end_conversations(host: &FakeHost, p: &smarthole_agent::MessageProcessor<FakeHost>, n: usize) {
    for i in 0..n {
        host.script([Reply::text(&format!("answer {i}"))]);
        host.script_matching(
            SUMMARY,
            Reply::text(&format!(r#"{{"title": "Topic {i}", "summary": "About topic {i}."}}"#)),
        );
        host.run(p.process(direct(&format!("m{i}"), &format!("topic {i}"))));
        host.run(p.new_conversation()).unwrap();
        host.run_for(1_000);
    }
}

#[test]
fn old_archived_conversations_leave_the_index_for_the_archive_and_start_up_never_reads_it() {
    let host = FakeHost::new();
    let p = processor(&host);
    end_conversations(&host, &p, 9);
    let idx = index(&host);
    assert_eq!(idx.conversations.len(), 5, "only the five most recent archived stay in the index");
    assert_eq!(
        idx.conversations.iter().map(|c| c.title.clone().unwrap()).collect::<Vec<_>>(),
        ["Topic 4", "Topic 5", "Topic 6", "Topic 7", "Topic 8"]
    );
    let archive = host.file("conversations/archive.jsonl").unwrap();
    assert_eq!(archive.lines().count(), 4);
    // Listings see all of them.
    let all = host.run(p.conversations()).unwrap();
    assert_eq!(all.len(), 9);
    assert_eq!(all[0].title.as_deref(), Some("Topic 0"));
    // A restart reads the index and nothing of the archive.
    drop(p);
    host.clear_records();
    let before = host.reads().len();
    let p = processor(&host);
    let reads = host.reads()[before..].to_vec();
    assert!(reads.contains(&"conversations/index.json".to_owned()));
    assert!(!reads.iter().any(|r| r.contains("archive")), "{reads:?}");
    // An archived one can still be read and reopened.
    let oldest = all[0].id.clone();
    host.script([
        Reply::tools("", &[("g", "get_conversation", serde_json::json!({"conversation_id": oldest}))]),
        Reply::text("It was about topic 0."),
    ]);
    host.run(p.process(direct("q", "what was the first one about?")));
    let read = host.requests_matching("what was the first one about?")[1].body["messages"].to_string();
    assert!(read.contains("User: topic 0"), "{read}");
    let reopened = host.run(p.open_conversation(&oldest)).unwrap();
    assert_eq!(reopened.status, ConversationStatus::Active);
    assert_eq!(index(&host).current.as_deref(), Some(oldest.as_str()));
}

#[test]
fn a_summary_that_arrives_after_its_conversation_left_the_index_goes_to_the_archive() {
    let host = FakeHost::new();
    let p = processor(&host);
    host.script([Reply::text("first")]);
    host.script_matching(SUMMARY, Reply::slow_text(r#"{"title": "Late", "summary": "A slow summary."}"#, 60_000));
    host.run(p.process(direct("slow", "the slow one")));
    host.run(p.new_conversation()).unwrap();
    end_conversations(&host, &p, 6);
    let slow =
        host.run(p.conversations()).unwrap().into_iter().find(|c| c.title.as_deref() == Some("the slow one")).unwrap();
    assert!(!index(&host).conversations.iter().any(|c| c.id == slow.id), "evicted before its summary");
    host.run_for(120_000);
    let all = host.run(p.conversations()).unwrap();
    let updated = all.iter().find(|c| c.id == slow.id).unwrap();
    assert_eq!((updated.title.as_deref(), updated.summary.as_deref()), (Some("Late"), Some("A slow summary.")));
    assert!(host.file("conversations/archive.jsonl").unwrap().contains("A slow summary."));
}

#[test]
fn clear_history_empties_the_archive_too() {
    let host = FakeHost::new();
    let p = processor(&host);
    end_conversations(&host, &p, 7);
    assert_eq!(host.run(p.clear_history()).unwrap(), 7);
    assert!(host.file("conversations/archive.jsonl").is_none());
    assert!(host.run(p.conversations()).unwrap().is_empty());
}

#[test]
fn the_view_reads_a_conversation_in_pages_that_add_up_to_the_whole() {
    let host = FakeHost::new();
    host.script((0..7).map(|i| Reply::text(&format!("answer {i}"))).collect::<Vec<_>>());
    let p = processor(&host);
    for i in 0..7 {
        host.run(p.process(direct(&format!("m{i}"), &format!("question {i}"))));
    }
    let id = index(&host).current.unwrap();
    let whole = host.run(p.conversation_lines(&id)).unwrap();
    let newest = host.run(p.conversation_page(&id, None, 3)).unwrap();
    assert_eq!(newest.lines, whole[whole.len() - 6..], "the newest three turns, oldest first");
    let (mut lines, mut before, mut pages) = (newest.lines, newest.before, 1);
    while let Some(cursor) = before {
        let page = host.run(p.conversation_page(&id, Some(cursor), 3)).unwrap();
        lines.splice(0..0, page.lines);
        before = page.before;
        pages += 1;
    }
    assert_eq!(lines, whole);
    assert_eq!(pages, 3);
    assert!(host.run(p.conversation_page("no-such", None, 3)).is_err());
}

#[test]
fn the_newest_pages_of_the_current_conversation_come_from_memory_and_a_file_changed_outside_is_read_again() {
    let host = FakeHost::new();
    let turns = 250;
    host.script((0..turns).map(|i| Reply::text(&format!("answer {i}"))).collect::<Vec<_>>());
    let p = processor(&host);
    for i in 0..turns {
        host.run(p.process(direct(&format!("m{i}"), &format!("question {i}"))));
    }
    let id = index(&host).current.unwrap();
    let whole = host.run(p.conversation_lines(&id)).unwrap();
    // A restart: the conversation is loaded from the end of its file.
    p.dispose();
    drop(p);
    let p = processor(&host);
    let log = smarthole_agent::testing::internals::log_path(&id);
    let reads_of_log = || host.reads().iter().filter(|r| **r == log).count();
    let at_start = reads_of_log();
    let newest = host.run(p.conversation_page(&id, None, 40)).unwrap();
    let before = host.run(p.conversation_page(&id, newest.before, 40)).unwrap();
    assert_eq!(reads_of_log(), at_start, "the newest pages were read from memory");
    let mut lines = before.lines.clone();
    lines.extend(newest.lines.clone());
    assert_eq!(lines, whole[whole.len() - lines.len()..], "the same lines a read of the file gives");
    // Further back than memory holds: the file is read, and the pages still add up.
    let (mut all, mut cursor) = (lines, before.before);
    while let Some(at) = cursor {
        let page = host.run(p.conversation_page(&id, Some(at), 40)).unwrap();
        all.splice(0..0, page.lines);
        cursor = page.before;
    }
    assert_eq!(all, whole);
    assert!(reads_of_log() > at_start);
    // A new turn goes on in memory too.
    host.script([Reply::text("the newest answer")]);
    host.run(p.process(direct("late", "one more")));
    let reads = reads_of_log();
    let newest = host.run(p.conversation_page(&id, None, 2)).unwrap();
    assert_eq!(reads_of_log(), reads);
    assert_eq!(newest.lines, host.run(p.conversation_lines(&id)).unwrap()[whole.len() + 2 - 4..]);
    // The file changed by someone else (a sync): read again.
    let text = host.file(&log).unwrap();
    host.put_file(&log, &text.replace("the newest answer", "the newest answer, changed elsewhere"));
    let page = host.run(p.conversation_page(&id, None, 2)).unwrap();
    assert!(serde_json::to_string(&page.lines).unwrap().contains("changed elsewhere"), "the file as it is now");
}

#[test]
fn a_conversations_cost_is_added_up_once_then_kept_in_step_with_each_turn() {
    let host = FakeHost::new();
    host.script((0..4).map(|i| Reply::text(&format!("answer {i}"))).collect::<Vec<_>>());
    let p = processor(&host);
    for i in 0..3 {
        host.run(p.process(direct(&format!("m{i}"), &format!("question {i}"))));
    }
    let id = index(&host).current.unwrap();
    let log = smarthole_agent::testing::internals::log_path(&id);
    let reads_of_log = || host.reads().iter().filter(|r| **r == log).count();
    let first = host.run(p.conversation_usage(&id)).unwrap();
    assert_eq!((first.model_calls, first.output_tokens), (3, 15), "the fake server reports 5 output tokens a call");
    // The view asks again after each answer: the sum grows without the file being read again.
    let reads = reads_of_log();
    host.run(p.record_system_line("chat opened")).unwrap();
    host.run(p.process(direct("m3", "question 3")));
    let after = host.run(p.conversation_usage(&id)).unwrap();
    assert_eq!((after.model_calls, after.output_tokens), (4, 20));
    assert_eq!(reads_of_log(), reads, "added to, not read again");
    // What a restart adds up from the file is the same.
    p.dispose();
    drop(p);
    let p = processor(&host);
    assert_eq!(host.run(p.conversation_usage(&id)).unwrap(), after);
    // The file changed by someone else (a sync dropped the newest turn): added up again.
    let text = host.file(&log).unwrap();
    let kept: Vec<&str> = text.lines().collect();
    host.put_file(&log, &(kept[..kept.len() - 2].join("\n") + "\n"));
    let reads = reads_of_log();
    let changed = host.run(p.conversation_usage(&id)).unwrap();
    assert_eq!((changed.model_calls, changed.output_tokens), (3, 15));
    assert!(reads_of_log() > reads);
}
