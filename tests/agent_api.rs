//! The agent API through the core, in virtual time: who gets in, what malformed requests get,
//! what `/config` and the contexts say, messages (a round trip with `wait`, polling, attachments)
//! and the settings' checks. Verifications are `agent_api_verify.rs`.

mod common;

use common::agent_api::*;
use common::*;
use serde_json::json;
use smarthole_agent::testing::internals::BODY_LIMIT;
use smarthole_agent::testing::{FakeHost, Reply};
use smarthole_agent::{MessageProcessor, Settings};

#[test]
fn strangers_browsers_and_oversized_bodies_are_refused_before_anything_happens() {
    let (host, p) = setup();
    let mut no_token = request("GET", "/config", "");
    no_token.headers.remove("authorization");
    assert_eq!(error_code(&call(&host, &p, no_token)), (401, "unauthorized"));
    let mut wrong = request("GET", "/config", "");
    wrong.headers.insert("authorization".into(), format!("Bearer {}", TOKEN.replace('5', "6")));
    assert_eq!(error_code(&call(&host, &p, wrong)), (401, "unauthorized"));
    let mut browser = request("POST", "/verify", r#"{"action":"deploy","reason":"x"}"#);
    browser.headers.insert("origin".into(), "https://example.org".into());
    assert_eq!(error_code(&call(&host, &p, browser)), (403, "forbidden_origin"));
    let mut rebound = request("GET", "/config", "");
    rebound.headers.insert("host".into(), "attacker.example:8090".into());
    assert_eq!(error_code(&call(&host, &p, rebound)), (403, "forbidden_host"));
    let mut big = request("POST", "/messages", &"x".repeat(BODY_LIMIT));
    big.body_too_large = true;
    assert_eq!(error_code(&call(&host, &p, big)), (413, "payload_too_large"));
    assert!(p.pending_approvals().is_empty() && host.requests().is_empty(), "nothing was asked or sent");
}

#[test]
fn malformed_requests_get_400_naming_the_field_and_unknown_paths_404() {
    let (host, p) = setup();
    assert_eq!(error_code(&get(&host, &p, "/nothing-here")), (404, "not_found"));
    assert_eq!(error_code(&get(&host, &p, "/context/nobody")), (404, "unknown_context"));
    assert_eq!(error_code(&get(&host, &p, "/verify/ver-0000")), (404, "unknown_verification"));
    assert_eq!(error_code(&get(&host, &p, "/messages/api-0000")), (404, "unknown_message"));
    assert_eq!(error_code(&call(&host, &p, request("DELETE", "/config", ""))), (405, "method_not_allowed"));
    assert_eq!(error_code(&call(&host, &p, request("POST", "/verify", "{not json"))), (400, "invalid_json"));
    assert_eq!(error_code(&call(&host, &p, request("POST", "/verify", "[1,2]"))), (400, "invalid_json"));
    for (body, field) in [
        (json!({"reason": "r"}), "action"),
        (json!({"action": 7, "reason": "r"}), "action"),
        (json!({"action": "deploy"}), "reason"),
        (json!({"action": "deploy", "reason": "  "}), "reason"),
    ] {
        let answer = post(&host, &p, "/verify", body);
        assert_eq!(error_code(&answer), (400, "invalid_field"));
        assert_eq!(answer.1["error"]["field"], field);
        assert!(answer.1["error"]["message"].as_str().unwrap().starts_with(field));
    }
    let answer = post(&host, &p, "/messages", json!({"text": "hi", "metadata": "not an object"}));
    assert_eq!((error_code(&answer), &answer.1["error"]["field"]), ((400, "invalid_field"), &json!("metadata")));
    let answer = get(&host, &p, "/verify/x?wait=600");
    assert_eq!((error_code(&answer), &answer.1["error"]["field"]), ((400, "invalid_field"), &json!("wait")));
    assert!(p.pending_approvals().is_empty());
}

#[test]
fn config_and_contexts_describe_what_the_server_does() {
    let (host, p) = setup();
    let (status, config) = get(&host, &p, "/config");
    assert_eq!(status, 200);
    assert_eq!(config["api_version"], 1);
    assert_eq!(config["ports"][0]["port"], 8090);
    assert_eq!(config["ports"][1]["port"], 8091);
    assert_eq!(config["ports"][1]["context"], "reviewer");
    let endpoints: Vec<String> = config["endpoints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| format!("{} {}", e["method"].as_str().unwrap(), e["path"].as_str().unwrap()))
        .collect();
    assert_eq!(
        endpoints,
        [
            "GET /config",
            "GET /context",
            "GET /context/{name}",
            "POST /verify",
            "GET /verify/{id}",
            "POST /messages",
            "GET /messages/{id}"
        ]
    );
    assert_eq!(config["verification"]["timeout_seconds"], 300);
    assert!(config["auth"].get("token").is_none(), "the token is never served");
    assert_eq!(p.api_config_document(true)["auth"]["token"], TOKEN, "only the downloaded file may carry it");

    let (_, main) = get(&host, &p, "/context");
    assert_eq!(main["name"], "default");
    assert_eq!(main["verification_required"], true);
    for field in ["system", "role", "base_instruction", "allowed_actions"] {
        assert!(!main[field].is_null(), "{field}");
    }
    let mut on_own_port = request("GET", "/context", "");
    on_own_port.local_port = 8091;
    on_own_port.headers.insert("host".into(), "localhost:8091".into());
    assert_eq!(call(&host, &p, on_own_port).1["role"], "You review pull requests.");
    assert_eq!(get(&host, &p, "/context/reviewer").1["name"], "reviewer");
    let ports: Vec<u16> = p.api_listeners().iter().map(|l| l.port).collect();
    assert_eq!(ports, [8090, 8091]);
}

#[test]
fn a_message_goes_through_the_pipeline_with_source_api_and_its_result_can_be_awaited_or_polled() {
    let (host, p) = setup();
    host.script([Reply::slow_text("Noted in Inbox.md", 1_000)]);
    let (status, answer) =
        post(&host, &p, "/messages?wait=1", json!({"text": "remember the milk", "metadata": {"agent": "ci"}}));
    assert_eq!((status, answer["status"].as_str()), (202, Some("processing")));
    let id = answer["message_id"].as_str().unwrap().to_owned();
    let (status, done) = get(&host, &p, &format!("/messages/{id}?wait=30"));
    assert_eq!((status, done["status"].as_str()), (200, Some("done")));
    assert_eq!(done["result"]["response"], "Noted in Inbox.md");
    assert_eq!(done["result"]["messageId"], id.as_str());
    let line = history(&host).into_iter().find(|l| l.message_id == id).expect("recorded in the conversation");
    assert_eq!(serde_json::to_value(line.source).unwrap(), "api");
    assert!(host.requests()[0].body.to_string().contains("remember the milk"));

    host.script([Reply::text("second answer")]);
    let (status, answer) = post(&host, &p, "/messages?wait=30", json!({"text": "and eggs"}));
    assert_eq!(
        (status, answer["status"].as_str(), answer["result"]["response"].as_str()),
        (200, Some("done"), Some("second answer"))
    );
    let failed = post(&host, &p, "/messages", json!({"text": ""}));
    assert_eq!(error_code(&failed), (400, "invalid_field"));
}

#[test]
fn a_message_carries_vault_paths_as_attachments_under_the_path_rules() {
    let (host, p) = setup();
    host.put_note("Reports/Q3.md", "revenue up 12%");
    host.put_note(".obsidian/workspace.json", "{}");
    host.script([Reply::text("Revenue rose.")]);
    let answer = post(&host, &p, "/messages?wait=30", json!({"text": "sum up", "attachments": ["Reports/Q3.md"]}));
    assert_eq!((answer.0, answer.1["status"].as_str()), (200, Some("done")), "{answer:?}");
    assert!(host.requests()[0].body.to_string().contains("<note path=\\\"Reports/Q3.md\\\">\\nrevenue up 12%"));

    for (attachments, reason) in [
        (json!([".obsidian/workspace.json"]), "protected"),
        (json!(["../outside.md"]), "leaves the vault"),
        (json!(["missing.png"]), "not a note or folder"),
        (json!("Reports/Q3.md"), "must be a list"),
        (json!([7]), "must be a list"),
    ] {
        let refused = post(&host, &p, "/messages", json!({"text": "x", "attachments": attachments}));
        assert_eq!(error_code(&refused), (400, "invalid_field"));
        assert_eq!(refused.1["error"]["field"], "attachments");
        let message = refused.1["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(reason), "{message}");
    }
    assert_eq!(host.requests().len(), 1, "nothing was sent for a refused attachment");
}

#[test]
fn settings_check_the_agent_api() {
    let bad = |s: Settings| s.validate().unwrap_err().to_string();
    let no_token = Settings { agent_api_token: String::new(), ..api_settings() };
    assert!(no_token.validate().is_ok(), "a token missing on this device must not stop the plugin");
    let host = FakeHost::new();
    let without = MessageProcessor::new(host.clone(), no_token).expect("starts");
    assert!(without.api_listeners().is_empty(), "the API stays off without a token");
    assert!(bad(Settings { agent_api_port: 80, ..api_settings() }).contains("between 1024 and 65535"));
    assert!(bad(Settings { verification_timeout_seconds: 0, ..api_settings() }).contains("verification timeout"));
    let mut same_port = api_settings();
    same_port.agent_contexts[1].port = Some(8090);
    assert!(bad(same_port).contains("already used"));
    let mut twins = api_settings();
    twins.agent_contexts[1].name = "default".into();
    assert!(bad(twins).contains("two contexts"));
    assert!(Settings { agent_api_enabled: false, agent_api_token: String::new(), ..api_settings() }.validate().is_ok());
    let (_, p) = setup();
    let token = p.new_api_token();
    assert_eq!(token.len(), 64);
    assert_ne!(token, p.new_api_token());
}
