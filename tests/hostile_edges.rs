//! Issue 14, the edges: message ids that would make file names too long for a disk (the FakeHost
//! refuses names a disk would), a verification or message polled on another context's own port,
//! a token sent in a query string kept out of the log, and misspelled settings fields. After each
//! case the processor answers the next message.

mod common;

use common::*;
use serde_json::{json, Value};
use smarthole_agent::testing::{FakeHost, Reply};
use smarthole_agent::{unknown_fields, SettingsDocument};
use smarthole_agent::{AgentContext, ApiRequest, ApiResponse, MessageProcessor, Settings, Stage};

/// The processor still answers a plain message.
fn answers_the_next_message(host: &FakeHost, p: &MessageProcessor<FakeHost>, label: &str) {
    host.script([Reply::text("still here")]);
    let id = format!("next-{}", host.requests().len());
    let result = host.run(p.process(direct(&id, "are you there?")));
    assert!(result.success, "{label}: the next message failed: {result:?}");
    assert_eq!(result.response.as_deref(), Some("still here"), "{label}");
}

/// Every file name under `.smarthole/` fits on a disk (the stem within 120 bytes).
fn assert_short_names(host: &FakeHost, label: &str) {
    for dir in ["inbox", "failed", "approvals"] {
        for path in host.paths_under(dir) {
            let name = path.rsplit('/').next().unwrap_or_default();
            let stem = name.split('.').next().unwrap_or_default();
            assert!(stem.len() <= 120, "{label}: {} bytes: {name}", stem.len());
        }
    }
}

#[test]
fn long_non_ascii_ids_get_file_names_a_disk_takes_and_a_redelivery_finds_its_file() {
    let shared = "ü".repeat(99);
    let ids: Vec<(&str, String)> = vec![
        ("200 bytes of é", "é".repeat(100)),
        ("50 emoji", "😀".repeat(50)),
        ("combining marks", format!("e{}", "\u{301}".repeat(99))),
        ("200 ASCII bytes", "x".repeat(200)),
        ("CJK", "漢".repeat(66)),
        ("long shared prefix, a", format!("{shared}a")),
        ("long shared prefix, b", format!("{shared}b")),
        ("dots and slashes", "../".repeat(66)),
    ];
    let host = FakeHost::new();
    let p = processor(&host);
    for (label, id) in &ids {
        assert!(id.len() <= 200, "{label}: the id itself is valid ({} bytes)", id.len());
        host.script([Reply::text(&format!("answer to {label}"))]);
        let result = host.run(p.process(from_hub(id, label)));
        assert!(result.success, "{label}: {result:?}");
        assert_eq!(recorded_count(&host, id), 1, "{label}: recorded once");
        assert!(inbox(&host).is_empty(), "{label}: the inbox file was found again and removed");
        // The hub delivers it again: the same file, finished from history without a model call.
        let before = host.requests().len();
        let again = host.run(p.process(from_hub(id, label)));
        assert!(again.success, "{label}: {again:?}");
        assert_eq!(host.requests().len(), before, "{label}: a re-delivery calls no model");
        assert_eq!(recorded_count(&host, id), 1, "{label}: still recorded once");
        answers_the_next_message(&host, &p, label);
    }
    // Two ids sharing a long prefix were two messages, each with its own answer.
    let answers: Vec<String> = history(&host)
        .into_iter()
        .filter(|l| l.message_id == ids[5].1 || l.message_id == ids[6].1)
        .map(|l| serde_json::to_string(&l.content).unwrap_or_default())
        .collect();
    assert!(answers.iter().any(|a| a.contains("prefix, a")) && answers.iter().any(|a| a.contains("prefix, b")));
}

#[test]
fn a_long_id_left_in_the_inbox_by_a_crash_is_found_and_finished_at_the_next_start() {
    for id in ["😀".repeat(50), format!("{}z", "ß".repeat(99)), format!("a{}", "\u{308}".repeat(99))] {
        let host = FakeHost::new();
        host.script([Reply::text("the answer")]);
        let p = processor(&host);
        let crashed = host.run_until(p.process(from_hub(&id, "remember")), |e| {
            matches!(e, smarthole_agent::Event::Stage { stage: Stage::ModelRequest, .. })
        });
        assert!(crashed.is_none());
        let entries = inbox(&host).into_iter().filter(|f| f.ends_with(".json")).count();
        assert_eq!(entries, 1, "the message waits in the inbox (beside its turn journal)");
        assert_short_names(&host, &id);
        let p = processor(&host);
        let summary = host.run(p.reprocess_pending()).expect("reprocess");
        assert_eq!(summary.moved_to_failed.len(), 0, "{id}: the file name matched its id");
        assert!(summary.results.iter().any(|r| r.success && r.message_id == id), "{summary:?}");
        assert_eq!(recorded_count(&host, &id), 1);
        assert!(inbox(&host).is_empty());
        answers_the_next_message(&host, &p, &id);
    }
}

#[test]
fn a_long_id_left_under_an_older_versions_unbounded_file_name_is_renamed_and_finished() {
    // Before file names were bounded, a stem was the escaped id however long: 30 × "é" was 180
    // bytes of `~C3~A9`. Such a file (and its journal) is moved to today's name and answered.
    let id = "é".repeat(30);
    let escaped: String = id
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b == b'-' || b == b'_' {
                char::from(b).to_string()
            } else {
                format!("~{b:02X}")
            }
        })
        .collect();
    assert!(escaped.len() > 120 && escaped.len() <= 235, "{} bytes", escaped.len());
    let crashed = FakeHost::new();
    crashed.script([Reply::text("never")]);
    let p = processor(&crashed);
    let left = crashed.run_until(p.process(from_hub(&id, "remember")), |e| {
        matches!(e, smarthole_agent::Event::Stage { stage: Stage::ModelRequest, .. })
    });
    assert!(left.is_none());
    let entry = inbox(&crashed).into_iter().find(|p| p.ends_with(".json")).expect("an inbox entry");
    let text = crashed.file(&entry).expect("its text");

    let host = FakeHost::new();
    host.put_file(&format!("inbox/{escaped}.json"), &text);
    host.put_file(&format!("inbox/{escaped}.turn.jsonl"), "");
    host.script([Reply::text("the answer")]);
    let p = processor(&host);
    let summary = host.run(p.reprocess_pending()).expect("reprocess");
    assert_eq!(summary.moved_to_failed.len(), 0, "{summary:?}");
    assert!(summary.results.iter().any(|r| r.success && r.message_id == id), "{summary:?}");
    assert_eq!(recorded_count(&host, &id), 1);
    assert!(inbox(&host).is_empty(), "{:?}", inbox(&host));
    assert_short_names(&host, "renamed");
    answers_the_next_message(&host, &p, "renamed");
}

const TOKEN: &str = "5f0c1d2e3a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5";
const MAIN: u16 = 8090;
const REVIEWER: u16 = 8091;
const CI: u16 = 8092;

fn api_settings() -> Settings {
    let context = |name: &str, port: Option<u16>, required: bool| AgentContext {
        name: name.into(),
        port,
        allowed_actions: vec!["deploy".into(), "comment".into()],
        verification_required: required,
        ..AgentContext::default()
    };
    Settings {
        agent_api_enabled: true,
        agent_api_token: TOKEN.into(),
        agent_contexts: vec![
            context("default", None, true),
            context("reviewer", Some(REVIEWER), true),
            context("ci", Some(CI), false),
        ],
        ..settings()
    }
}

fn call(
    host: &FakeHost,
    p: &MessageProcessor<FakeHost>,
    port: u16,
    method: &str,
    url: &str,
    body: Value,
) -> (u16, Value) {
    let request = ApiRequest {
        method: method.into(),
        url: url.into(),
        headers: [("host", format!("127.0.0.1:{port}")), ("authorization", format!("Bearer {TOKEN}"))]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect(),
        body: if body.is_null() { String::new() } else { body.to_string() },
        body_too_large: false,
        local_port: port,
    };
    let ApiResponse { status, body, .. } = host.run(p.handle_api(request));
    (status, serde_json::from_str(&body).expect("JSON"))
}

#[test]
fn a_verification_or_message_is_seen_only_on_its_own_contexts_port_and_on_the_main_port() {
    let host = FakeHost::new();
    let p = processor_with(&host, api_settings());
    // Made on: (port, query) → its id. Pending ones (default, reviewer) and decided at once (ci,
    // and an action outside the list).
    let made: Vec<(&str, u16, &str, &str)> = vec![
        ("default, on the main port", MAIN, "/verify", "deploy"),
        ("reviewer, on the main port", MAIN, "/verify?context=reviewer", "deploy"),
        ("reviewer, on its own port", REVIEWER, "/verify", "deploy"),
        ("ci, at once on its own port", CI, "/verify", "deploy"),
        ("default, refused at once", MAIN, "/verify", "format_disk"),
    ];
    let owner = ["default", "reviewer", "reviewer", "ci", "default"];
    let mut ids = Vec::new();
    for (label, port, url, action) in &made {
        let (status, answer) = call(&host, &p, *port, "POST", url, json!({"action": action, "reason": "because"}));
        assert!(status == 200 || status == 202, "{label}: {status} {answer}");
        ids.push(answer["verification_id"].as_str().expect("an id").to_owned());
    }
    for (i, (label, ..)) in made.iter().enumerate() {
        for (port, port_context) in [(MAIN, None), (REVIEWER, Some("reviewer")), (CI, Some("ci"))] {
            let (status, answer) = call(&host, &p, port, "GET", &format!("/verify/{}", ids[i]), Value::Null);
            let visible = port_context.is_none_or(|c| c == owner[i]);
            if visible {
                assert_eq!(status, 200, "{label} polled on {port}: {answer}");
                assert_eq!(answer["verification_id"], ids[i].as_str());
            } else {
                assert_eq!(
                    (status, answer["error"]["code"].as_str()),
                    (404, Some("unknown_verification")),
                    "{label} on {port}"
                );
            }
        }
    }
    // Messages: the main port sees all; a context's port only those sent on it.
    host.script([Reply::text("from main"), Reply::text("from reviewer")]);
    let (_, main_msg) = call(&host, &p, MAIN, "POST", "/messages?wait=30", json!({"text": "one"}));
    let (_, own_msg) = call(&host, &p, REVIEWER, "POST", "/messages?wait=30", json!({"text": "two"}));
    let main_id = main_msg["message_id"].as_str().expect("id").to_owned();
    let own_id = own_msg["message_id"].as_str().expect("id").to_owned();
    let poll = |port: u16, id: &str| call(&host, &p, port, "GET", &format!("/messages/{id}"), Value::Null).0;
    assert_eq!(poll(MAIN, &main_id), 200);
    assert_eq!(poll(MAIN, &own_id), 200);
    assert_eq!(poll(REVIEWER, &own_id), 200);
    assert_eq!(poll(REVIEWER, &main_id), 404, "a message sent on the main port is not another context's");
    assert_eq!(poll(CI, &own_id), 404);
    answers_the_next_message(&host, &p, "ports");
}

#[test]
fn a_token_in_the_query_string_never_reaches_the_log() {
    let host = FakeHost::new();
    let p = processor_with(&host, Settings { verbose_logging: true, ..api_settings() });
    let secret = "s3cr3t-in-the-query";
    let urls = [
        format!("/verify/ver-nope?token={secret}"),
        format!("/config?access_token={secret}&wait=5"),
        format!("/nowhere?Authorization=Bearer%20{secret}"),
        format!("/verify/ver-nope?wait=99&key={secret}"),
        format!("/messages/x?token={secret}#frag"),
    ];
    for url in &urls {
        call(&host, &p, MAIN, "GET", url, Value::Null);
        // Also without the right token: refused, and logged without the query's secret.
        let request = ApiRequest {
            method: "GET".into(),
            url: url.clone(),
            headers: [("host".to_owned(), format!("127.0.0.1:{MAIN}"))].into_iter().collect(),
            local_port: MAIN,
            ..ApiRequest::default()
        };
        host.run(p.handle_api(request));
    }
    let logs = host.logs();
    assert!(logs.iter().any(|(_, l)| l.contains("agent API GET /verify/ver-nope?token=[redacted]")), "{logs:?}");
    for (_, line) in &logs {
        assert!(!line.contains(secret), "the token reached the log: {line}");
        assert!(!line.contains(TOKEN), "the API token reached the log: {line}");
    }
    answers_the_next_message(&host, &p, "token in the query");
}

#[test]
fn misspelled_settings_fields_are_named_with_the_spelling_meant() {
    let cases: Vec<(Value, SettingsDocument, &[&str])> = vec![
        (
            json!({"agentContexts": [{"name": "a", "allowed_actions": ["x"], "base_instruction": "y"}]}),
            SettingsDocument::ApiConfig,
            &[
                "unknown field `allowed_actions` in src at agentContexts[0] (did you mean `allowedActions`?)",
                "unknown field `base_instruction` in src at agentContexts[0] (did you mean `baseInstruction`?)",
            ],
        ),
        (
            json!({"verificationTimeoutSecond": 3}),
            SettingsDocument::ApiConfig,
            &["unknown field `verificationTimeoutSecond` in src (did you mean `verificationTimeoutSeconds`?)"],
        ),
        (
            json!({"agentContexts": [{"Port": 9000}]}),
            SettingsDocument::ApiConfig,
            &["unknown field `Port` in src at agentContexts[0] (did you mean `port`?)"],
        ),
        (
            json!({"mcpServers": [{"name": "a", "command": "x", "Args": []}]}),
            SettingsDocument::McpConfig,
            &["unknown field `Args` in src at mcpServers[0] (did you mean `args`?)"],
        ),
        (
            json!({"mcp-servers": []}),
            SettingsDocument::McpConfig,
            &["unknown field `mcp-servers` in src (did you mean `mcpServers`?)"],
        ),
        (
            json!({"hubURL": "ws://x", "futureSetting": true}),
            SettingsDocument::PluginData,
            &["unknown field `futureSetting` in src", "unknown field `hubURL` in src (did you mean `hubUrl`?)"],
        ),
        (
            json!({"agentContexts": [{"name": "a", "allowedActions": [], "verificationRequired": true}]}),
            SettingsDocument::ApiConfig,
            &[],
        ),
    ];
    for (value, document, expected) in cases {
        let found: Vec<String> = unknown_fields(&value, document).iter().map(|u| u.describe("src")).collect();
        assert_eq!(found, expected, "{value}");
    }
    // A misspelled context field would otherwise be ignored: the context keeps its default list.
    let silently: Settings =
        Settings::from_json(json!({"agentContexts": [{"name": "a", "allowed_actions": ["only_this"]}]}))
            .expect("valid");
    assert_ne!(silently.agent_contexts[0].allowed_actions, ["only_this"], "why the check is needed");
}
