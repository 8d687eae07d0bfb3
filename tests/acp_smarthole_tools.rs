//! The plugin's own MCP server, `smarthole`, as an ACP agent uses it: given in `session/new`
//! (HTTP, on 127.0.0.1, a bearer token new for each agent process), its tools run in the turn
//! of the message whose prompt is in flight, exactly as the built-in agent's do — review-first
//! diffs with per-hunk approval and Undo, protected folders — and nowhere else.

mod common;

use common::acp::*;
use common::*;
use futures::future::join;
use serde_json::{json, Value};
use smarthole_agent::testing::{AgentStep, FakeHost};
use smarthole_agent::{AgentKind, ApiRequest, Decision, Host, MessageProcessor, Settings};

const NOTE: &str = "Notes/Plan.md";
const BEFORE: &str = "# Plan\ntodo: call Ann\nb\nc\nd\ne\nf\ng\nh\ni\nj\ntodo: buy milk\n";

fn edit_steps() -> Vec<AgentStep> {
    let args =
        json!({"path": NOTE, "operation": "replace", "old_text": "todo", "new_text": "done", "replace_all": true});
    vec![
        tool("c1", "mcp__smarthole__edit_file", "other", json!({})),
        AgentStep::Permission(json!({"toolCallId": "c1", "title": "mcp__smarthole__edit_file", "kind": "other"})),
        AgentStep::ToolCall("edit_file".into(), args),
        chunk("Edited."),
    ]
}

/// Runs message `id` while the user answers the first card with `decision` and `hunks`;
/// returns the card.
fn answered(
    host: &FakeHost,
    p: &MessageProcessor<FakeHost>,
    id: &str,
    decision: Decision,
    hunks: Option<Vec<usize>>,
) -> smarthole_agent::ApprovalRequest {
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
        p.decide_approval_hunks(&request.id, decision, hunks).await.expect("decided");
        request
    };
    let (result, card) = host.run(join(p.process(direct(id, "tick off my todos")), user));
    assert!(result.success, "{result:?}");
    card
}

/// The MCP server's answers to the agent's calls, as (status, result text, isError).
fn answers(host: &FakeHost) -> Vec<(u16, String, bool)> {
    host.agent()
        .mcp_answers
        .iter()
        .map(|(status, body)| {
            let text = body["result"]["content"][0]["text"].as_str().unwrap_or_default().to_owned();
            (*status, text, body["result"]["isError"] == json!(true))
        })
        .collect()
}

fn claude(host: &FakeHost) -> MessageProcessor<FakeHost> {
    acp_processor(host, agent_settings(AgentKind::ClaudeCode))
}

#[test]
fn the_agent_is_given_the_server_with_its_own_token() {
    let host = FakeHost::new();
    let p = claude(&host);
    assert!(host.run(p.process(direct("m1", "hello"))).success);
    let new = &host.agent_requests("session/new")[0];
    let server = &new["params"]["mcpServers"][0];
    assert_eq!(server["type"], "http");
    assert_eq!(server["name"], "smarthole");
    assert_eq!(server["url"], format!("http://127.0.0.1:{TOOLS_PORT}/mcp"), "its own listener's port");
    let auth = server["headers"][0]["value"].as_str().expect("a header");
    let token = auth.strip_prefix("Bearer ").expect("a bearer token");
    assert_eq!(token.len(), 64);
    let launch = host.agent().launches[0].clone();
    assert!(launch.3.values().all(|v| !v.contains(token)), "never in the agent's environment");
    assert!(host.logs().iter().all(|(_, line)| !line.contains(token)), "never in a log");
    // Its own listener is asked for; the agent API stays off.
    assert!(p.agent_tools_listener());
    assert!(p.api_listeners().is_empty());
}

#[test]
fn an_edit_is_a_diff_card_one_hunk_accepted_one_rejected_then_undone() {
    let host = FakeHost::new();
    host.put_note(NOTE, BEFORE);
    let p = claude(&host);
    host.agent().turns.push_back(edit_steps());
    let card = answered(&host, &p, "m1", Decision::ApproveOnce, Some(vec![1]));
    let change = card.change.expect("the card carries the diff");
    assert_eq!(change.hunks.len(), 2);
    assert_eq!(card.tool_use_id.as_deref(), Some("c1"), "under the agent's chip");
    assert_eq!(host.note(NOTE).unwrap(), BEFORE.replacen("todo", "done", 1));
    let said = answers(&host);
    assert_eq!(said.len(), 1);
    assert_eq!(said[0].0, 200);
    assert!(said[0].1.contains("hunk 1 applied, 2 rejected"), "{said:?}");
    assert_eq!(permission_answers(&host), [json!({"outcome": "selected", "optionId": "allow"})]);
    let report = host.run(p.undo_turn("m1"));
    assert_eq!(report.restored.len(), 1, "{report:?}");
    assert_eq!(host.note(NOTE).unwrap(), BEFORE, "byte for byte");
}

#[test]
fn everything_rejected_leaves_the_vault_byte_identical() {
    let host = FakeHost::new();
    host.put_note(NOTE, BEFORE);
    let p = claude(&host);
    host.agent().turns.push_back(edit_steps());
    answered(&host, &p, "m1", Decision::Reject, None);
    assert_eq!(host.note(NOTE).unwrap(), BEFORE);
    let said = answers(&host);
    assert!(said[0].2, "the model is told it was rejected: {said:?}");
}

#[test]
fn a_protected_folder_is_refused() {
    let host = FakeHost::new();
    host.put_note("Private/Keys.md", "secret\n");
    let settings = Settings { protected_folders: vec!["Private".into()], ..agent_settings(AgentKind::ClaudeCode) };
    let p = acp_processor(&host, settings);
    host.agent().turns.push_back(vec![
        AgentStep::ToolCall("write_file".into(), json!({"path": "Private/Keys.md", "content": "gone"})),
        AgentStep::ToolCall("read_file".into(), json!({"path": "Private/Keys.md"})),
        chunk("I could not."),
    ]);
    assert!(host.run(p.process(direct("m1", "wipe my keys"))).success);
    assert_eq!(host.note("Private/Keys.md").unwrap(), "secret\n");
    let said = answers(&host);
    assert_eq!(said.len(), 2);
    assert!(
        said.iter().all(|(status, text, is_error)| *status == 200 && *is_error && text.contains("protected")),
        "{said:?}"
    );
    assert!(p.pending_approvals().is_empty(), "refused without asking");
}

/// A POST of `body` to the server, as the agent's MCP client sends it (with its token).
fn post(host: &FakeHost, body: Value) -> ApiRequest {
    host.agent().mcp_request(&body).expect("the server was given")
}

fn status_and_body(p: &MessageProcessor<FakeHost>, host: &FakeHost, request: ApiRequest) -> (u16, Value) {
    let answer = host.run(p.handle_agent_tools(request));
    (answer.status, serde_json::from_str(&answer.body).unwrap_or(Value::Null))
}

#[test]
fn a_call_with_no_prompt_in_flight_is_refused() {
    let host = FakeHost::new();
    host.put_note(NOTE, BEFORE);
    let p = claude(&host);
    assert!(host.run(p.process(direct("m1", "hello"))).success);
    let call = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
        "params": {"name": "write_file", "arguments": {"path": NOTE, "content": "x"}}});
    let (status, body) = status_and_body(&p, &host, post(&host, call));
    assert_eq!(status, 200);
    assert_eq!(body["result"]["isError"], true);
    assert!(body["result"]["content"][0]["text"].as_str().unwrap().contains("No message is being answered"), "{body}");
    assert_eq!(host.note(NOTE).unwrap(), BEFORE);
}

#[test]
fn a_wrong_or_missing_token_is_refused_and_the_api_stays_off() {
    let host = FakeHost::new();
    let p = claude(&host);
    assert!(host.run(p.process(direct("m1", "hello"))).success);
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let (status, body) = status_and_body(&p, &host, post(&host, list.clone()));
    assert_eq!(status, 200);
    let names: Vec<&str> =
        body["result"]["tools"].as_array().unwrap().iter().filter_map(|t| t["name"].as_str()).collect();
    for name in ["read_file", "edit_file", "search_files", "send_message", "end_conversation", "create_schedule"] {
        assert!(names.contains(&name), "{name} in {names:?}");
    }
    let mut wrong = post(&host, list.clone());
    wrong.headers.insert("authorization".into(), "Bearer nope".into());
    assert_eq!(status_and_body(&p, &host, wrong).0, 401);
    let mut missing = post(&host, list.clone());
    missing.headers.remove("authorization");
    assert_eq!(status_and_body(&p, &host, missing).0, 401);
    // The agent API's endpoints are not on the tools' listener, nor the tools on the API's.
    let mut config = post(&host, list.clone());
    config.method = "GET".into();
    config.url = "/config".into();
    assert_eq!(status_and_body(&p, &host, config).0, 404);
    let on_the_api = host.run(p.handle_api(post(&host, list)));
    assert_eq!(on_the_api.status, 401, "the API is off: {}", on_the_api.body);
}

#[test]
fn a_tools_effect_on_the_conversation_holds_end_conversation_archives_it() {
    let host = FakeHost::new();
    let p = claude(&host);
    host.agent()
        .turns
        .push_back(vec![AgentStep::ToolCall("end_conversation".into(), json!({"reason": "done"})), chunk("Goodbye.")]);
    assert!(host.run(p.process(direct("m1", "thanks, bye"))).success);
    assert!(!answers(&host)[0].2, "{:?}", answers(&host));
    let index: Value = serde_json::from_str(&host.file("conversations/index.json").expect("an index")).unwrap();
    assert!(index["current"].is_null(), "{index}");
    assert_eq!(index["conversations"][0]["endReason"], "done", "{index}");
}

#[test]
fn stop_while_a_tool_waits_for_its_card_answers_the_agent_and_changes_nothing() {
    let host = FakeHost::new();
    host.put_note(NOTE, BEFORE);
    let p = claude(&host);
    host.agent().turns.push_back(edit_steps());
    let user = async {
        while p.pending_approvals().is_empty() {
            host.sleep(10).await;
        }
        assert!(p.cancel_current_processing());
    };
    let (result, ()) = host.run(join(p.process(direct("m1", "tick off my todos")), user));
    assert!(result.cancelled, "{result:?}");
    host.run(host.sleep(1_000));
    assert_eq!(host.note(NOTE).unwrap(), BEFORE);
    let said = answers(&host);
    assert!(said.len() == 1 && said[0].2 && said[0].1.contains("stopped"), "{said:?}");
    assert!(p.pending_approvals().is_empty(), "the card is gone");
}

#[test]
fn an_agent_without_http_mcp_is_given_no_server_and_still_answers() {
    let host = FakeHost::new();
    host.agent().no_http_mcp = true;
    let p = claude(&host);
    host.agent().turns.push_back(vec![chunk("Hello.")]);
    assert!(host.run(p.process(direct("m1", "hello"))).success);
    assert_eq!(host.agent_requests("session/new")[0]["params"]["mcpServers"], json!([]));
    assert!(host.logs().iter().any(|(_, line)| line.contains("does not take MCP servers over HTTP")));
}
