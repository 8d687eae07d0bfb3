//! The agent API's verifications (seed 002): pending until the user answers, polled with a wait,
//! refused or approved at once by the context, distinct ids, a timeout that rejects, a restart
//! that never approves, and "approve for this session".

mod common;

use common::agent_api::*;
use common::*;
use futures::future::join;
use serde_json::{json, Value};
use smarthole_agent::testing::internals::SESSION_GRANT_MS;
use smarthole_agent::Decision;
use smarthole_agent::Event;
use smarthole_agent::Host;

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
