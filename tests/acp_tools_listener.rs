//! The `smarthole` MCP server's own listener: the host opens it on 127.0.0.1 at a port the
//! system picks whenever an ACP agent is in use, and reports the port; the agent is given that
//! URL, and is not started (a clear error, the message kept) when the listener could not open.
//! The agent API keeps its own port and on/off setting.

mod common;

use common::acp::*;
use common::agent_api::{api_settings, get, PORT};
use common::*;
use serde_json::json;
use smarthole_agent::testing::{FakeHost, START_MS};
use smarthole_agent::{AgentKind, Host, MessageProcessor, PlatformFacts, Settings};

/// The URL of the `smarthole` server in the last session/new or session/load the agent got.
fn given_url(host: &FakeHost) -> String {
    let mut sessions = host.agent_requests("session/new");
    sessions.extend(host.agent_requests("session/load"));
    let last = sessions.last().expect("a session was asked for");
    last["params"]["mcpServers"][0]["url"].as_str().expect("the smarthole server").to_owned()
}

fn failed_turn(host: &FakeHost, p: &MessageProcessor<FakeHost>) -> String {
    let result = host.run(p.process(direct("m1", "hello")));
    assert!(!result.success, "{result:?}");
    assert_eq!(result.error_code.as_deref(), Some("agent_error"));
    assert_eq!(inbox(host).len(), 1, "the message is kept");
    assert!(host.agent().launches.is_empty(), "no agent without its tools");
    result.error.unwrap_or_default()
}

#[test]
fn the_agent_is_given_the_port_the_host_reported() {
    let host = FakeHost::new();
    let p = acp_processor_unreported(&host, agent_settings(AgentKind::ClaudeCode));
    assert!(p.agent_tools_listener(), "wanted while an ACP agent is in use");
    p.agent_tools_listening(Some(50_123), None);
    assert!(host.run(p.process(direct("m1", "hello"))).success);
    assert_eq!(given_url(&host), "http://127.0.0.1:50123/mcp");
    p.update_settings(agent_settings(AgentKind::Builtin)).expect("valid");
    assert!(!p.agent_tools_listener(), "closed with the built-in agent");
}

#[test]
fn a_listener_that_could_not_open_is_a_clear_error_and_the_message_is_kept() {
    let host = FakeHost::new();
    let p = acp_processor_unreported(&host, agent_settings(AgentKind::Gemini));
    p.agent_tools_listening(None, Some("listen EACCES: permission denied 127.0.0.1"));
    let error = failed_turn(&host, &p);
    assert!(error.contains("Gemini CLI was not started"), "{error}");
    assert!(error.contains("listen EACCES: permission denied"), "{error}");
    assert!(error.contains("The message is kept"), "{error}");
    // Once it opens, the kept message is answered.
    p.agent_tools_listening(Some(50_200), None);
    let summary = host.run(p.reprocess_pending()).expect("reprocessed");
    assert_eq!(summary.results.len(), 1);
    assert!(summary.results[0].success, "{summary:?}");
    assert!(inbox(&host).is_empty());
}

#[test]
fn a_report_during_the_start_is_waited_for_and_no_report_is_an_error() {
    let host = FakeHost::new();
    let p = acp_processor_unreported(&host, agent_settings(AgentKind::ClaudeCode));
    let late = p.clone();
    let reporter = host.clone();
    host.spawn(Box::pin(async move {
        reporter.sleep(200).await;
        late.agent_tools_listening(Some(50_300), None);
    }));
    assert!(host.run(p.process(direct("m1", "hello"))).success);
    assert_eq!(given_url(&host), "http://127.0.0.1:50300/mcp");

    let silent = FakeHost::new();
    let p = acp_processor_unreported(&silent, agent_settings(AgentKind::ClaudeCode));
    let error = failed_turn(&silent, &p);
    assert!(error.contains("did not open it within 10 s"), "{error}");
    assert_eq!(silent.now() - START_MS, 10_000, "bounded");
}

#[test]
fn a_new_port_starts_the_agent_anew_with_the_new_url() {
    let host = FakeHost::new();
    let p = acp_processor(&host, agent_settings(AgentKind::ClaudeCode));
    assert!(host.run(p.process(direct("m1", "hello"))).success);
    assert_eq!(host.agent().launches.len(), 1);
    p.agent_tools_listening(Some(50_400), None);
    assert!(host.run(p.process(direct("m2", "again"))).success);
    assert_eq!(host.agent().launches.len(), 2, "the old process only knew the old port");
    assert_eq!(given_url(&host), "http://127.0.0.1:50400/mcp");
}

#[test]
fn the_agent_api_keeps_its_own_port_and_never_serves_the_tools() {
    let host = FakeHost::new();
    let settings = Settings { agent: AgentKind::ClaudeCode, hub_enabled: false, ..api_settings() };
    let p = acp_processor(&host, settings);
    assert!(host.run(p.process(direct("m1", "hello"))).success);
    let ports: Vec<u16> = p.api_listeners().iter().map(|l| l.port).collect();
    assert_eq!(ports, [PORT, 8091], "the API's own ports, its own setting");
    assert_ne!(given_url(&host), format!("http://127.0.0.1:{PORT}/mcp"));
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let mut on_the_api = host.agent().mcp_request(&list).expect("the server was given");
    on_the_api.local_port = PORT;
    on_the_api.headers.insert("host".into(), format!("127.0.0.1:{PORT}"));
    on_the_api.headers.insert("authorization".into(), format!("Bearer {}", api_settings().agent_api_token));
    let answer = host.run(p.handle_api(on_the_api));
    assert_eq!(answer.status, 404, "{}", answer.body);
    let (status, config) = get(&host, &p, "/config");
    assert_eq!((status, &config["ports"][0]["port"]), (200, &json!(PORT)), "the API answers on its own");
}

#[test]
fn a_host_that_cannot_listen_at_all_runs_the_agent_without_the_note_tools() {
    // A page that drives an agent but serves nothing: no listener is asked for or waited on.
    let host = FakeHost::new();
    let p = acp_processor_unreported(&host, agent_settings(AgentKind::ClaudeCode));
    p.report_platform(PlatformFacts { mobile: false, can_start_programs: true, can_listen: false });
    assert!(!p.agent_tools_listener());
    assert!(host.run(p.process(direct("m1", "hello"))).success);
    assert_eq!(host.now(), START_MS, "nothing waited for");
    let new = &host.agent_requests("session/new")[0];
    assert_eq!(new["params"]["mcpServers"], json!([]));
    assert!(host.logs().iter().any(|(_, line)| line.contains("gets no SmartHole note tools")), "said in the log");
}
