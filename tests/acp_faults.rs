//! An ACP agent that misbehaves: a program that is missing, an older protocol version, no answer
//! to `initialize`, malformed JSON-RPC, a method we do not serve, a flood, a login we cannot do.
//! Each is a clear error naming what to change, within the time limit; the process is stopped;
//! the message is kept in the inbox.

mod common;

use common::acp::*;
use common::*;
use serde_json::json;
use smarthole_agent::testing::{AgentStep, FakeHost, InitAnswer, START_MS};
use smarthole_agent::{AgentKind, Settings};

fn failed(host: &FakeHost, kind: AgentKind) -> String {
    let p = acp_processor(host, agent_settings(kind));
    let result = host.run(p.process(direct("f1", "hello")));
    assert!(!result.success, "{result:?}");
    assert_eq!(result.error_code.as_deref(), Some("agent_error"));
    // The message is kept; a run that got to its prompt keeps its journal, as the built-in agent's.
    let mut kept = vec!["inbox/f1.json"];
    if !host.agent_requests("session/prompt").is_empty() {
        kept.push("inbox/f1.turn.jsonl");
    }
    assert_eq!(inbox(host), kept, "the message is kept");
    assert!(history(host).is_empty());
    result.error.unwrap_or_default()
}

#[test]
fn a_missing_program_says_how_to_install_it() {
    let host = FakeHost::new();
    host.agent().spawn_error = Some("ENOENT".into());
    let error = failed(&host, AgentKind::ClaudeCode);
    assert!(error.contains("Claude Code could not be started"), "{error}");
    assert!(error.contains("claude-agent-acp") && error.contains("ENOENT"), "{error}");
    assert!(error.contains("@zed-industries/claude-agent-acp"), "{error}");
}

#[test]
fn an_older_protocol_version_is_refused_and_the_agent_stopped() {
    let host = FakeHost::new();
    host.agent().init = Some(InitAnswer::Answer { version: json!(0), load_session: false, auth_methods: Vec::new() });
    let error = failed(&host, AgentKind::Gemini);
    assert!(error.contains("protocol version 0") && error.contains("Update Gemini CLI"), "{error}");
    assert_eq!(host.agent().stopped, [1], "the process is stopped");
    assert!(host.agent_requests("session/new").is_empty());
}

#[test]
fn no_answer_to_initialize_is_an_error_after_30_seconds() {
    let host = FakeHost::new();
    host.agent().init = Some(InitAnswer::Silent);
    let error = failed(&host, AgentKind::Opencode);
    assert!(
        error.contains("did not answer initialize within 30 s. Check that opencode acp is an ACP agent"),
        "{error}"
    );
    assert_eq!(host.now() - START_MS, 30_000, "given 30 s, no more");
    assert_eq!(host.agent().stopped, [1]);
}

#[test]
fn malformed_json_rpc_ends_the_agent_with_a_clear_error() {
    let host = FakeHost::new();
    host.agent().init = Some(InitAnswer::Garbage("Welcome to my agent!\n".into()));
    let error = failed(&host, AgentKind::Opencode);
    assert!(error.contains("not ACP (JSON-RPC 2.0)") && error.contains("Welcome to my agent!"), "{error}");
    assert_eq!(host.agent().stopped, [1]);

    // Mid-turn: a JSON line that is not JSON-RPC.
    let host = FakeHost::new();
    host.agent().turns.push_back(vec![chunk("a"), AgentStep::Raw("{\"hello\": 1}\n".into()), AgentStep::Silence]);
    let error = failed(&host, AgentKind::Opencode);
    assert!(error.contains("without \"jsonrpc\": \"2.0\""), "{error}");
    assert_eq!(host.agent().stopped, [1]);
}

#[test]
fn an_unknown_method_is_answered_method_not_found_and_the_turn_goes_on() {
    let host = FakeHost::new();
    let p = acp_processor(&host, agent_settings(AgentKind::Gemini));
    host.agent().turns.push_back(vec![AgentStep::Request("fs/read_text_file".into()), chunk("done")]);
    let result = host.run(p.process(direct("u1", "hi")));
    assert_eq!(result.response.as_deref(), Some("done"));
    let answer = host.agent().received.iter().find(|m| m["id"] == "req-1").cloned().expect("answered");
    assert_eq!(answer["error"]["code"], -32601);
    assert!(answer["error"]["message"].as_str().unwrap().contains("fs/read_text_file"));
}

#[test]
fn a_flood_is_bounded_and_ends_the_agent() {
    let host = FakeHost::new();
    // One line of 9 MB that never ends: never held whole.
    host.agent().turns.push_back(vec![AgentStep::Raw("x".repeat(9 * 1024 * 1024)), AgentStep::Silence]);
    let error = failed(&host, AgentKind::Codex);
    assert!(error.contains("too much output") && error.contains("a line longer than 8 MB"), "{error}");
    assert_eq!(host.agent().stopped, [1]);
}

#[test]
fn a_login_we_cannot_do_names_the_command_to_run() {
    let host = FakeHost::new();
    host.agent().auth_required = true;
    let error = failed(&host, AgentKind::ClaudeCode);
    assert!(error.contains("Claude Code needs you to sign in: run `claude, then /login` in a terminal"), "{error}");
    assert!(host.agent_requests("authenticate").is_empty(), "no credentials passed, no login attempted");
}

#[test]
fn gemini_signs_in_with_its_own_key_from_its_environment() {
    let host = FakeHost::new();
    host.agent().init = Some(InitAnswer::Answer {
        version: json!(1),
        load_session: false,
        auth_methods: vec!["oauth-personal".into(), "gemini-api-key".into()],
    });
    host.agent().environment = [("PATH", "/bin"), ("HOME", "/h"), ("GEMINI_API_KEY", "g-key")]
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .into();
    let p = acp_processor(&host, agent_settings(AgentKind::Gemini));
    host.agent().turns.push_back(vec![chunk("hi")]);
    assert!(host.run(p.process(direct("g1", "hello"))).success);
    let auth = host.agent_requests("authenticate");
    assert_eq!(auth.len(), 1);
    assert_eq!(auth[0]["params"], json!({"methodId": "gemini-api-key"}));
}

#[test]
fn an_agent_ending_at_start_says_so_with_its_last_words() {
    let host = FakeHost::new();
    host.agent().init = Some(InitAnswer::Exit(2));
    let error = failed(&host, AgentKind::Gemini);
    assert!(error.contains("stopped while starting (exit code 2): fake agent: cannot start"), "{error}");
}

#[test]
fn an_error_names_the_whole_agent_command_not_only_its_interpreter() {
    // A script run by an interpreter: "Check that node is an ACP agent" would point nowhere.
    for init in [InitAnswer::Garbage("Welcome to my agent!\n".into()), InitAnswer::Silent] {
        let host = FakeHost::new();
        let settings =
            Settings { agent_command: "node /opt/agents/my-agent.mjs --acp".into(), ..agent_settings(AgentKind::Acp) };
        host.agent().init = Some(init);
        let p = acp_processor(&host, settings);
        let result = host.run(p.process(direct("n1", "hello")));
        let error = result.error.unwrap_or_default();
        assert!(error.contains("Check that node /opt/agents/my-agent.mjs --acp is an ACP agent"), "{error}");
        assert_eq!(inbox(&host).len(), 1, "the message is kept");
    }
}
