//! Exactly once for an ACP agent's `smarthole` tool calls: a turn retried after the agent or the
//! plugin stopped mid-turn never runs a call of the earlier attempt again. A finished call
//! answers with its recorded result (its card and its change already exist), one that started
//! without a result is reported as interrupted, and the retried prompt says what already ran.

mod common;

use common::acp::*;
use common::*;
use futures::future::join;
use serde_json::{json, Value};
use smarthole_agent::testing::{AgentStep, FakeHost};
use smarthole_agent::{AgentKind, Decision, Event, Host, MessageProcessor};

const NOTE: &str = "Notes/Plan.md";
const BEFORE: &str = "# Plan\n- [ ] call Ann\n";
const AFTER: &str = "# Plan\n- [ ] buy milk\n- [ ] call Ann\n";

/// An insert: run twice, it would add its line twice.
fn insert() -> Value {
    json!({"path": NOTE, "operation": "insert", "line": 1, "position": "after", "text": "- [ ] buy milk"})
}

fn edit_call(id: &str) -> Vec<AgentStep> {
    vec![
        tool(id, "mcp__smarthole__edit_file", "other", json!({})),
        AgentStep::Permission(json!({"toolCallId": id, "title": "mcp__smarthole__edit_file", "kind": "other"})),
        AgentStep::ToolCall("edit_file".into(), insert()),
    ]
}

fn killed() -> AgentStep {
    AgentStep::Exit(None, Some("SIGKILL".into()), "killed".into())
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

/// The approval cards ever shown.
fn cards(host: &FakeHost) -> usize {
    host.events().iter().filter(|e| matches!(e, Event::ApprovalRequested { .. })).count()
}

fn prompt_text(host: &FakeHost, n: usize) -> String {
    host.agent_requests("session/prompt")[n]["params"]["prompt"][0]["text"].as_str().unwrap_or_default().to_owned()
}

/// Runs message `id` while the user approves every card shown.
fn approving(host: &FakeHost, p: &MessageProcessor<FakeHost>, id: &str) -> smarthole_agent::ProcessResult {
    let done = std::cell::Cell::new(false);
    let user = async {
        while !done.get() {
            for request in p.pending_approvals() {
                p.decide_approval(&request.id, Decision::ApproveOnce).await.expect("decided");
            }
            host.sleep(10).await;
        }
    };
    let run = async {
        let result = p.process(direct(id, "add milk to my plan")).await;
        done.set(true);
        result
    };
    host.run(join(run, user)).0
}

#[test]
fn an_edit_applied_before_the_agent_died_is_not_applied_again_by_the_retry() {
    let host = FakeHost::new();
    host.put_note(NOTE, BEFORE);
    let p = acp_processor(&host, agent_settings(AgentKind::ClaudeCode));
    host.agent().turns.push_back([edit_call("c1"), vec![killed()]].concat());
    let first = approving(&host, &p, "m1");
    assert!(!first.success, "{first:?}");
    assert_eq!(host.note(NOTE).unwrap(), AFTER, "applied once, before the agent died");
    // The retry: a new process, the agent makes the same call under a new id.
    host.agent().turns.push_back([edit_call("c9"), vec![chunk("Added.")]].concat());
    host.run_for(5 * 60_000);
    assert_eq!(host.agent().launches.len(), 2, "a new process");
    assert_eq!(recorded_count(&host, "m1"), 1);
    assert!(inbox(&host).is_empty());
    assert_eq!(host.note(NOTE).unwrap(), AFTER, "one change");
    assert_eq!(cards(&host), 1, "one card");
    let said = answers(&host);
    assert_eq!(said.len(), 2, "{said:?}");
    assert_eq!(said[1], said[0], "the recorded result: {said:?}");
    let retried = prompt_text(&host, 1);
    assert!(retried.contains("<earlier_attempt>") && retried.contains("- edit_file "), "{retried}");
    assert!(retried.ends_with("add milk to my plan"), "{retried}");
    // The change is the turn's for Undo.
    let report = host.run(p.undo_turn("m1"));
    assert_eq!(report.restored.len(), 1, "{report:?}");
    assert_eq!(host.note(NOTE).unwrap(), BEFORE);
}

#[test]
fn a_message_sent_before_the_agent_died_is_not_sent_again() {
    let host = FakeHost::new();
    let p = acp_processor(&host, agent_settings(AgentKind::Gemini));
    let send = || AgentStep::ToolCall("send_message".into(), json!({"message": "Working on it"}));
    host.agent().turns.push_back(vec![send(), killed()]);
    assert!(!host.run(p.process(direct("s1", "do the long thing"))).success);
    host.agent().turns.push_back(vec![send(), chunk("Done.")]);
    host.run_for(5 * 60_000);
    assert_eq!(recorded_count(&host, "s1"), 1);
    assert_eq!(agent_messages(&host), [("Working on it".to_owned(), false)], "sent once");
    let said = answers(&host);
    assert_eq!(said[1], said[0], "{said:?}");
}

#[test]
fn a_call_the_plugin_stopped_in_is_reported_interrupted_never_run_again() {
    let host = FakeHost::new();
    host.put_note(NOTE, BEFORE);
    let p = acp_processor(&host, agent_settings(AgentKind::Opencode));
    host.agent().turns.push_back([edit_call("c1"), vec![chunk("Added.")]].concat());
    // The app goes down while the call waits on its card: started, no result.
    let crashed = host
        .run_until(p.process(direct("i1", "add milk to my plan")), |e| matches!(e, Event::ApprovalRequested { .. }));
    assert!(crashed.is_none());
    drop(p);
    let journal = host.file("inbox/i1.turn.jsonl").expect("a journal");
    assert!(journal.contains("agent_tool_started") && !journal.contains("agent_tool_done"), "{journal}");
    // The next start: the agent makes the same call again.
    host.agent()
        .turns
        .push_back(vec![AgentStep::ToolCall("edit_file".into(), insert()), chunk("I will check whether it went in.")]);
    let p = acp_processor(&host, agent_settings(AgentKind::Opencode));
    let summary = host.run(p.reprocess_pending()).unwrap();
    assert!(summary.results[0].success, "{summary:?}");
    assert_eq!(host.note(NOTE).unwrap(), BEFORE, "not run again");
    assert!(p.pending_approvals().is_empty(), "no new card");
    let said = answers(&host);
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(said[0].1 && said[0].0.contains("interrupted"), "{said:?}");
    let retried = prompt_text(&host, 1);
    assert!(retried.contains("- edit_file ") && retried.contains("interrupted"), "{retried}");
    assert_eq!(recorded_count(&host, "i1"), 1);
}
