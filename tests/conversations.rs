//! Conversations: the idle boundary decided before a message is processed, pending questions
//! across a restart, stale cleanup in virtual time, titles and summaries in the background,
//! retrospection newest-first and never in the way of a reply, get_conversation.

mod common;

use common::*;
use serde_json::{json, Value};
use smarthole_agent::testing::internals::ConversationIndex;
use smarthole_agent::testing::{FakeHost, Reply};
use smarthole_agent::ConversationStatus;
use smarthole_agent::Event;
use smarthole_agent::MessageProcessor;
use smarthole_agent::Settings;

const MINUTE: u64 = 60_000;
/// How the background calls are told apart from the chat (words of their instructions).
const SUMMARY: &str = "You title and summarise conversations";
const RETROSPECTION: &str = "You review a finished conversation";

fn index(host: &FakeHost) -> ConversationIndex {
    serde_json::from_str(&host.file("conversations/index.json").expect("index exists")).unwrap()
}

fn summary_reply(title: &str, summary: &str) -> Reply {
    Reply::text(&json!({"title": title, "summary": summary}).to_string())
}

/// What the model is told besides the conversation: the system prompt and the message context.
fn system_text(body: &Value) -> String {
    let system = body["system"].as_array().unwrap().iter().map(|b| b["text"].as_str().unwrap());
    system.chain([message_context(body).as_str()]).collect::<Vec<_>>().join("\n")
}

#[test]
fn the_idle_boundary_is_decided_before_the_message_is_processed() {
    let host = FakeHost::new();
    host.script([Reply::text("first answer"), Reply::text("still the same conversation"), Reply::text("fresh start")]);
    host.script_matching(SUMMARY, summary_reply("Greetings", "The user said hello. The agent answered."));
    let p = processor(&host);
    host.run(p.process(direct("a", "hello")));
    host.run_for(30 * MINUTE);
    host.run(p.process(direct("b", "exactly thirty minutes later")));
    assert_eq!(index(&host).conversations.len(), 1, "30 minutes is not over the timeout");
    host.run_for(30 * MINUTE + 1);
    let result = host.run(p.process(direct("c", "after a long break")));
    assert_eq!(result.response.as_deref(), Some("fresh start"));
    // The reply was made in the new conversation: no earlier history was sent.
    let body = &host.requests_matching("after a long break")[0].body;
    assert_eq!(
        sent_messages(body),
        json!([{"role": "user", "content": [{"type": "text", "text": "after a long break"}]}])
    );
    host.run_for(MINUTE);
    let idx = index(&host);
    assert_eq!(idx.conversations.len(), 2);
    let old = &idx.conversations[0];
    assert_eq!(old.status, ConversationStatus::Archived);
    assert_eq!(old.end_reason.as_deref(), Some("idle"));
    assert_eq!(old.title.as_deref(), Some("Greetings"), "titled in the background");
    assert_eq!(old.summary.as_deref(), Some("The user said hello. The agent answered."));
    assert_eq!(idx.current.as_deref(), Some(idx.conversations[1].id.as_str()));
    assert_eq!(
        idx.conversations[1].title.as_deref(),
        Some("after a long break"),
        "a provisional title from the first message"
    );
    let lines = history(&host);
    assert_eq!(lines.iter().filter(|l| l.message_id == "b").count(), 2, "b stayed in the first conversation");
}

#[test]
fn end_conversation_keeps_its_turn_and_archives_the_conversation() {
    let host = FakeHost::new();
    host.script([
        Reply::tools("Bye!", &[("e1", "end_conversation", json!({"reason": "done"}))]),
        Reply::text("Goodbye."),
    ]);
    host.script_matching(SUMMARY, summary_reply("Farewell", "The user left."));
    let p = processor(&host);
    host.run(p.process(direct("a", "thanks, bye")));
    host.run_for(MINUTE);
    let idx = index(&host);
    assert!(idx.current.is_none());
    let ended = &idx.conversations[0];
    assert_eq!((ended.status, ended.end_reason.as_deref()), (ConversationStatus::Archived, Some("done")));
    let file = host.file(&format!("conversations/{}.jsonl", ended.id)).unwrap();
    assert!(file.contains("thanks, bye") && file.contains("Goodbye."));
}

#[test]
fn a_pending_question_survives_a_restart_and_is_cleared_by_the_answer() {
    let host = FakeHost::new();
    host.script([Reply::tools(
        "",
        &[("q", "send_message", json!({"message": "Which list, work or home?", "is_question": true}))],
    )]);
    let p = processor(&host);
    let asked = host.run(p.process(from_hub("a", "add call Bob")));
    assert_eq!(asked.is_waiting_for_response, Some(true));
    let waiting = &index(&host).conversations[0];
    assert_eq!(waiting.status, ConversationStatus::WaitingInput);
    let question = waiting.state.pending_question.clone().expect("persisted");
    assert_eq!(question.prompt, "Which list, work or home?");
    drop(p);

    // 45 minutes later (past the idle timeout, within the question's life) the app restarts.
    host.run_for(45 * MINUTE);
    let p = processor(&host);
    assert_eq!(
        index(&host).conversations[0].status,
        ConversationStatus::WaitingInput,
        "still waiting after the restart"
    );
    host.script([Reply::text("Added to the work list.")]);
    let answer = host.run(p.process(from_hub("b", "work")));
    assert_eq!(answer.response.as_deref(), Some("Added to the work list."));
    let body = &host.requests_matching("\"work\"")[0].body;
    assert!(system_text(body).contains("You asked the user earlier"), "continuation context in the prompt");
    assert!(system_text(body).contains("Which list, work or home?"));
    assert_eq!(body["messages"].as_array().unwrap().len(), 3, "the same conversation continued");
    let idx = index(&host);
    assert_eq!(idx.conversations.len(), 1);
    assert_eq!(idx.conversations[0].status, ConversationStatus::Active);
    assert!(idx.conversations[0].state.pending_question.is_none(), "cleared once the agent continued");
}

#[test]
fn stale_questions_are_dropped_at_start_up_and_every_fifteen_minutes() {
    let host = FakeHost::new();
    host.script([Reply::tools("", &[("q", "send_message", json!({"message": "Sure?", "is_question": true}))])]);
    let p = processor(&host);
    host.run(p.process(direct("a", "delete it")));
    // The periodic cleanup (every 15 min) drops it once it is 60 minutes old.
    host.run_for(59 * MINUTE);
    assert!(index(&host).conversations[0].state.pending_question.is_some());
    host.run_for(16 * MINUTE);
    let c = &index(&host).conversations[0];
    assert!(c.state.pending_question.is_none(), "dropped by the 75-minute tick");
    assert_eq!(c.status, ConversationStatus::Active);
    assert!(host.events().iter().any(|e| matches!(e, Event::ConversationUpdated { conversation } if conversation.state.pending_question.is_none() && conversation.status == ConversationStatus::Active)));
    drop(p);

    // At start-up: a question left two hours ago is dropped by initialize().
    let host = FakeHost::new();
    host.script([Reply::tools("", &[("q", "send_message", json!({"message": "Sure?", "is_question": true}))])]);
    let p = processor(&host);
    host.run(p.process(direct("a", "delete it")));
    drop(p);
    host.advance(120 * MINUTE);
    let p = processor(&host);
    assert!(index(&host).conversations[0].state.pending_question.is_none());
    // cleanupStaleStates() is public and reports what it dropped (nothing left now).
    assert_eq!(host.run(p.cleanup_stale_states()).unwrap(), Vec::<String>::new());
}

#[test]
fn the_timeouts_are_settings() {
    let host = FakeHost::new();
    host.script([Reply::text("one"), Reply::text("two")]);
    let p = processor_with(&host, Settings { conversation_idle_timeout_minutes: 5, ..settings() });
    host.run(p.process(direct("a", "hi")));
    host.run_for(6 * MINUTE);
    host.run(p.process(direct("b", "hi again")));
    assert_eq!(index(&host).conversations.len(), 2);
}

#[test]
fn recent_summaries_go_into_the_system_prompt_after_the_stable_part() {
    let host = FakeHost::new();
    let p = processor(&host);
    for (i, (title, summary)) in
        [("Milk", "Bought milk."), ("Shed", "Planned the shed."), ("Taxes", "Filed taxes.")].iter().enumerate()
    {
        host.script([Reply::tools("ok", &[("e", "end_conversation", json!({}))]), Reply::text("bye")]);
        host.script_matching(SUMMARY, summary_reply(title, summary));
        host.run(p.process(direct(&format!("m{i}"), &format!("conversation {i}"))));
        host.run_for(MINUTE);
    }
    host.script([Reply::text("hello again")]);
    host.run(p.process(direct("last", "what did we do?")));
    let body = &host.requests_matching("what did we do?")[0].body;
    let system = body["system"].as_array().unwrap();
    assert_eq!(system[0]["cache_control"]["type"], "ephemeral", "stable part first, cached");
    // Issue 17: the volatile part travels after the cached prefix as the message context that
    // opens the newest user message, not as a second system block.
    assert_eq!(system.len(), 1);
    let volatile = &message_context(body);
    let newest = body["messages"].as_array().unwrap().last().unwrap()["content"].as_array().unwrap();
    assert_eq!(newest[newest.len() - 2]["text"], volatile.as_str());
    assert!(newest[newest.len() - 2].get("cache_control").is_none());
    assert!(volatile.contains("Taxes") && volatile.contains("Filed taxes.") && volatile.contains("Shed"));
    assert!(!volatile.contains("Bought milk."), "only the two most recent");
    assert!(volatile.find("Taxes").unwrap() < volatile.find("Shed").unwrap(), "most recent first");
    assert!(!system[0]["text"].as_str().unwrap().contains("Taxes"), "nothing volatile in the cached part");
    assert_eq!(body["tools"].as_array().unwrap().last().unwrap()["cache_control"]["type"], "ephemeral");
}

#[test]
fn a_failed_summary_is_logged_and_the_provisional_title_stays() {
    let host = FakeHost::new();
    host.script([Reply::tools("", &[("e", "end_conversation", json!({}))]), Reply::text("bye")]);
    host.script_matching(SUMMARY, Reply::error(401, "authentication_error"));
    let p = processor(&host);
    let result = host.run(p.process(direct("a", "plan the garden shed")));
    assert!(result.success);
    host.run_for(MINUTE);
    let c = &index(&host).conversations[0];
    assert_eq!(c.title.as_deref(), Some("plan the garden shed"));
    assert!(c.summary.is_none());
    assert!(host.logs().iter().any(|(_, l)| l.contains("could not summarise")));
}

#[test]
fn retrospection_is_written_newest_first_and_reported() {
    let host = FakeHost::new();
    let p = processor_with(&host, Settings { enable_conversation_retrospection: true, ..settings() });
    for (i, title) in ["Milk", "Shed"].iter().enumerate() {
        host.script([Reply::tools("", &[("e", "end_conversation", json!({}))]), Reply::text("bye")]);
        host.script_matching(SUMMARY, summary_reply(title, "s"));
        host.script_matching(RETROSPECTION, Reply::text(&format!("- lesson {i}")));
        host.run(p.process(direct(&format!("m{i}"), &format!("topic {i}"))));
        host.run_for(MINUTE);
    }
    let file = host.file("retrospection.md").unwrap();
    assert!(file.starts_with("# Conversation retrospection\n\n## "));
    let shed = file.find("— Shed").unwrap();
    let milk = file.find("— Milk").unwrap();
    assert!(shed < milk, "newest first:\n{file}");
    assert!(file.contains("- lesson 1") && file.contains("- lesson 0"));
    let reports: Vec<(String, String)> = host
        .events()
        .into_iter()
        .filter_map(|e| match e {
            Event::Retrospection { conversation_title, content, .. } => Some((conversation_title, content)),
            _ => None,
        })
        .collect();
    assert_eq!(reports, [("Milk".to_owned(), "- lesson 0".to_owned()), ("Shed".to_owned(), "- lesson 1".to_owned())]);
    // The retrospection prompt is the user's setting.
    let asked = &host.requests_matching(RETROSPECTION)[0].body;
    assert!(asked["messages"][0]["content"][0]["text"].as_str().unwrap().starts_with("Look back at this conversation"));
    assert!(asked.get("tools").is_none(), "tool-less");
}

#[test]
fn a_slow_retrospection_never_delays_the_next_reply() {
    let host = FakeHost::new();
    let p = processor_with(&host, Settings { enable_conversation_retrospection: true, ..settings() });
    host.script([
        Reply::tools("", &[("e", "end_conversation", json!({}))]),
        Reply::text("bye"),
        Reply::text("quick answer"),
    ]);
    host.script_matching(SUMMARY, summary_reply("First", "s"));
    host.script_matching(RETROSPECTION, Reply::slow_text("- slow lesson", 60_000));
    host.run(p.process(direct("a", "wrap up")));
    let started = host.now();
    let reply = host.run(p.process(direct("b", "next question")));
    assert_eq!(reply.response.as_deref(), Some("quick answer"));
    assert!(host.now() - started < 1_000, "answered at once, not after the retrospection");
    assert!(host.file("retrospection.md").is_none(), "the retrospection is still running");
    host.run_for(2 * MINUTE);
    assert!(host.file("retrospection.md").unwrap().contains("- slow lesson"));
    let events = host.events();
    let answered =
        events.iter().position(|e| matches!(e, Event::Response { result, .. } if result.message_id == "b")).unwrap();
    let reflected = events.iter().position(|e| matches!(e, Event::Retrospection { .. })).unwrap();
    assert!(answered < reflected);
}

#[test]
fn a_failed_retrospection_is_logged_and_ignored() {
    let host = FakeHost::new();
    let p = processor_with(&host, Settings { enable_conversation_retrospection: true, ..settings() });
    host.script([Reply::tools("", &[("e", "end_conversation", json!({}))]), Reply::text("bye")]);
    host.script_matching(SUMMARY, summary_reply("T", "s"));
    host.script_matching(RETROSPECTION, Reply::error(400, "invalid_request_error"));
    assert!(host.run(p.process(direct("a", "x"))).success);
    host.run_for(MINUTE);
    assert!(host.file("retrospection.md").is_none());
    assert!(host.logs().iter().any(|(_, l)| l.contains("retrospection of")));
}

#[test]
fn get_conversation_lists_and_reads_conversations() {
    let host = FakeHost::new();
    host.script([Reply::tools("", &[("e", "end_conversation", json!({}))]), Reply::text("bye")]);
    host.script_matching(SUMMARY, summary_reply("Milk run", "The user bought milk."));
    let p = processor(&host);
    host.run(p.process(direct("a", "buy oat milk")));
    host.run_for(MINUTE);
    let old_id = index(&host).conversations[0].id.clone();
    host.script([
        Reply::tools("", &[("g1", "get_conversation", json!({}))]),
        Reply::tools("", &[("g2", "get_conversation", json!({"conversation_id": old_id}))]),
        Reply::tools("", &[("g3", "get_conversation", json!({"conversation_id": "c-nope"}))]),
        Reply::text("You bought oat milk."),
    ]);
    host.run(p.process(direct("b", "what did I buy last time?")));
    let requests = host.requests_matching("what did I buy last time?");
    let result_of = |i: usize| -> Value {
        let messages = requests[i].body["messages"].as_array().unwrap().clone();
        messages.last().unwrap()["content"][0].clone()
    };
    let listing = result_of(1)["content"].as_str().unwrap().to_owned();
    assert!(
        listing.contains(&old_id) && listing.contains("Milk run") && listing.contains("The user bought milk."),
        "{listing}"
    );
    let read = result_of(2)["content"].as_str().unwrap().to_owned();
    assert!(read.contains("User: buy oat milk") && read.contains("Assistant: bye"), "{read}");
    let missing = result_of(3);
    assert_eq!(missing["is_error"], true);
    assert!(missing["content"].as_str().unwrap().contains("no conversation with id \"c-nope\""));
}

/// A processor with a summary hanging and the cleanup timer running, then `stop`ped: the
/// background tasks still running a second later.
fn background_tasks_after(stop: impl FnOnce(MessageProcessor<FakeHost>)) -> usize {
    let host = FakeHost::new();
    host.script([Reply::tools("", &[("e", "end_conversation", json!({}))]), Reply::text("bye")]);
    host.script_matching(SUMMARY, Reply::hang());
    let p = processor(&host);
    host.run(p.process(direct("a", "x")));
    host.run_for(1_000);
    assert!(p.running_tasks() >= 2, "the summary and the cleanup timer run");
    stop(p);
    host.run_for(1_000);
    host.background_tasks()
}

#[test]
fn dropping_the_processor_stops_its_background_work() {
    assert_eq!(background_tasks_after(drop), 0, "all stopped");
}

#[test]
fn discarding_the_processor_stops_its_background_work_as_dropping_does() {
    assert_eq!(background_tasks_after(MessageProcessor::discard), 0, "all stopped, the state left unfreed");
}
