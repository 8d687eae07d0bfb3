//! Integrations (MCP servers) as the core uses them: their tools offered under namespaced
//! names, results back to the model, an unconnected integration pointed to Settings, an expired
//! sign-in turned into a reconnect question, and schedules that check their integrations.

mod common;

use common::*;
use serde_json::json;
use smarthole_agent::testing::{FakeHost, Reply};
use smarthole_agent::ConversationStatus;
use smarthole_agent::McpServerConfig;
use smarthole_agent::{Host, MessageProcessor, Settings};
use smarthole_agent::{McpError, McpServer, McpState, McpTool};

fn server(name: &str, state: McpState, tools: &[&str]) -> McpServer {
    McpServer {
        name: name.into(),
        state,
        error: (state == McpState::Failed).then(|| "connection refused".into()),
        tools: tools
            .iter()
            .map(|t| McpTool {
                name: (*t).into(),
                description: format!("the {t} tool"),
                input_schema: json!({"type": "object", "properties": {"message": {"type": "string"}}}),
            })
            .collect(),
    }
}

fn setup() -> FakeHost {
    let host = FakeHost::new();
    host.put_mcp_server(server("everything", McpState::Connected, &["echo", "get-sum"]));
    host.put_mcp_server(server("mail", McpState::Failed, &["send"]));
    host
}

/// A processor whose settings list the two integrations the host reports.
fn processor(host: &FakeHost) -> MessageProcessor<FakeHost> {
    let configured =
        |name: &str| McpServerConfig { name: name.into(), command: Some("server".into()), ..Default::default() };
    processor_with(host, Settings { mcp_servers: vec![configured("everything"), configured("mail")], ..settings() })
}

#[test]
fn connected_tools_are_offered_and_their_results_reach_the_model() {
    let host = setup();
    let p = processor(&host);
    host.script_mcp("everything", "echo", Ok(json!({"content": [{"type": "text", "text": "Echo: hello"}]})));
    host.script([
        Reply::tools("", &[("e1", "mcp__everything__echo", json!({"message": "hello"}))]),
        Reply::text("The server said hello back."),
    ]);
    let result = host.run(p.process(direct("a", "ping the test server")));
    assert!(result.success);
    let first = &host.requests()[0].body;
    let names: Vec<&str> = first["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"mcp__everything__echo") && names.contains(&"mcp__everything__get-sum"), "{names:?}");
    assert!(!names.iter().any(|n| n.starts_with("mcp__mail")), "an unconnected server offers nothing");
    let system = first["system"][0]["text"].as_str().unwrap();
    assert!(system.contains("- everything: connected, 2 tools"), "{system}");
    assert!(system.contains("- mail: not connected (connection refused)"), "{system}");
    assert_eq!(host.mcp_calls(), [("everything".into(), "echo".into(), json!({"message": "hello"}))]);
    assert_eq!(tool_result(&host, "e1"), ("Echo: hello".into(), false));
}

#[test]
fn a_missing_integration_points_the_user_to_settings() {
    let host = setup();
    let p = processor(&host);
    host.script([
        Reply::tools("", &[("m1", "mcp__mail__send", json!({"to": "bob"}))]),
        Reply::text("It is not connected."),
    ]);
    host.run(p.process(direct("a", "email Bob")));
    let (told, is_error) = tool_result(&host, "m1");
    assert!(is_error);
    assert!(
        told.contains("The mail integration is not connected")
            && told.contains("Settings → SmartHole Agent → Integrations"),
        "{told}"
    );
    assert!(host.mcp_calls().is_empty(), "nothing is sent to a server that is not connected");

    // A schedule that needs it is refused before it exists.
    host.script([
        Reply::tools("", &[("s1", "create_schedule", json!({"type": "cron", "expression": "0 8 * * *", "task": "email the digest", "integrations": ["mail"]}))]),
        Reply::text("Connect mail first."),
    ]);
    host.run(p.process(direct("b", "email me a digest every morning")));
    let (told, is_error) = tool_result(&host, "s1");
    assert!(is_error && told.contains("The mail integration is not connected"), "{told}");
    host.script([
        Reply::tools(
            "",
            &[("s2", "create_schedule", json!({"type": "immediate", "task": "x", "integrations": ["calendar"]}))],
        ),
        Reply::text("No such integration."),
    ]);
    host.run(p.process(direct("c", "sync my calendar")));
    assert!(tool_result(&host, "s2").0.contains("There is no integration named \"calendar\""));
    assert!(host.run(p.scheduled()).is_empty());
    // And with a connected one it is created.
    host.script([
        Reply::tools(
            "",
            &[("s3", "create_schedule", json!({"type": "immediate", "task": "echo", "integrations": ["everything"]}))],
        ),
        Reply::text("Scheduled."),
    ]);
    host.run(p.process(direct("d", "echo in the background")));
    assert!(!tool_result(&host, "s3").1);
}

#[test]
fn an_expired_sign_in_mid_chat_asks_the_user_to_reconnect() {
    let host = setup();
    let p = processor(&host);
    host.script_mcp(
        "everything",
        "get-sum",
        Err(McpError::Unauthorized { server: "everything".into(), message: "HTTP 401".into() }),
    );
    host.script([Reply::tools("", &[("g1", "mcp__everything__get-sum", json!({}))])]);
    let result = host.run(p.process(from_hub("h1", "add 2 and 3 with the test server")));
    assert_eq!(result.is_waiting_for_response, Some(true), "the turn waits for the user");
    let conversation = host.run(p.current_conversation()).unwrap();
    assert_eq!(conversation.status, ConversationStatus::WaitingInput);
    let prompt = conversation.state.pending_question.unwrap().prompt;
    assert!(
        prompt.contains("**everything** integration needs to be reconnected") && prompt.contains("Settings"),
        "{prompt}"
    );
    let (told, is_error) = tool_result_after(&host, p, "g1");
    assert!(is_error && told.contains("HTTP 401"), "{told}");
    let notes = host.hub_responses("notification");
    assert!(notes
        .iter()
        .any(|n| n["payload"]["payload"]["body"].as_str().unwrap().contains("needs to be reconnected")));
}

/// The result of a tool the model has not been shown yet (the turn ended on it): sends the
/// user's next message and reads it from that request.
fn tool_result_after(host: &FakeHost, p: MessageProcessor<FakeHost>, id: &str) -> (String, bool) {
    host.script([Reply::text("Thanks, carrying on.")]);
    host.run(p.process(direct("later", "done, reconnected")));
    tool_result(host, id)
}

#[test]
fn each_tool_call_is_announced_in_the_users_words() {
    let host = setup();
    let p = processor(&host);
    host.script_mcp("everything", "get-sum", Ok(json!({"content": [{"type": "text", "text": "3"}]})));
    host.put_note("Notes/Old.md", "old");
    host.script([
        Reply::tools(
            "",
            &[
                ("t1", "mcp__everything__get-sum", json!({"a": 1, "b": 2})),
                ("t2", "read_file", json!({"path": "Notes/Old.md"})),
                ("t3", "list_files", json!({"glob": "*.md"})),
                ("t4", "send_message", json!({"message": "working on it"})),
                ("t5", "no_such_tool", json!({})),
            ],
        ),
        Reply::text("Done."),
    ]);
    host.run(p.process(direct("a", "add and read")));
    let words: Vec<String> = host
        .events()
        .into_iter()
        .filter_map(|e| match e {
            smarthole_agent::Event::ToolStarted { words, .. } => Some(words),
            _ => None,
        })
        .collect();
    assert_eq!(
        words,
        ["get-sum (everything)", "Read Notes/Old.md", "List the vault (*.md)", "Send you an update", "no_such_tool"]
    );
}

/// The core decides how long a turn waits for integrations still connecting (3 s): one that
/// connects within it is used, one that takes longer is left out and the turn goes on.
#[test]
fn a_turn_waits_a_little_for_integrations_still_connecting_and_no_longer() {
    let host = FakeHost::new();
    let start = host.now_ms();
    host.put_mcp_server_connecting(server("quick", McpState::Connected, &["echo"]), start + 1_000);
    host.put_mcp_server_connecting(server("slow", McpState::Connected, &["send"]), start + 60_000);
    let configured =
        |name: &str| McpServerConfig { name: name.into(), url: Some("http://x".into()), ..Default::default() };
    let p =
        processor_with(&host, Settings { mcp_servers: vec![configured("quick"), configured("slow")], ..settings() });
    host.script([Reply::text("Done.")]);
    assert!(host.run(p.process(direct("a", "hello"))).success);
    let first = &host.requests()[0].body;
    let names: Vec<&str> = first["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"mcp__quick__echo"), "connected within the wait: {names:?}");
    assert!(!names.iter().any(|n| n.starts_with("mcp__slow")), "still connecting after it: {names:?}");
    let system = first["system"][0]["text"].as_str().unwrap();
    assert!(system.contains("- quick: connected, 1 tools"), "{system}");
    assert!(system.contains("- slow: connecting, not available yet"), "{system}");
}
