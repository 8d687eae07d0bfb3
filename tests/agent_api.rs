//! The agent API through the core, in virtual time: who gets in, what malformed requests get,
//! verifications (pending, approved, rejected at once, timeout, session grants, restarts) and
//! messages (a round trip with `wait`, polling).

mod common;

use common::*;
use futures::future::join;
use serde_json::{json, Value};
use smarthole_agent::testing::internals::BODY_LIMIT;
use smarthole_agent::testing::internals::SESSION_GRANT_MS;
use smarthole_agent::testing::{FakeHost, Reply};
use smarthole_agent::AgentContext;
use smarthole_agent::Decision;
use smarthole_agent::Event;
use smarthole_agent::Host;
use smarthole_agent::{ApiRequest, ApiResponse};
use smarthole_agent::{MessageProcessor, Settings};

const TOKEN: &str = "5f0c1d2e3a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5";
const PORT: u16 = 8090;

fn api_settings() -> Settings {
    Settings {
        agent_api_enabled: true,
        agent_api_token: TOKEN.into(),
        agent_contexts: vec![
            AgentContext { allowed_actions: vec!["git_push".into(), "deploy".into()], ..AgentContext::default() },
            AgentContext {
                name: "reviewer".into(),
                port: Some(8091),
                role: "You review pull requests.".into(),
                allowed_actions: vec!["comment".into()],
                verification_required: false,
                ..AgentContext::default()
            },
        ],
        ..settings()
    }
}

fn setup() -> (FakeHost, MessageProcessor<FakeHost>) {
    let host = FakeHost::new();
    let p = processor_with(&host, api_settings());
    (host, p)
}

fn request(method: &str, url: &str, body: &str) -> ApiRequest {
    ApiRequest {
        method: method.into(),
        url: url.into(),
        headers: [("host", format!("127.0.0.1:{PORT}")), ("authorization", format!("Bearer {TOKEN}"))]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect(),
        body: body.into(),
        body_too_large: false,
        local_port: PORT,
    }
}

fn call(host: &FakeHost, p: &MessageProcessor<FakeHost>, request: ApiRequest) -> (u16, Value) {
    let ApiResponse { status, body, .. } = host.run(p.handle_api(request));
    (status, serde_json::from_str(&body).expect("every answer is JSON"))
}

fn get(host: &FakeHost, p: &MessageProcessor<FakeHost>, url: &str) -> (u16, Value) {
    call(host, p, request("GET", url, ""))
}

fn post(host: &FakeHost, p: &MessageProcessor<FakeHost>, url: &str, body: Value) -> (u16, Value) {
    call(host, p, request("POST", url, &body.to_string()))
}

/// Asks for a verification that stays pending; returns its id.
fn ask(host: &FakeHost, p: &MessageProcessor<FakeHost>, action: &str, reason: &str) -> String {
    let (status, answer) = post(host, p, "/verify", json!({"action": action, "reason": reason}));
    assert_eq!(status, 202, "{answer}");
    answer["verification_id"].as_str().expect("an id").to_owned()
}

fn error_code(answer: &(u16, Value)) -> (u16, &str) {
    (answer.0, answer.1["error"]["code"].as_str().unwrap_or("(no error code)"))
}

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
fn a_verification_is_pending_until_the_user_approves_it_and_polling_waits_for_the_answer() {
    let (host, p) = setup();
    let (status, created) = post(
        &host,
        &p,
        "/verify",
        json!({"action": "git_push", "reason": "push the fix to main", "context": {"branch": "main"}}),
    );
    assert_eq!((status, created["status"].as_str()), (202, Some("pending")));
    let id = created["verification_id"].as_str().unwrap().to_owned();
    let card = host
        .events()
        .into_iter()
        .find_map(|e| match e {
            Event::ApprovalRequested { request } => Some(*request),
            _ => None,
        })
        .expect("the user sees a card");
    assert_eq!((card.id.as_str(), card.reason.as_deref()), (id.as_str(), Some("push the fix to main")));
    assert!(host.file(&format!("approvals/{id}.json")).is_some(), "persisted before the user is asked");

    // A poll with wait=30 holds until the user answers, 10 s later.
    let poll = async { p.handle_api(request("GET", &format!("/verify/{id}?wait=30"), "")).await };
    let user = async {
        host.sleep(10_000).await;
        p.decide_approval(&id, Decision::ApproveOnce).await.expect("decided")
    };
    let started = host.now_ms();
    let (answer, _) = host.run(join(poll, user));
    let answer: Value = serde_json::from_str(&answer.body).unwrap();
    assert_eq!(answer["status"], "approved");
    assert_eq!(host.now_ms() - started, 10_000, "the poll answered when the user did, not at its wait limit");
    assert_eq!(get(&host, &p, &format!("/verify/{id}")).1["status"], "approved");
}

#[test]
fn actions_outside_the_context_are_rejected_at_once_and_unverified_contexts_approve_at_once() {
    let (host, p) = setup();
    let (status, answer) = post(&host, &p, "/verify", json!({"action": "rm_rf_home", "reason": "cleanup"}));
    assert_eq!((status, answer["status"].as_str()), (200, Some("rejected")));
    assert!(answer["reason"].as_str().unwrap().contains("not in the allowed_actions"));
    let (status, answer) = post(&host, &p, "/verify?context=reviewer", json!({"action": "comment", "reason": "nit"}));
    assert_eq!((status, answer["status"].as_str()), (200, Some("approved")));
    assert!(p.pending_approvals().is_empty(), "no card for either");
    assert_eq!(
        error_code(&post(&host, &p, "/verify?context=nobody", json!({"action": "a", "reason": "r"}))),
        (404, "unknown_context")
    );
}

#[test]
fn a_context_on_its_own_port_sees_only_itself_and_at_once_answers_are_not_saved() {
    let (host, p) = setup();
    let on_own_port = |method: &str, url: &str, body: &str| {
        let mut r = request(method, url, body);
        r.local_port = 8091;
        r.headers.insert("host".into(), "127.0.0.1:8091".into());
        call(&host, &p, r)
    };
    assert_eq!(error_code(&on_own_port("GET", "/context/default", "")), (404, "unknown_context"));
    assert_eq!(on_own_port("GET", "/context/reviewer", "").1["name"], "reviewer");
    let escape = on_own_port("POST", "/verify?context=default", r#"{"action":"deploy","reason":"r"}"#);
    assert_eq!(error_code(&escape), (404, "unknown_context"), "no borrowing another context's rules");
    let own = on_own_port("POST", "/verify", r#"{"action":"comment","reason":"nit"}"#);
    assert_eq!((own.0, own.1["status"].as_str()), (200, Some("approved")));

    let before = host.paths_under("approvals").len();
    for _ in 0..50 {
        post(&host, &p, "/verify", json!({"action": "format_disk", "reason": "again and again"}));
    }
    assert_eq!(host.paths_under("approvals").len(), before, "refusals at once write nothing");
    let id = own.1["verification_id"].as_str().unwrap();
    assert_eq!(get(&host, &p, &format!("/verify/{id}")).1["status"], "approved", "still answers a poll");
}

#[test]
fn concurrent_verifications_get_distinct_ids() {
    let (host, p) = setup();
    let asks = (0..10).map(|i| {
        p.handle_api(request("POST", "/verify", &json!({"action": "deploy", "reason": format!("r{i}")}).to_string()))
    });
    let answers = host.run(futures::future::join_all(asks));
    let mut ids: Vec<String> = answers
        .iter()
        .map(|a| serde_json::from_str::<Value>(&a.body).unwrap()["verification_id"].as_str().unwrap().to_owned())
        .collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 10);
    assert_eq!(p.pending_approvals().len(), 10);
}

#[test]
fn no_answer_in_time_is_rejected_with_the_reason_timeout_and_the_card_goes_away() {
    let (host, p) = setup();
    let id = ask(&host, &p, "deploy", "ship it");
    host.run_for(299_000);
    assert_eq!(get(&host, &p, &format!("/verify/{id}")).1["status"], "pending");
    host.run_for(1_000);
    let (_, answer) = get(&host, &p, &format!("/verify/{id}"));
    assert_eq!((answer["status"].as_str(), answer["reason"].as_str()), (Some("rejected"), Some("timeout")));
    assert!(p.pending_approvals().is_empty());
    let resolved =
        host.events().into_iter().any(|e| matches!(e, Event::ApprovalResolved { request } if request.id == id));
    assert!(resolved, "the chat view's card is told");
    let late = host.run(p.decide_approval(&id, Decision::ApproveOnce));
    assert!(late.is_err(), "a late approval changes nothing");
    assert_eq!(get(&host, &p, &format!("/verify/{id}")).1["status"], "rejected");
}

#[test]
fn a_pending_verification_survives_a_restart_as_pending_then_times_out_never_approved() {
    let (host, p) = setup();
    let id = ask(&host, &p, "deploy", "ship it");
    host.run_for(60_000);
    p.dispose();
    drop(p);
    let p = processor_with(&host, api_settings());
    assert_eq!(get(&host, &p, &format!("/verify/{id}")).1["status"], "pending");
    assert_eq!(p.pending_approvals().len(), 1, "its card comes back");
    host.run_for(240_000);
    let (_, answer) = get(&host, &p, &format!("/verify/{id}"));
    assert_eq!((answer["status"].as_str(), answer["reason"].as_str()), (Some("rejected"), Some("timeout")));

    // Restarted after its time was up: expired at start-up.
    let id = ask(&host, &p, "deploy", "again");
    p.dispose();
    drop(p);
    host.advance(400_000);
    let p = processor_with(&host, api_settings());
    let saved: Value = serde_json::from_str(&host.file(&format!("approvals/{id}.json")).unwrap()).unwrap();
    assert_eq!(saved["status"], "expired");
    assert_eq!(get(&host, &p, &format!("/verify/{id}")).1["reason"], "timeout");
}

#[test]
fn approve_for_this_session_covers_the_same_action_for_a_limited_time() {
    let (host, p) = setup();
    let id = ask(&host, &p, "deploy", "first");
    host.run(p.decide_approval(&id, Decision::ApproveConversation)).unwrap();
    let (status, again) = post(&host, &p, "/verify", json!({"action": "deploy", "reason": "second"}));
    assert_eq!((status, again["status"].as_str()), (200, Some("approved")));
    let (status, other) = post(&host, &p, "/verify", json!({"action": "git_push", "reason": "different action"}));
    assert_eq!((status, other["status"].as_str()), (202, Some("pending")));
    host.advance(SESSION_GRANT_MS);
    let (status, later) = post(&host, &p, "/verify", json!({"action": "deploy", "reason": "much later"}));
    assert_eq!((status, later["status"].as_str()), (202, Some("pending")), "the grant has run out");
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
