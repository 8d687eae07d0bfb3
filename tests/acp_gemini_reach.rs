//! What Gemini CLI needs of the `smarthole` server beyond the others (docs/ACP-AGENTS.md): its
//! `write_file` also served as `write_note` (Gemini hides an MCP tool named as one of its own
//! excluded tools), the same tool with the same review-first card; and the chat told, once per
//! agent process, when an agent given the server ends a turn without ever having reached it
//! (Gemini CLI in a folder it does not trust), with what to do.

mod common;

use common::acp::*;
use common::*;
use futures::future::join;
use serde_json::{json, Value};
use smarthole_agent::testing::{AgentStep, FakeHost};
use smarthole_agent::{AgentKind, Decision, Host, MessageProcessor};

fn tool_names(host: &FakeHost, p: &MessageProcessor<FakeHost>) -> Vec<String> {
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let request = host.agent().mcp_request(&list).expect("the server was given");
    let answer = host.run(p.handle_agent_tools(request));
    let body: Value = serde_json::from_str(&answer.body).expect("JSON");
    body["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str().map(String::from))
        .collect()
}

#[test]
fn gemini_is_also_served_write_file_as_write_note_the_others_are_not() {
    for (kind, second) in [(AgentKind::Gemini, true), (AgentKind::ClaudeCode, false), (AgentKind::Opencode, false)] {
        let host = FakeHost::new();
        let p = acp_processor(&host, agent_settings(kind));
        assert!(host.run(p.process(direct("m1", "hello"))).success);
        let names = tool_names(&host, &p);
        assert!(names.iter().any(|n| n == "write_file"), "{kind:?}: the built-in name stays: {names:?}");
        assert_eq!(names.iter().any(|n| n == "write_note"), second, "{kind:?}: {names:?}");
    }
}

#[test]
fn gemini_creates_and_replaces_a_note_through_write_note_the_replacement_on_the_same_review_first_card() {
    let host = FakeHost::new();
    let p = acp_processor(&host, agent_settings(AgentKind::Gemini));
    host.agent().turns.push_back(vec![
        AgentStep::ToolCall("write_note".into(), json!({"path": "Ideas.md", "content": "# Ideas\nbulbs\n"})),
        AgentStep::ToolCall("write_note".into(), json!({"path": "Ideas.md", "content": "# Ideas\ntulips\n"})),
        chunk("Created, then rewritten."),
    ]);
    let user = async {
        let mut waited = 0;
        let request = loop {
            if let Some(r) = p.pending_approvals().into_iter().next() {
                break r;
            }
            waited += 1;
            assert!(waited < 1_000, "no card was shown");
            host.sleep(10).await;
        };
        p.decide_approval_hunks(&request.id, Decision::ApproveOnce, None).await.expect("decided");
        request
    };
    let (result, card) = host.run(join(p.process(direct("m1", "start a note of ideas")), user));
    assert!(result.success, "{result:?}");
    assert_eq!(card.action, "write_file", "the built-in tool's card");
    assert_eq!(card.change.expect("a diff").path, "Ideas.md");
    assert_eq!(host.note("Ideas.md").as_deref(), Some("# Ideas\ntulips\n"));
    let said: Vec<String> = host
        .agent()
        .mcp_answers
        .iter()
        .map(|(_, body)| body["result"]["content"][0]["text"].as_str().unwrap_or("not a result").to_owned())
        .collect();
    assert!(
        said[0].starts_with("Created Ideas.md") && said[1].starts_with("Replaced the content of Ideas.md"),
        "{said:?}"
    );
    // Undone as the built-in tool's changes are: the note gone again.
    let report = host.run(p.undo_turn("m1"));
    assert!(!report.restored.is_empty(), "{report:?}");
    assert_eq!(host.note("Ideas.md"), None);
    // The second name is not a tool of any other agent.
    let host = FakeHost::new();
    let p = acp_processor(&host, agent_settings(AgentKind::ClaudeCode));
    host.agent().turns.push_back(vec![
        AgentStep::ToolCall("write_note".into(), json!({"path": "Ideas.md", "content": "x"})),
        chunk("No."),
    ]);
    assert!(host.run(p.process(direct("m1", "start a note of ideas"))).success);
    assert_eq!(host.agent().mcp_answers[0].1["error"]["code"], -32602, "{:?}", host.agent().mcp_answers);
    assert_eq!(host.note("Ideas.md"), None);
}

/// Runs messages `m1` and `m2` with an agent of `kind` that does or does not reach the server;
/// returns both results' notices.
fn notices(kind: AgentKind, never_connects: bool) -> (Option<String>, Option<String>, FakeHost) {
    let host = FakeHost::new();
    host.agent().never_connects = never_connects;
    let p = acp_processor(&host, agent_settings(kind));
    host.agent().turns.push_back(vec![chunk("I cannot see your notes.")]);
    host.agent().turns.push_back(vec![chunk("Still not.")]);
    let first = host.run(p.process(direct("m1", "what is in Plan.md?")));
    let second = host.run(p.process(direct("m2", "and now?")));
    assert!(first.success && second.success, "{first:?} {second:?}");
    (first.notice, second.notice, host)
}

#[test]
fn gemini_never_reaching_the_server_is_told_once_with_how_to_trust_the_vault() {
    let (first, second, host) = notices(AgentKind::Gemini, true);
    let notice = first.expect("the chat says so");
    assert!(notice.starts_with("Gemini CLI did not connect to SmartHole's note tools"), "{notice}");
    assert!(notice.contains(&format!("open a terminal in {VAULT}, run gemini")), "{notice}");
    assert!(notice.contains("/permissions") && notice.contains("~/.gemini/trustedFolders.json"), "{notice}");
    assert_eq!(second, None, "once per agent process");
    assert_eq!(host.agent().launches.len(), 1, "the same process");
    assert!(host.agent().mcp_connects.is_empty());
}

#[test]
fn another_agent_never_reaching_the_server_gets_the_generic_notice() {
    let (first, _, _) = notices(AgentKind::Opencode, true);
    let notice = first.expect("the chat says so");
    assert!(notice.starts_with("opencode did not connect to SmartHole's note tools"), "{notice}");
    assert!(!notice.contains("trust"), "{notice}");
}

#[test]
fn an_agent_that_reaches_the_server_hears_nothing_of_it() {
    for kind in [AgentKind::Gemini, AgentKind::ClaudeCode] {
        let (first, second, host) = notices(kind, false);
        assert_eq!((first, second), (None, None), "{kind:?}");
        assert_eq!(host.agent().mcp_connects, [200], "{kind:?}: it connected once, admitted");
    }
}

#[test]
fn an_agent_given_no_server_hears_nothing_of_it() {
    let host = FakeHost::new();
    host.agent().no_http_mcp = true;
    host.agent().never_connects = true;
    let p = acp_processor(&host, agent_settings(AgentKind::Gemini));
    host.agent().turns.push_back(vec![chunk("Hello.")]);
    let result = host.run(p.process(direct("m1", "hello")));
    assert!(result.success);
    assert_eq!(result.notice, None);
}
