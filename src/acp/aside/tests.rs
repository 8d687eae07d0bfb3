//! The side sessions' routing, sans I/O: what is theirs taken, the rest passed on to the turn.

use super::*;
use crate::acp::launch::Launch;

/// A client whose process (1) answered its handshake.
fn ready_client() -> AcpClient {
    let mut client = AcpClient::default();
    let launch =
        Launch { command: "agent".into(), args: vec![], env: Default::default(), cwd: "/v".into(), files: vec![] };
    client.start(AgentKind::Gemini, launch);
    let (_, deliveries) = client.on_output(1, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":1}}\n");
    assert_eq!(deliveries, [Delivery::Ready]);
    client
}

/// What the agent process writes, as the client delivers it.
fn from_agent(client: &mut AcpClient, message: Value) -> Delivery {
    let (_, mut deliveries) = client.on_output(1, &format!("{message}\n"));
    deliveries.remove(0)
}

fn written(actions: &[AcpAction]) -> Vec<Value> {
    actions
        .iter()
        .filter_map(|a| match a {
            AcpAction::Write { line, .. } => serde_json::from_str(line).ok(),
            _ => None,
        })
        .collect()
}

fn update(session: &str, text: &str) -> Value {
    serde_json::json!({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": session,
        "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}}})
}

fn permission(session: &str) -> Value {
    serde_json::json!({"jsonrpc": "2.0", "id": "p1", "method": "session/request_permission", "params": {
        "sessionId": session, "toolCall": {"toolCallId": "t1", "title": "Write"},
        "options": [{"optionId": "no", "name": "Reject", "kind": "reject_once"}]}})
}

const ASKED: AsidePrompt<'static> =
    AsidePrompt { kind: AgentKind::Gemini, cwd: "/v", instructions: "Title this.", prompt: "User: hi" };

#[test]
fn what_belongs_to_a_side_session_is_taken_and_the_rest_passed_on() {
    let mut client = ready_client();
    let mut asides = Asides::default();
    let (key, actions) = asides.begin(&mut client, true, &ASKED);
    let new = &written(&actions)[0];
    assert_eq!((new["method"].as_str(), &new["params"]["mcpServers"]), (Some("session/new"), &serde_json::json!([])));
    let reply = from_agent(
        &mut client,
        serde_json::json!({"jsonrpc": "2.0", "id": new["id"], "result": {"sessionId": "side"}}),
    );
    let routed = asides.route(&mut client, reply);
    let prompt = &written(&routed.actions)[0];
    assert_eq!(prompt["params"]["sessionId"], "side");
    assert_eq!(prompt["params"]["prompt"][0]["text"], "Title this.\n\nUser: hi");
    // Its updates and permission requests are taken; the turn's pass.
    for (message, theirs) in [
        (update("side", "Hello"), true),
        (update("turn", "not this"), false),
        (permission("turn"), false),
        (permission("side"), true),
    ] {
        let delivery = from_agent(&mut client, message.clone());
        let routed = asides.route(&mut client, delivery);
        assert_eq!(routed.pass.is_none(), theirs, "{message}");
        if theirs && message["method"] == "session/request_permission" {
            let answer = &written(&routed.actions)[0];
            assert_eq!(answer["result"]["outcome"], serde_json::json!({"outcome": "selected", "optionId": "no"}));
        }
    }
    let end = from_agent(
        &mut client,
        serde_json::json!({"jsonrpc": "2.0", "id": prompt["id"], "result": {"stopReason": "end_turn"}}),
    );
    let routed = asides.route(&mut client, end);
    assert_eq!(routed.ended, [(key, Ok(AsideAnswer { text: "Hello".into(), usage: None }))]);
    assert!(routed.pass.is_none() && asides.is_empty());
}

#[test]
fn a_side_session_waits_for_the_handshake_and_a_failure_ends_it_and_reaches_the_turn() {
    let mut client = ready_client();
    let mut asides = Asides::default();
    let (key, actions) = asides.begin(&mut client, false, &ASKED);
    assert!(actions.is_empty(), "nothing before the handshake");
    let routed = asides.route(&mut client, Delivery::Ready);
    assert_eq!(written(&routed.actions)[0]["method"], "session/new");
    assert_eq!(routed.pass, Some(Delivery::Ready), "the turn starting too hears it");
    let failure = AcpError::Unavailable("gone".into());
    let routed = asides.route(&mut client, Delivery::Failed(failure.clone()));
    assert_eq!(routed.ended, [(key, Err(failure.clone()))]);
    assert_eq!(routed.pass, Some(Delivery::Failed(failure)));
}

#[test]
fn an_abandoned_side_session_is_cancelled_and_what_comes_after_is_still_taken() {
    let mut client = ready_client();
    let mut asides = Asides::default();
    let (key, actions) = asides.begin(&mut client, true, &ASKED);
    let new = &written(&actions)[0];
    let reply = from_agent(
        &mut client,
        serde_json::json!({"jsonrpc": "2.0", "id": new["id"], "result": {"sessionId": "side"}}),
    );
    let prompt = written(&asides.route(&mut client, reply).actions)[0].clone();
    let cancel = written(&asides.abandon(&mut client, key));
    assert_eq!(
        (cancel[0]["method"].as_str(), &cancel[0]["params"]["sessionId"]),
        (Some("session/cancel"), &serde_json::json!("side"))
    );
    let late = from_agent(&mut client, update("side", "late"));
    assert!(asides.route(&mut client, late).pass.is_none(), "never the turn's");
    let end = from_agent(
        &mut client,
        serde_json::json!({"jsonrpc": "2.0", "id": prompt["id"], "result": {"stopReason": "cancelled"}}),
    );
    let routed = asides.route(&mut client, end);
    assert!(routed.ended.is_empty() && routed.pass.is_none() && asides.is_empty());
}
