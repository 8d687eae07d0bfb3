//! The ACP messages the client reads and writes, checked against the protocol's own examples
//! and schema: what an agent sends (every `session/update` variant, permission requests, the
//! answers to initialize, session/new and session/prompt) is read as the schema's docs show it,
//! and what the client writes has every field the schema requires.
//!
//! The official schema comes with the protocol's TypeScript SDK, a pinned devDependency
//! (`node_modules/@agentclientprotocol/sdk/schema/v1/schema.json`, installed by `npm ci`): a
//! missing schema fails the test. The protocol's documentation examples are read from a copy of
//! agentclientprotocol/agent-client-protocol when one is present (`ACP_SPEC_DIR`, or the
//! workplace's mirror; the SDK ships no docs); the examples below are written after them, so
//! that test means something without the copy.

mod common;

use std::path::PathBuf;

use common::acp::*;
use common::*;
use serde_json::{json, Value};
use smarthole_agent::testing::internals::read_acp_message;
use smarthole_agent::testing::{AgentStep, FakeHost};
use smarthole_agent::{AgentKind, Settings};

#[test]
fn every_agent_message_the_client_uses_is_read() {
    let lines = [
        (
            json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": 1, "agentCapabilities": {"loadSession": true,
            "promptCapabilities": {"image": true, "audio": true, "embeddedContext": true}, "mcpCapabilities": {"http": true, "sse": true}},
            "agentInfo": {"name": "agent", "version": "1.0.0"}, "authMethods": []}}),
            "initialize v1",
        ),
        (json!({"jsonrpc": "2.0", "id": 1, "result": {"sessionId": "sess_abc123def456"}}), "new session"),
        (json!({"jsonrpc": "2.0", "id": 2, "result": {"stopReason": "end_turn"}}), "prompt end_turn"),
        (
            update(
                json!({"sessionUpdate": "agent_message_chunk", "messageId": "m", "content": {"type": "text", "text": "Hi"}}),
            ),
            "update AgentMessageChunk",
        ),
        (
            update(json!({"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": "hmm"}})),
            "update AgentThoughtChunk",
        ),
        (
            update(
                json!({"sessionUpdate": "tool_call", "toolCallId": "call_001", "title": "Reading configuration file", "kind": "read", "status": "pending"}),
            ),
            "update ToolCall",
        ),
        (
            update(json!({"sessionUpdate": "tool_call_update", "toolCallId": "call_001", "status": "completed",
            "content": [{"type": "content", "content": {"type": "text", "text": "Found 3 configuration files..."}}]})),
            "update ToolCallUpdate",
        ),
        (
            update(json!({"sessionUpdate": "tool_call_update", "toolCallId": "call_002",
            "content": [{"type": "diff", "path": "/home/user/project/src/config.json", "oldText": "{}", "newText": "{\"a\":1}"}]})),
            "update ToolCallUpdate",
        ),
        (
            update(
                json!({"sessionUpdate": "plan", "entries": [{"content": "Check for syntax errors", "priority": "high", "status": "pending"}]}),
            ),
            "update Plan",
        ),
        (
            update(
                json!({"sessionUpdate": "available_commands_update", "availableCommands": [{"name": "web", "description": "Search the web", "input": {"hint": "query"}}]}),
            ),
            "update AvailableCommandsUpdate",
        ),
        (
            update(
                json!({"sessionUpdate": "usage_update", "used": 53000, "size": 200000, "cost": {"amount": 0.045, "currency": "USD"}}),
            ),
            "update UsageUpdate",
        ),
        (update(json!({"sessionUpdate": "current_mode_update", "currentModeId": "code"})), "update Other"),
        (
            json!({"jsonrpc": "2.0", "id": 5, "method": "session/request_permission", "params": {"sessionId": "sess_abc123def456",
            "toolCall": {"toolCallId": "call_001"}, "options": [
                {"optionId": "allow-once", "name": "Allow once", "kind": "allow_once"},
                {"optionId": "reject-once", "name": "Reject", "kind": "reject_once"}]}}),
            "permission",
        ),
    ];
    for (line, read) in lines {
        assert_eq!(read_acp_message(&line.to_string()).as_deref(), Ok(read), "{line}");
    }
}

fn update(update: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "sess_abc123def456", "update": update}})
}

/// The protocol's official JSON schema, from the pinned SDK in node_modules (required).
fn official_schema() -> Value {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("node_modules/@agentclientprotocol/sdk/schema/v1/schema.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("the ACP schema {} is missing ({e}): run `npm ci`", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

/// The copy of the protocol's repository, when there is one.
fn spec_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("ACP_SPEC_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/work/.mirror/agentclientprotocol+agent-client-protocol/repo"));
    dir.exists().then_some(dir)
}

/// A file of the copy (a git directory: read from its HEAD; else a work tree).
fn spec_file(dir: &PathBuf, path: &str) -> Option<String> {
    let on_disk = std::fs::read_to_string(dir.join(path)).ok();
    on_disk.or_else(|| {
        let out = std::process::Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(["show", &format!("HEAD:{path}")])
            .output()
            .ok()?;
        out.status.success().then(|| String::from_utf8_lossy(&out.stdout).into_owned())
    })
}

#[test]
fn the_protocols_own_examples_are_read() {
    let Some(dir) = spec_dir() else {
        eprintln!("no copy of the ACP repository (set ACP_SPEC_DIR): only the written examples were checked");
        return;
    };
    let mut read = Vec::new();
    for page in [
        "prompt-turn",
        "initialization",
        "session-setup",
        "tool-calls",
        "agent-plan",
        "session-modes",
        "slash-commands",
        "content",
    ] {
        let text = spec_file(&dir, &format!("docs/protocol/v1/{page}.mdx")).unwrap_or_default();
        for block in text.split("```json").skip(1) {
            let Some(body) = block.split_once('\n').and_then(|(_, rest)| rest.split("```").next()) else { continue };
            let Ok(message) = serde_json::from_str::<Value>(body) else { continue };
            // Only what an agent sends the client: its notifications, its requests to us, its answers.
            let from_agent = match message["method"].as_str() {
                Some(method) => method == "session/update" || method == "session/request_permission",
                None => message.get("result").is_some(),
            };
            if from_agent {
                let what = read_acp_message(&message.to_string()).unwrap_or_else(|e| panic!("{page}: {e}: {message}"));
                read.push(what);
            }
        }
    }
    for expected in [
        "initialize v1",
        "new session",
        "prompt end_turn",
        "update AgentMessageChunk",
        "update ToolCall",
        "update ToolCallUpdate",
        "update Plan",
        "permission",
    ] {
        assert!(read.iter().any(|r| r == expected), "no example of {expected} was read: {read:?}");
    }
}

#[test]
fn what_the_client_writes_has_every_field_the_schema_requires() {
    let host = FakeHost::new();
    let p = acp_processor(&host, Settings { agent_own_tools: false, ..agent_settings(AgentKind::ClaudeCode) });
    host.agent().turns.push_back(vec![
        AgentStep::Permission(json!({"toolCallId": "w", "title": "Write a.md", "kind": "edit"})),
        chunk("a"),
        AgentStep::AwaitCancel,
    ]);
    host.run(async {
        let stop = async {
            while streamed_text(&host, "x").is_empty() {
                smarthole_agent::Host::sleep(&host, 1).await;
            }
            p.cancel_current_processing()
        };
        futures::join!(p.process(direct("x", "hi")), stop)
    });
    let sent = host.agent().received.clone();
    // Each message's required fields, as the official schema lists them.
    let schema = official_schema();
    let required = [
        ("initialize", "InitializeRequest"),
        ("session/new", "NewSessionRequest"),
        ("session/prompt", "PromptRequest"),
        ("session/cancel", "CancelNotification"),
    ];
    for (method, name) in required {
        let message = sent.iter().find(|m| m["method"] == method).unwrap_or_else(|| panic!("{method} was sent"));
        assert_eq!(message["jsonrpc"], "2.0");
        let listed = schema["$defs"][name]["required"].as_array().cloned().unwrap_or_default();
        let fields: Vec<String> = listed.iter().filter_map(|f| f.as_str().map(str::to_owned)).collect();
        assert!(!fields.is_empty(), "{name} with its required fields in the schema");
        for field in fields {
            assert!(message["params"].get(&field).is_some(), "{method} lacks {field}: {message}");
        }
    }
    // The permission answer: an outcome the schema knows.
    let answer = sent.iter().find(|m| m["id"].as_str().is_some_and(|i| i.starts_with("perm-"))).expect("answered");
    let outcome = &answer["result"]["outcome"];
    assert!(
        outcome["outcome"] == "cancelled" || (outcome["outcome"] == "selected" && outcome["optionId"].is_string()),
        "{answer}"
    );
}
