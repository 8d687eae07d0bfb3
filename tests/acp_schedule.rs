//! A scheduled job names its agent: its runs go to that agent (the user's own over ACP), and a
//! job that names none runs on the built-in agent whatever the chat uses.

mod common;

use common::acp::*;
use common::schedules::{create, host_at, runs, scheduled_conversation, MINUTE};
use common::*;
use serde_json::json;
use smarthole_agent::testing::{FakeHost, Reply};
use smarthole_agent::{AgentKind, Event, ScheduleChange};

#[test]
fn a_job_that_names_its_agent_runs_on_it_and_one_that_names_none_on_the_built_in_agent() {
    let host = FakeHost::new();
    let p = acp_processor(&host, agent_settings(AgentKind::Builtin));
    let jobs = [
        json!({"type": "immediate", "task": "tidy the inbox note", "agent": "gemini"}),
        json!({"type": "immediate", "task": "write the weekly review"}),
    ];
    host.agent().turns.push_back(vec![chunk("Tidied.")]);
    let mut agents = Vec::new();
    for (id, input) in ["a", "b"].into_iter().zip(jobs) {
        let create = Reply::tools("", &[("s1", "create_schedule", input)]);
        // The chat's two calls; the built-in job's run takes a third.
        host.script([create, Reply::text("Scheduled.")]);
        if id == "b" {
            host.script([Reply::text("Reviewed.")]);
        }
        assert!(host.run(p.process(direct(id, "please schedule this"))).success);
        agents.extend(host.run(p.scheduled()).iter().filter_map(|c| c.schedule.as_ref().map(|s| s.agent)));
        host.run_for(2 * MINUTE);
    }
    assert_eq!(agents, [Some(AgentKind::Gemini), None], "each job keeps the agent it names");
    let prompts = host.agent_requests("session/prompt");
    assert_eq!(prompts.len(), 1, "only the job naming Gemini CLI went to it");
    assert!(prompts[0].to_string().contains("tidy the inbox note"));
    assert!(!prompts[0].to_string().contains("weekly review"));
    assert_eq!(host.script_left(), 0, "the other job ran on the built-in agent");
}

/// What the core told the host of the tools' listener apart from the settings.
fn wishes(host: &FakeHost) -> Vec<bool> {
    host.events()
        .into_iter()
        .filter_map(|e| match e {
            Event::AgentToolsWanted { wanted } => Some(wanted),
            _ => None,
        })
        .collect()
}

#[test]
fn a_job_naming_an_acp_agent_wants_the_tools_listener_while_the_settings_say_built_in() {
    let host = host_at("2026-02-05T10:01:00Z", "UTC");
    let p = acp_processor_unreported(&host, agent_settings(AgentKind::Builtin));
    assert!(!p.agent_tools_listener(), "nothing wants it yet");
    let job =
        json!({"type": "cron", "expression": "*/5 * * * *", "task": "poll the inbox note", "agent": "claude-code"});
    create(&host, &p, "a", job);
    assert_eq!(wishes(&host), [true], "the host is told when the job is stored");
    assert!(p.agent_tools_listener(), "the job's runs want the listener");
    // The host opens it, as after a settings change, and reports the port the system picked.
    p.agent_tools_listening(Some(50_500), None);
    host.agent().turns.push_back(vec![chunk("Polled.")]);
    host.run_for(5 * MINUTE);
    let runs = runs(&host);
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert!(runs[0].2, "the run went through: {:?}", host.events());
    let new = &host.agent_requests("session/new")[0];
    assert_eq!(new["params"]["mcpServers"][0]["url"], json!("http://127.0.0.1:50500/mcp"));
    assert!(host.agent_requests("session/prompt")[0].to_string().contains("poll the inbox note"));
    // A restart finds the stored job: the listener is wanted from the start.
    let restarted = processor_with(&host, agent_settings(AgentKind::Builtin));
    assert!(restarted.agent_tools_listener(), "wanted for the stored job");
    assert_eq!(wishes(&host), [true, true], "and the host told when the core loads it");
    restarted.dispose();

    let id = scheduled_conversation(&host, &p).id;
    host.run(p.change_schedule(&id, ScheduleChange::Delete)).expect("deleted");
    assert_eq!(wishes(&host), [true, true, false], "told again when the job is gone");
    assert!(!p.agent_tools_listener());
}
