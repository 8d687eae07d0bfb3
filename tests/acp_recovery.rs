//! An ACP agent's runs count toward setting a message aside as the built-in agent's do: each
//! run's start is journaled, so a message whose turn took the app down twice is not run a third
//! time at the next start; a failed run keeps its journal beside the message, as the built-in
//! agent's does.

mod common;

use common::acp::*;
use common::*;
use smarthole_agent::testing::{AgentStep, FakeHost};
use smarthole_agent::{AgentKind, Event};

/// The app dies while the agent's answer streams in.
fn mid_answer(e: &Event) -> bool {
    matches!(e, Event::TextDelta { .. })
}

#[test]
fn an_acp_turn_that_took_the_app_down_twice_is_set_aside_as_the_built_in_agents_is() {
    let host = FakeHost::new();
    host.agent().turns.extend([vec![chunk("a long"), AgentStep::Silence], vec![chunk("a long"), AgentStep::Silence]]);
    let p = acp_processor(&host, agent_settings(AgentKind::ClaudeCode));
    assert!(host.run_until(p.process(direct("poison", "boom")), mid_answer).is_none(), "the first crash");
    drop(p);
    // The second start runs it again, into the same crash.
    let p = acp_processor(&host, agent_settings(AgentKind::ClaudeCode));
    assert!(host.run_until(p.reprocess_pending(), mid_answer).is_none(), "the second crash");
    drop(p);
    let prompts = host.agent_requests("session/prompt").len();
    // The third start does not run it: it would crash again, and at every start after.
    let p = acp_processor(&host, agent_settings(AgentKind::ClaudeCode));
    let summary = host.run(p.reprocess_pending()).expect("reprocess");
    assert_eq!(host.agent_requests("session/prompt").len(), prompts, "no third run");
    assert_eq!(summary.results[0].error_code.as_deref(), Some("moved_to_failed"));
    let failed: serde_json::Value = serde_json::from_str(&host.file("failed/poison.json").expect("set aside")).unwrap();
    assert!(failed["error"].as_str().unwrap().contains("2 times before it finished"), "{failed}");
    assert!(inbox(&host).is_empty(), "entry and journal gone: {:?}", inbox(&host));
    let told = host
        .events()
        .into_iter()
        .any(|e| matches!(e, Event::Notice { text, .. } if text.contains("boom") && text.contains("2 times")));
    assert!(told, "the user is told");
}
