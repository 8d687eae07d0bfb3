//! Issue 37: what a message writes to its conversation's history is stored once. The message
//! context (time, source, state, the recent conversations) goes with every user message and is
//! sent again byte for byte with the later ones (a prompt-cache prefix), but on disk a line holds
//! it in full only now and then: the others hold an edit of the last full one. Files written
//! before keep reading, and everything reads back as it was sent, after a restart too.

mod common;

use common::*;
use serde_json::Value;
use smarthole_agent::testing::internals::{log_path, parse_log, ConversationIndex, INDEX_PATH};
use smarthole_agent::testing::{FakeHost, Reply};
use smarthole_agent::HistoryLine;

/// The current conversation's file.
fn current_file(host: &FakeHost) -> String {
    let index: ConversationIndex = serde_json::from_str(&host.file(INDEX_PATH).unwrap()).unwrap();
    host.file(&log_path(index.current.as_deref().unwrap())).unwrap()
}

/// The user lines of a file as this version reads them.
fn user_lines(text: &str) -> Vec<HistoryLine> {
    let log = parse_log(text);
    assert!(log.warnings.is_empty(), "{:?}", log.warnings);
    log.turns.into_iter().map(|t| t.lines[0].clone()).collect()
}

/// The context blocks of a request's user messages, oldest first.
fn contexts_sent(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .filter_map(|m| m["content"][0]["text"].as_str().filter(|t| t.starts_with("<context>")).map(str::to_owned))
        .collect()
}

#[test]
fn a_context_is_stored_in_full_now_and_then_and_every_one_is_sent_again_as_it_was_after_a_restart() {
    let host = FakeHost::new();
    let turns = 150;
    host.script((0..=turns).map(|i| Reply::text(&format!("answer {i}"))));
    let p = processor(&host);
    let mut first_sent = Vec::new();
    for i in 0..turns {
        host.advance(61_000 + i as u64);
        assert!(host.run(p.process(direct(&format!("m{i}"), &format!("message {i}")))).success);
        let body = host.requests().last().unwrap().body.clone();
        first_sent.push(contexts_sent(&body).pop().unwrap());
    }
    let text = current_file(&host);
    let full = text.lines().filter(|l| l.contains("\"context\":\"")).count();
    // The first message opened the conversation (its context has no state to tell): then one in
    // full for every 64 edits.
    assert!(full <= turns / 64 + 2, "{full} of {turns} user lines hold their context in full");
    let stored: Vec<String> = user_lines(&text).into_iter().map(|l| l.context.unwrap()).collect();
    assert_eq!(stored, first_sent, "every line reads back with the context it was sent with");
    // After a restart, the next request sends every earlier message with that same context.
    drop(p);
    let p = processor(&host);
    host.advance(61_000);
    assert!(host.run(p.process(direct("after", "after the restart"))).success);
    let sent = contexts_sent(&host.requests().last().unwrap().body);
    assert_eq!(sent[..turns], first_sent[..]);
}

/// A history written before issue 37 (every user line with its context in full) reads as it did,
/// and the lines appended after it store their contexts as edits of its last one.
#[test]
fn an_old_format_history_still_reads_and_goes_on_in_the_new_format() {
    let host = FakeHost::new();
    host.script([Reply::text("first"), Reply::text("second"), Reply::text("third")]);
    let p = processor(&host);
    host.run(p.process(direct("a", "start a conversation")));
    drop(p);
    let path =
        log_path(&serde_json::from_str::<ConversationIndex>(&host.file(INDEX_PATH).unwrap()).unwrap().current.unwrap());
    let old = |id: &str, minute: u32| {
        let context = format!("<context>\nCurrent time (UTC): 2026-02-05T10:{minute:02}:00.000Z. This message was typed in the Obsidian chat view.\n\nThis conversation is active.\n</context>");
        let user = format!(
            r#"{{"id":"{id}#0","messageId":"{id}","role":"user","content":[{{"type":"text","text":"old {id}"}}],"source":"direct","visible":true,"ts":"2026-02-05T10:{minute:02}:01.000Z","context":{}}}"#,
            serde_json::to_string(&context).unwrap()
        );
        let answer = format!(
            r#"{{"id":"{id}#1","messageId":"{id}","role":"assistant","content":[{{"type":"text","text":"answer {id}"}}],"source":"direct","visible":true,"ts":"2026-02-05T10:{minute:02}:01.000Z","turn":{{"toolsUsed":[]}}}}"#
        );
        (context, format!("{user}\n{answer}\n"))
    };
    let (first_context, first) = old("o1", 1);
    let (second_context, second) = old("o2", 2);
    host.put_file(&path, &(first + &second));
    let p = processor(&host);
    host.run(p.process(direct("b", "go on")));
    let sent = contexts_sent(&host.requests().last().unwrap().body);
    assert_eq!(sent[..2], [first_context.clone(), second_context.clone()], "old lines send their contexts");
    host.run(p.process(direct("c", "and on")));
    let text = host.file(&path).unwrap();
    let c = text.lines().find(|l| l.starts_with(r#"{"id":"c#0""#)).unwrap();
    assert!(c.contains("\"contextEdit\"") && !c.contains("\"context\""), "{c}");
    let read: Vec<Option<String>> = user_lines(&text).into_iter().map(|l| l.context).collect();
    let sent = contexts_sent(&host.requests().last().unwrap().body);
    assert_eq!(read[..2], [Some(first_context), Some(second_context)]);
    assert_eq!(read[2..].iter().map(|c| c.clone().unwrap()).collect::<Vec<_>>(), sent[2..]);
}
