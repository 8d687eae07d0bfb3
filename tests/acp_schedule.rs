//! A scheduled job names its agent: its runs go to that agent (the user's own over ACP), and a
//! job that names none runs on the built-in agent whatever the chat uses.

mod common;

use common::acp::*;
use common::*;
use serde_json::json;
use smarthole_agent::testing::{FakeHost, Reply};
use smarthole_agent::AgentKind;

const MINUTE: u64 = 60_000;

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
