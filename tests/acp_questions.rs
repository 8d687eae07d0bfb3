//! The question tools served to an ACP agent as to the built-in one: `needs_input` shows the
//! question and ends the turn (the agent's prompt is cancelled, the conversation waits), and the
//! user's reply is the next prompt of the same session; `keep_question_open` keeps it waiting;
//! `get_conversation` reads the earlier conversations.

mod common;

use common::acp::*;
use common::*;
use serde_json::json;
use smarthole_agent::testing::internals::ConversationIndex;
use smarthole_agent::testing::{AgentStep, FakeHost};
use smarthole_agent::{AgentKind, ConversationStatus, MessageProcessor};

fn index(host: &FakeHost) -> ConversationIndex {
    serde_json::from_str(&host.file("conversations/index.json").expect("an index")).unwrap()
}

fn prompt_text(host: &FakeHost, n: usize) -> (String, String) {
    let prompt = &host.agent_requests("session/prompt")[n]["params"];
    (
        prompt["sessionId"].as_str().unwrap_or_default().to_owned(),
        prompt["prompt"][0]["text"].as_str().unwrap_or_default().to_owned(),
    )
}

/// The MCP server's answers to the agent's calls: (result text, isError).
fn answers(host: &FakeHost) -> Vec<(String, bool)> {
    host.agent()
        .mcp_answers
        .iter()
        .map(|(_, body)| {
            let text = body["result"]["content"][0]["text"].as_str().unwrap_or_default().to_owned();
            (text, body["result"]["isError"] == json!(true))
        })
        .collect()
}

fn ask() -> AgentStep {
    AgentStep::ToolCall(
        "needs_input".into(),
        json!({"type": "choice", "prompt": "Which list?", "options": ["work", "home"]}),
    )
}

/// The agent asks; the turn ends waiting (the agent would go on until cancelled).
fn asked(host: &FakeHost) -> MessageProcessor<FakeHost> {
    let p = acp_processor(host, agent_settings(AgentKind::ClaudeCode));
    host.agent().turns.push_back(vec![ask(), AgentStep::AwaitCancel, chunk("(cut short)")]);
    let result = host.run(p.process(direct("a", "add call Bob")));
    assert!(result.success, "{result:?}");
    assert_eq!(result.is_waiting_for_response, Some(true));
    assert_eq!(result.notice, None, "the question ended the turn, nothing to explain");
    assert!(!answers(host)[0].1, "{:?}", answers(host));
    assert_eq!(host.agent_requests("session/cancel").len(), 1, "the agent is stopped after asking");
    assert_eq!(agent_messages(host), [("Which list?".to_owned(), true)], "the question card");
    let waiting = &index(host).conversations[0];
    assert_eq!(waiting.status, ConversationStatus::WaitingInput);
    assert_eq!(waiting.state.pending_question.as_ref().map(|q| q.prompt.as_str()), Some("Which list?"));
    p
}

#[test]
fn needs_input_ends_the_turn_and_the_reply_is_the_next_prompt_of_the_same_session() {
    let host = FakeHost::new();
    let p = asked(&host);
    host.agent().turns.push_back(vec![chunk("Added to the work list.")]);
    let answer = host.run(p.process(direct("b", "work")));
    assert_eq!(answer.response.as_deref(), Some("Added to the work list."));
    assert_eq!(host.agent_requests("session/new").len(), 1, "the same session");
    let (session, text) = prompt_text(&host, 1);
    assert_eq!(session, "sess-1");
    assert!(text.contains("You asked the user earlier") && text.contains("Which list?"), "{text}");
    assert!(text.ends_with("work"), "{text}");
    let conversation = &index(&host).conversations[0];
    assert_eq!(conversation.status, ConversationStatus::Active);
    assert!(conversation.state.pending_question.is_none(), "answered");
}

#[test]
fn keep_question_open_keeps_the_conversation_waiting() {
    let host = FakeHost::new();
    let p = asked(&host);
    host.agent().turns.push_back(vec![
        AgentStep::ToolCall("keep_question_open".into(), json!({})),
        chunk("It is 3 pm. Which list, work or home?"),
    ]);
    let answer = host.run(p.process(direct("b", "what time is it?")));
    assert!(answer.success, "{answer:?}");
    assert!(!answers(&host)[1].1, "{:?}", answers(&host));
    let conversation = &index(&host).conversations[0];
    assert_eq!(conversation.status, ConversationStatus::WaitingInput);
    assert_eq!(conversation.state.pending_question.as_ref().map(|q| q.prompt.as_str()), Some("Which list?"));
}

#[test]
fn get_conversation_lists_the_conversations() {
    let host = FakeHost::new();
    let p = acp_processor(&host, agent_settings(AgentKind::Gemini));
    host.agent().turns.push_back(vec![chunk("Hello.")]);
    assert!(host.run(p.process(direct("a", "hello"))).success);
    host.agent().turns.push_back(vec![AgentStep::ToolCall("get_conversation".into(), json!({})), chunk("One so far.")]);
    assert!(host.run(p.process(direct("b", "how many conversations have we had?"))).success);
    let said = answers(&host);
    let id = index(&host).conversations[0].id.clone();
    assert!(!said[0].1 && said[0].0.contains(&id) && said[0].0.contains("(current)"), "{said:?}");
}
