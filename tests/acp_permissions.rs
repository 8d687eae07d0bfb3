//! An ACP agent's permission requests: by default its own write and run tools are refused (no
//! card); the plugin's own `smarthole` tools are granted by the plugin; with the advanced
//! setting, each request is an approval card — answered once, for the conversation, or
//! rejected, and 5 minutes without an answer is a rejection.

mod common;

use common::acp::*;
use common::*;
use serde_json::{json, Value};
use smarthole_agent::testing::{AgentStep, FakeHost};
use smarthole_agent::{AgentKind, ApprovalError, Decision, Event, Host, MessageProcessor, Settings};

fn write_call(id: &str) -> AgentStep {
    AgentStep::Permission(json!({"toolCallId": id, "title": "Write Notes/plan.md", "kind": "edit",
        "rawInput": {"file_path": "Notes/plan.md", "content": "x"}}))
}

fn cards(host: &FakeHost) -> usize {
    host.events().iter().filter(|e| matches!(e, Event::ApprovalRequested { .. })).count()
}

fn own_tools() -> Settings {
    Settings { agent_own_tools: true, ..agent_settings(AgentKind::ClaudeCode) }
}

/// Runs message `id` while `answer` answers the first card it shows.
fn with_card(host: &FakeHost, p: &MessageProcessor<FakeHost>, id: &str, answer: Option<Decision>) {
    let result = host.run(async {
        let decide = async {
            while p.pending_approvals().is_empty() {
                host.sleep(1).await;
            }
            if let Some(decision) = answer {
                let request = p.pending_approvals()[0].id.clone();
                p.decide_approval(&request, decision).await.expect("decided");
            }
        };
        futures::join!(p.process(direct(id, "write the plan")), decide).0
    });
    assert!(result.success, "{result:?}");
}

#[test]
fn by_default_the_agents_own_tools_are_refused_without_asking() {
    let host = FakeHost::new();
    let p = acp_processor(&host, agent_settings(AgentKind::ClaudeCode));
    host.agent().turns.push_back(vec![write_call("w1"), chunk("I could not write it.")]);
    assert!(host.run(p.process(direct("p1", "write the plan"))).success);
    assert_eq!(permission_answers(&host), [json!({"outcome": "selected", "optionId": "reject"})]);
    assert_eq!(cards(&host), 0, "the user is not asked");
}

#[test]
fn the_plugins_own_tools_are_granted_by_the_plugin() {
    let host = FakeHost::new();
    let p = acp_processor(&host, agent_settings(AgentKind::ClaudeCode));
    host.agent().turns.push_back(vec![
        AgentStep::Permission(json!({"toolCallId": "e1", "title": "mcp__smarthole__edit_file", "kind": "other"})),
        chunk("Edited."),
    ]);
    assert!(host.run(p.process(direct("p1", "fix the typo"))).success);
    assert_eq!(permission_answers(&host), [json!({"outcome": "selected", "optionId": "allow"})], "allowed once");
    assert_eq!(cards(&host), 0, "its own review-first card asks the user, not this");
}

/// Codex asks before each MCP tool call with a title of its own ("Approve MCP tool call") and
/// the server's name in `rawInput` (codex-acp 0.16, docs/ACP-AGENTS.md): the plugin's server is
/// granted; another server's tool is the agent's own (rejected with own tools off).
#[test]
fn codexs_approval_of_a_smarthole_tool_is_granted_by_the_plugin() {
    let codex_approval = |id: &str, server: &str| {
        AgentStep::Permission(json!({"toolCallId": id, "title": "Approve MCP tool call", "kind": "other",
            "rawInput": {"server_name": server, "id": format!("mcp_tool_call_approval_{id}"),
                "request": {"mode": "form", "_meta": {"codex_approval_kind": "mcp_tool_call"},
                    "message": "Allow the smarthole MCP server to run tool \"read_file\"?"}}}))
    };
    let host = FakeHost::new();
    let p = acp_processor(&host, agent_settings(AgentKind::Codex));
    host.agent().turns.push_back(vec![codex_approval("c1", "smarthole"), chunk("Read.")]);
    assert!(host.run(p.process(direct("p1", "read my plan"))).success);
    assert_eq!(permission_answers(&host), [json!({"outcome": "selected", "optionId": "allow"})]);
    assert_eq!(cards(&host), 0);

    host.agent().turns.push_back(vec![codex_approval("c2", "elsewhere"), chunk("Not run.")]);
    assert!(host.run(p.process(direct("p2", "and the other server?"))).success);
    assert_eq!(permission_answers(&host)[1], json!({"outcome": "selected", "optionId": "reject"}));
}

#[test]
fn with_own_tools_on_the_user_answers_a_card() {
    let host = FakeHost::new();
    let p = acp_processor(&host, own_tools());
    host.agent().turns.push_back(vec![write_call("w1"), chunk("Written.")]);
    with_card(&host, &p, "p1", Some(Decision::ApproveOnce));
    assert_eq!(permission_answers(&host), [json!({"outcome": "selected", "optionId": "allow"})]);
    let card = host.events().iter().find_map(|e| match e {
        Event::ApprovalRequested { request } => Some(request.clone()),
        _ => None,
    });
    let card = card.expect("a card");
    assert_eq!(card.summary, "Write Notes/plan.md");
    assert_eq!(card.details, Some(json!({"file_path": "Notes/plan.md", "content": "x"})));

    // Rejected.
    host.agent().turns.push_back(vec![write_call("w2"), chunk("Not written.")]);
    with_card(&host, &p, "p2", Some(Decision::Reject));
    assert_eq!(permission_answers(&host)[1], json!({"outcome": "selected", "optionId": "reject"}));
}

#[test]
fn approved_for_the_conversation_is_not_asked_again() {
    let host = FakeHost::new();
    let p = acp_processor(&host, own_tools());
    host.agent().turns.push_back(vec![write_call("w1"), chunk("Written.")]);
    with_card(&host, &p, "p1", Some(Decision::ApproveConversation));
    host.agent().turns.push_back(vec![write_call("w2"), chunk("Written again.")]);
    assert!(host.run(p.process(direct("p2", "and again"))).success);
    let answers: Vec<Value> = permission_answers(&host);
    let allow = json!({"outcome": "selected", "optionId": "allow"});
    assert_eq!(answers, [allow.clone(), allow]);
    assert_eq!(cards(&host), 1, "asked once");
}

#[test]
fn no_answer_in_five_minutes_is_a_rejection() {
    let host = FakeHost::new();
    let p = acp_processor(&host, own_tools());
    host.agent().turns.push_back(vec![write_call("w1"), chunk("No answer, so I did not write it.")]);
    let started = host.now();
    with_card(&host, &p, "p1", None);
    assert_eq!(host.now() - started, 5 * 60_000);
    assert_eq!(permission_answers(&host), [json!({"outcome": "selected", "optionId": "reject"})]);
}

/// An edit of the agent's own carrying its diff (absolute path in the vault, two changed lines
/// far apart: two hunks).
fn diff_call(id: &str) -> AgentStep {
    let old: String = (1..=20).map(|i| format!("line {i}\n")).collect();
    let new = old.replace("line 2\n", "LINE 2\n").replace("line 19\n", "LINE 19\n");
    AgentStep::Permission(json!({"toolCallId": id, "title": "Edit plan.md", "kind": "edit",
        "content": [{"type": "diff", "path": format!("{VAULT}/Notes/plan.md"), "oldText": old, "newText": new}]}))
}

#[test]
fn a_request_carrying_a_diff_shows_it_and_only_the_whole_change_can_be_answered() {
    let host = FakeHost::new();
    let p = acp_processor(&host, own_tools());
    host.agent().turns.push_back(vec![diff_call("d1"), chunk("Edited.")]);
    host.agent().turns.push_back(vec![diff_call("d2"), chunk("Not edited.")]);
    let answer_with = |id: &str, decision: Decision| {
        let result = host.run(async {
            let decide = async {
                while p.pending_approvals().is_empty() {
                    host.sleep(1).await;
                }
                let card = p.pending_approvals()[0].clone();
                // Only one hunk of two: the agent writes the whole file itself, so such an
                // answer is refused and the card still waits.
                let partial = p.decide_approval_hunks(&card.id, Decision::ApproveOnce, Some(vec![1])).await;
                assert_eq!(partial, Err(ApprovalError::WholeOnly { id: card.id.clone() }));
                assert_eq!(p.pending_approvals().len(), 1, "still waiting");
                p.decide_approval(&card.id, decision).await.expect("decided");
                card
            };
            futures::join!(p.process(direct(id, "edit the plan")), decide)
        });
        assert!(result.0.success, "{:?}", result.0);
        result.1
    };
    let card = answer_with("p1", Decision::ApproveOnce);
    assert!(card.whole_only, "the card offers the whole change only");
    let why = card.reason.clone().unwrap_or_default();
    assert!(why.contains("Claude Code writes this file itself") && why.contains("whole change"), "{why}");
    let change = card.change.expect("the card shows the diff");
    assert_eq!(change.path, "Notes/plan.md", "named inside the vault");
    assert_eq!(change.hunks.len(), 2);
    answer_with("p2", Decision::Reject);
    let allow = json!({"outcome": "selected", "optionId": "allow"});
    let reject = json!({"outcome": "selected", "optionId": "reject"});
    assert_eq!(permission_answers(&host), [allow, reject]);
}
