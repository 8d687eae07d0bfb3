//! Each agent set up as it needs (docs/ACP-AGENTS.md): Gemini CLI's own write and shell tools off
//! through a `--policy` file the core writes under `.smarthole/` before the start; opencode's
//! through `tools` merged into `OPENCODE_CONFIG_CONTENT`; Codex's through `-c features.…=false`
//! overrides; a session that starts in a mode that asks nothing (`auto`, the newer Claude Code
//! adapter) set to `default`; a `session/load` the agent fails (Gemini CLI in a new process)
//! followed by a new session given the history.

mod common;

use std::collections::BTreeMap;

use common::acp::*;
use common::*;
use serde_json::{json, Value};
use smarthole_agent::testing::{FakeHost, InitAnswer};
use smarthole_agent::{AgentKind, Settings};

/// One turn with `settings` and the host environment `env`; the launch: (args, env).
fn one_turn(host: &FakeHost, settings: Settings, env: &[(&str, &str)]) -> (Vec<String>, BTreeMap<String, String>) {
    if !env.is_empty() {
        host.agent().environment = env.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
    }
    let p = acp_processor(host, settings);
    host.agent().turns.push_back(vec![chunk("ok")]);
    let result = host.run(p.process(direct("s1", "hi")));
    assert!(result.success, "{result:?}");
    let (_, _, args, env, _) = host.agent().launches[0].clone();
    (args, env)
}

#[test]
fn gemini_gets_a_policy_file_written_before_its_start_that_denies_its_write_and_shell_tools() {
    let host = FakeHost::new();
    let (args, _) = one_turn(&host, agent_settings(AgentKind::Gemini), &[]);
    let policy = format!("{VAULT}/.smarthole/gemini-policy.toml");
    assert_eq!(args, ["--experimental-acp", "--policy", policy.as_str()]);
    let text = host.file("gemini-policy.toml").expect("the policy file is written");
    for tool in ["replace", "write_file", "run_shell_command"] {
        assert!(text.contains(&format!("toolName = \"{tool}\"\ndecision = \"deny\"")), "{tool}: {text}");
    }
    // With the agent's own tools allowed: no policy.
    let host = FakeHost::new();
    let (args, _) = one_turn(&host, Settings { agent_own_tools: true, ..agent_settings(AgentKind::Gemini) }, &[]);
    assert_eq!(args, ["--experimental-acp"]);
}

/// The deny rule for `write_file` matches any tool of that name, the `smarthole` server's too
/// (Gemini CLI 0.61's policy engine, `ruleMatches`): a rule allowing the plugin's own server,
/// placed before the deny rules, keeps its tools offered and run without a permission request
/// (Gemini titles that request with the bare tool name, the same as its own `read_file`).
#[test]
fn geminis_policy_keeps_the_smarthole_servers_tools_whose_names_its_deny_rules_share() {
    let host = FakeHost::new();
    one_turn(&host, agent_settings(AgentKind::Gemini), &[]);
    let text = host.file("gemini-policy.toml").expect("the policy file is written");
    let rules: Vec<&str> = text.split("[[rule]]").map(str::trim).filter(|r| !r.is_empty()).collect();
    let priority = |rule: &str| -> u32 {
        let line = rule.lines().find(|l| l.starts_with("priority = ")).expect("a priority");
        line.trim_start_matches("priority = ").parse().expect("a number")
    };
    let ours = rules.iter().find(|r| r.contains("mcpName = \"smarthole\"")).expect("a rule for the smarthole server");
    // Every tool of the server (a rule without toolName makes Gemini ignore the whole file).
    assert!(ours.contains("toolName = \"*\""), "every tool of the server: {ours}");
    assert!(ours.contains("decision = \"allow\""), "{ours}");
    for deny in rules.iter().filter(|r| r.contains("decision = \"deny\"")) {
        assert!(priority(ours) > priority(deny), "checked before {deny}");
    }
}

#[test]
fn opencode_gets_its_write_and_shell_tools_off_merged_into_its_config_content() {
    let base = [("PATH", "/bin"), ("HOME", "/h")];
    let host = FakeHost::new();
    let (_, env) = one_turn(&host, agent_settings(AgentKind::Opencode), &base);
    let config: Value = serde_json::from_str(&env["OPENCODE_CONFIG_CONTENT"]).expect("JSON");
    assert_eq!(config, json!({"tools": {"bash": false, "edit": false, "write": false}}));

    // The user's own config kept, the three tools off whatever it said.
    let user = json!({"model": "scripted/m", "tools": {"bash": true, "webfetch": false}}).to_string();
    let host = FakeHost::new();
    let (_, env) =
        one_turn(&host, agent_settings(AgentKind::Opencode), &[base[0], base[1], ("OPENCODE_CONFIG_CONTENT", &user)]);
    let config: Value = serde_json::from_str(&env["OPENCODE_CONFIG_CONTENT"]).expect("JSON");
    assert_eq!(
        config,
        json!({"model": "scripted/m", "tools": {"bash": false, "edit": false, "write": false, "webfetch": false}})
    );

    // Own tools allowed: the user's config as it is.
    let host = FakeHost::new();
    let settings = Settings { agent_own_tools: true, ..agent_settings(AgentKind::Opencode) };
    let (_, env) = one_turn(&host, settings, &[base[0], base[1], ("OPENCODE_CONFIG_CONTENT", &user)]);
    assert_eq!(env["OPENCODE_CONFIG_CONTENT"], user);
}

/// Codex (codex-acp 0.16) reads no `_meta` either: its shell tools (`exec_command`,
/// `write_stdin`) go off with its features switched off as `-c` overrides on its command line
/// (the user's ~/.codex/config.toml left as it is).
#[test]
fn codex_gets_its_shell_and_patch_features_off_as_command_line_overrides() {
    let host = FakeHost::new();
    let (args, _) = one_turn(&host, agent_settings(AgentKind::Codex), &[]);
    let overrides: Vec<&str> = args.chunks(2).filter(|pair| pair[0] == "-c").map(|pair| pair[1].as_str()).collect();
    assert_eq!(
        overrides,
        ["features.shell_tool=false", "features.unified_exec=false", "features.apply_patch_freeform=false"],
        "{args:?}"
    );
    let host = FakeHost::new();
    let (args, _) = one_turn(&host, Settings { agent_own_tools: true, ..agent_settings(AgentKind::Codex) }, &[]);
    assert!(args.is_empty(), "own tools allowed: {args:?}");
}

#[test]
fn opencode_config_content_that_is_not_json_is_a_clear_error_not_tools_left_on() {
    let host = FakeHost::new();
    host.agent().environment = [("PATH", "/bin"), ("HOME", "/h"), ("OPENCODE_CONFIG_CONTENT", "{model: oops")]
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .into();
    let p = acp_processor(&host, agent_settings(AgentKind::Opencode));
    let result = host.run(p.process(direct("o1", "hi")));
    let error = result.error.unwrap_or_default();
    assert!(error.contains("OPENCODE_CONFIG_CONTENT is not a JSON object"), "{error}");
    assert!(host.agent().launches.is_empty(), "not started");
    assert_eq!(inbox(&host).len(), 1, "the message is kept");
}

#[test]
fn a_session_in_auto_mode_is_set_to_default_before_the_prompt() {
    let host = FakeHost::new();
    host.agent().modes = Some(json!({
        "currentModeId": "auto",
        "availableModes": [{"id": "auto", "name": "Auto"}, {"id": "default", "name": "Default"}]
    }));
    one_turn(&host, agent_settings(AgentKind::ClaudeCode), &[]);
    let set = host.agent_requests("session/set_mode");
    assert_eq!(set.len(), 1);
    assert_eq!(set[0]["params"], json!({"sessionId": "sess-1", "modeId": "default"}));
    let order: Vec<String> =
        host.agent().received.iter().filter_map(|m| m["method"].as_str().map(str::to_owned)).collect();
    let at = |m: &str| order.iter().position(|x| x == m).unwrap();
    assert!(at("session/set_mode") < at("session/prompt"), "{order:?}");

    // Already in default, or no modes at all: nothing set.
    for modes in [Some(json!({"currentModeId": "default", "availableModes": [{"id": "default", "name": "D"}]})), None] {
        let host = FakeHost::new();
        host.agent().modes = modes;
        one_turn(&host, agent_settings(AgentKind::ClaudeCode), &[]);
        assert!(host.agent_requests("session/set_mode").is_empty());
    }
}

#[test]
fn a_failing_session_load_falls_back_to_a_new_session_given_the_history() {
    let host = FakeHost::new();
    host.agent().init = Some(InitAnswer::Answer { version: json!(1), load_session: true, auth_methods: Vec::new() });
    // Gemini CLI 0.61 in a new process.
    host.agent().load_error = Some(
        json!({"code": -32603, "message": "Internal error", "data": {"details": "No previous sessions found for this project."}}),
    );
    let p = acp_processor(&host, agent_settings(AgentKind::Gemini));
    host.agent().turns.extend([vec![chunk("Paris.")], vec![chunk("About 2 million.")]]);
    assert!(host.run(p.process(direct("a", "What is the capital of France?"))).success);
    p.stop_agent();
    let second = host.run(p.process(direct("b", "How many people live there?")));
    assert!(second.success, "{second:?}");
    assert_eq!(host.agent_requests("session/load").len(), 1, "tried");
    assert_eq!(host.agent_requests("session/new").len(), 2, "then a new session");
    let text = host.agent_requests("session/prompt")[1]["params"]["prompt"][0]["text"].as_str().unwrap().to_owned();
    assert!(text.starts_with("<conversation_so_far>") && text.contains("Assistant: Paris."), "{text}");
    let conversation = host.run(p.current_conversation()).unwrap();
    assert_eq!(conversation.provider_session_id.as_deref(), Some("gemini:sess-2"));
}
