//! How the agent is started: each preset's program, the `agentCommand` override (split into
//! program and arguments, no shell), the clean environment (PATH, HOME and the preset's
//! prefixes; never a secret of the plugin's or a variable named as hidden), the settings'
//! checks, and a host that cannot start programs (a phone) answering with the built-in agent.

mod common;

use std::collections::BTreeMap;

use common::acp::*;
use common::*;
use serde_json::json;
use smarthole_agent::testing::{FakeHost, Reply};
use smarthole_agent::{unknown_fields, AgentKind, Event, NoticeLevel, PlatformFacts, Settings, SettingsDocument};

/// The launch of the first process for these settings: (command, args, env names, cwd).
fn launched(settings: Settings, env: &[(&str, &str)]) -> (String, Vec<String>, BTreeMap<String, String>, String) {
    let host = FakeHost::new();
    host.agent().environment = env.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
    let p = acp_processor(&host, settings);
    host.agent().turns.push_back(vec![chunk("ok")]);
    assert!(host.run(p.process(direct("l1", "hi"))).success);
    let agent = host.agent();
    let (_, command, args, env, cwd) = agent.launches[0].clone();
    (command, args, env, cwd)
}

#[test]
fn each_preset_starts_its_program() {
    for (kind, command, args) in [
        (AgentKind::ClaudeCode, "claude-agent-acp", vec![]),
        // Its shell and patch features off as -c overrides (acp_agent_setup.rs).
        (
            AgentKind::Codex,
            "codex-acp",
            vec![
                "-c",
                "features.shell_tool=false",
                "-c",
                "features.unified_exec=false",
                "-c",
                "features.apply_patch_freeform=false",
            ],
        ),
        // Its own write and shell tools off by a policy file (acp_agent_setup.rs).
        (
            AgentKind::Gemini,
            "gemini",
            vec!["--experimental-acp", "--policy", "/home/user/vault/.smarthole/gemini-policy.toml"],
        ),
        (AgentKind::Opencode, "opencode", vec!["acp"]),
    ] {
        let (got, got_args, _, cwd) = launched(agent_settings(kind), &[]);
        assert_eq!((got.as_str(), got_args), (command, args.iter().map(|a| a.to_string()).collect()), "{kind:?}");
        assert_eq!(cwd, VAULT);
    }
}

#[test]
fn agent_command_overrides_a_preset_and_is_the_custom_agents_command() {
    let settings = Settings {
        agent_command: "/opt/claude/bin/claude-agent-acp --verbose".into(),
        ..agent_settings(AgentKind::ClaudeCode)
    };
    let (command, args, _, _) = launched(settings, &[]);
    assert_eq!((command.as_str(), args), ("/opt/claude/bin/claude-agent-acp", vec!["--verbose".to_owned()]));

    let settings = Settings {
        agent_command: r#"node "/My Agents/agent.js" --name 'two words' plain\ space"#.into(),
        ..agent_settings(AgentKind::Acp)
    };
    let (command, args, _, _) = launched(settings, &[]);
    assert_eq!(command, "node");
    assert_eq!(args, ["/My Agents/agent.js", "--name", "two words", "plain space"]);
}

#[test]
fn the_environment_is_clean() {
    let mut settings = agent_settings(AgentKind::ClaudeCode);
    settings.api_key = "sk-ant-the-plugins-own-key".into();
    settings.agent_env_hidden = vec!["ANTHROPIC_PLUGIN_KEY".into()];
    let env = [
        ("PATH", "/usr/bin"),
        ("HOME", "/home/user"),
        ("ANTHROPIC_BASE_URL", "http://127.0.0.1:9000"),
        ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"),
        ("DISABLE_TELEMETRY", "1"),
        // The plugin's own key under the agent's prefix: by value.
        ("ANTHROPIC_API_KEY", "sk-ant-the-plugins-own-key"),
        // Named by --api-key-env: by name, whatever it holds.
        ("ANTHROPIC_PLUGIN_KEY", "anything"),
        ("OPENAI_API_KEY", "sk-openai"),
        ("GEMINI_API_KEY", "g"),
        ("AWS_SECRET_ACCESS_KEY", "aws"),
        ("SMARTHOLE_API_TOKEN", "t"),
        ("SHELL", "/bin/bash"),
    ];
    let (_, _, got, _) = launched(settings, &env);
    assert_eq!(
        got.keys().map(String::as_str).collect::<Vec<_>>(),
        ["ANTHROPIC_BASE_URL", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "DISABLE_TELEMETRY", "HOME", "PATH"]
    );
    // Each preset its own prefixes.
    let (_, _, got, _) = launched(agent_settings(AgentKind::Codex), &env);
    assert_eq!(got.keys().map(String::as_str).collect::<Vec<_>>(), ["HOME", "OPENAI_API_KEY", "PATH"]);
    let (_, _, got, _) = launched(agent_settings(AgentKind::Gemini), &env);
    assert_eq!(got.keys().map(String::as_str).collect::<Vec<_>>(), ["GEMINI_API_KEY", "HOME", "PATH"]);
    let settings = Settings { agent_command: "my-agent".into(), ..agent_settings(AgentKind::Acp) };
    let (_, _, got, _) = launched(settings, &env);
    assert_eq!(got.keys().map(String::as_str).collect::<Vec<_>>(), ["HOME", "PATH"]);
}

#[test]
fn the_settings_are_checked() {
    let err = Settings::from_json(json!({"agent": "claude"})).unwrap_err().to_string();
    assert!(err.contains("agent must be one of builtin, claude-code, codex, gemini, opencode, acp"), "{err}");
    let err = Settings::from_json(json!({"agent": "acp"})).unwrap_err().to_string();
    assert!(err.contains("needs a command"), "{err}");
    let err = Settings::from_json(json!({"agent": "gemini", "agentCommand": "gemini 'open"})).unwrap_err().to_string();
    assert!(err.contains("quote that is never closed"), "{err}");
    let ok = Settings::from_json(json!({"agent": "claude-code", "agentOwnTools": true})).unwrap();
    assert_eq!(
        (ok.agent, ok.agent_own_tools, Settings::default().agent),
        (AgentKind::ClaudeCode, true, AgentKind::Builtin)
    );
    let known = json!({"agent": "codex", "agentCommand": "x", "agentOwnTools": false, "agentEnvHidden": [], "agentCommnd": "y"});
    let unknown = unknown_fields(&known, SettingsDocument::Settings);
    assert_eq!(unknown.len(), 1, "{unknown:?}");
}

#[test]
fn a_host_that_cannot_start_programs_answers_with_the_built_in_agent_and_says_why() {
    let host = FakeHost::new();
    let p = processor_with(&host, agent_settings(AgentKind::ClaudeCode));
    host.script([Reply::text("built-in answer"), Reply::text("again")]);
    assert_eq!(host.run(p.process(direct("m1", "hi"))).response.as_deref(), Some("built-in answer"));
    assert_eq!(host.run(p.process(direct("m2", "hi"))).response.as_deref(), Some("again"));
    assert!(host.agent().launches.is_empty());
    let notices: Vec<String> = host
        .events()
        .into_iter()
        .filter_map(|e| match e {
            Event::Notice { level: NoticeLevel::Warning, text } => Some(text),
            _ => None,
        })
        .collect();
    assert_eq!(
        notices,
        ["Claude Code runs only on the desktop (it starts a program); the built-in agent answers here."]
    );
}

#[test]
fn a_phone_answers_with_the_built_in_agent_even_where_the_host_names_a_folder() {
    let host = FakeHost::new();
    let p = acp_processor(&host, agent_settings(AgentKind::Gemini));
    p.report_platform(PlatformFacts { mobile: true, can_start_programs: false, can_listen: false });
    host.script([Reply::text("built-in answer")]);
    assert_eq!(host.run(p.process(direct("m1", "hi"))).response.as_deref(), Some("built-in answer"));
    assert!(host.agent().launches.is_empty(), "no program is started on a phone");
}
