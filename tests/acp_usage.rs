//! An ACP agent's turns in the usage ledger, as the built-in agent's model calls are: one line a
//! turn, the agent's label as the model, the tokens its prompt's result reports, and the cost it
//! added to its session (the agent reports the session's cost cumulatively) — counted once, also
//! when the turn is retried after the agent or the app stopped.

mod common;

use common::acp::*;
use common::*;
use serde_json::{json, Value};
use smarthole_agent::testing::{AgentStep, FakeHost, InitAnswer};
use smarthole_agent::{AgentKind, Host};

/// The ledger's lines.
fn ledger(host: &FakeHost) -> Vec<Value> {
    let text: String = host.paths_under("usage").iter().map(|f| host.file(f).unwrap()).collect();
    text.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn costs(host: &FakeHost) -> Vec<f64> {
    ledger(host).iter().map(|l| (l["usage"]["costUsd"].as_f64().unwrap_or(f64::NAN) * 1e4).round() / 1e4).collect()
}

/// The agent's report of its session's cost so far.
fn spent(cumulative: f64) -> AgentStep {
    AgentStep::Update(json!({"sessionUpdate": "usage_update", "used": 1200, "size": 200000,
        "cost": {"amount": cumulative, "currency": "USD"}}))
}

#[test]
fn each_turn_is_one_ledger_line_with_its_tokens_and_the_cost_it_added() {
    let host = FakeHost::new();
    let p = acp_processor(&host, agent_settings(AgentKind::ClaudeCode));
    let usage = json!({"inputTokens": 100, "outputTokens": 10, "cachedReadTokens": 50, "cachedWriteTokens": 20});
    host.agent().turns.extend([
        vec![chunk("one"), spent(0.0123), AgentStep::EndWith(json!({"stopReason": "end_turn", "usage": usage}))],
        vec![chunk("two"), spent(0.02)],
    ]);
    assert!(host.run(p.process(direct("a", "first"))).success);
    let lines = ledger(&host);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0]["purpose"], "turn");
    let line = &lines[0]["usage"];
    assert_eq!(line["model"], "Claude Code");
    assert_eq!(
        [&line["inputTokens"], &line["outputTokens"], &line["cacheReadInputTokens"], &line["cacheCreationInputTokens"]],
        [&json!(100), &json!(10), &json!(50), &json!(20)],
        "{line}"
    );
    assert!(host.run(p.process(direct("b", "second"))).success);
    assert_eq!(costs(&host), [0.0123, 0.0077], "what each turn added to the session's cost");
    let totals = host.run(p.usage_totals()).unwrap();
    assert_eq!(totals.today.model_calls, 2);
    assert!(totals.today.cost_usd.is_some_and(|c| (c - 0.02).abs() < 1e-9), "{totals:?}");
}

#[test]
fn a_retried_turn_counts_only_what_it_added() {
    let host = FakeHost::new();
    host.agent().init = Some(InitAnswer::Answer { version: json!(1), load_session: true, auth_methods: Vec::new() });
    let p = acp_processor(&host, agent_settings(AgentKind::ClaudeCode));
    host.agent().turns.extend([
        vec![chunk("one"), spent(0.01)],
        vec![spent(0.03), AgentStep::Exit(None, Some("SIGKILL".into()), String::new())],
    ]);
    assert!(host.run(p.process(direct("a", "first"))).success);
    assert!(!host.run(p.process(direct("b", "second"))).success);
    assert_eq!(costs(&host), [0.01, 0.02], "what the stopped turn already spent is counted");
    p.dispose();
    drop(p);
    // The next start retries it in the same session, loaded by a new process.
    host.agent().turns.push_back(vec![chunk("two"), spent(0.05)]);
    let p = acp_processor(&host, agent_settings(AgentKind::ClaudeCode));
    let summary = host.run(p.reprocess_pending()).unwrap();
    assert!(summary.results[0].success, "{summary:?}");
    assert_eq!(host.agent_requests("session/load")[0]["params"]["sessionId"], "sess-1");
    assert_eq!(costs(&host), [0.01, 0.02, 0.02], "nothing counted twice");
    assert_eq!(recorded_count(&host, "b"), 1);
    // Re-delivered once recorded: answered from the record, not counted again.
    assert!(host.run(p.process(direct("b", "second"))).success);
    assert_eq!(ledger(&host).len(), 3);
}

#[test]
fn a_turn_after_a_restart_counts_only_what_it_added_to_the_loaded_session() {
    let host = FakeHost::new();
    host.agent().init = Some(InitAnswer::Answer { version: json!(1), load_session: true, auth_methods: Vec::new() });
    let p = acp_processor(&host, agent_settings(AgentKind::ClaudeCode));
    host.agent().turns.extend([vec![chunk("one"), spent(0.01)], vec![chunk("two"), spent(0.03)]]);
    assert!(host.run(p.process(direct("a", "first"))).success);
    assert!(host.run(p.process(direct("b", "second"))).success);
    p.dispose();
    drop(p);
    // A plain restart: nothing in flight, the session loaded by a new process for the next turn.
    host.agent().turns.push_back(vec![chunk("three"), spent(0.06)]);
    let p = acp_processor(&host, agent_settings(AgentKind::ClaudeCode));
    assert!(host.run(p.process(direct("c", "third"))).success);
    assert_eq!(host.agent_requests("session/load")[0]["params"]["sessionId"], "sess-1");
    assert_eq!(costs(&host), [0.01, 0.02, 0.03], "each turn's own cost");
}

#[test]
fn a_stopped_turn_counts_what_it_spent_until_the_stop_and_what_its_cancelled_prompt_reports_once() {
    let host = FakeHost::new();
    let p = acp_processor(&host, agent_settings(AgentKind::ClaudeCode));
    let usage = json!({"inputTokens": 40, "outputTokens": 4});
    host.agent().turns.extend([
        vec![chunk("one"), spent(0.01)],
        // What it spent before the stop, then what it still reports as it cancels.
        vec![
            spent(0.02),
            chunk("Once upon"),
            AgentStep::AwaitCancel,
            spent(0.025),
            AgentStep::EndWith(json!({"stopReason": "cancelled", "usage": usage})),
        ],
        vec![chunk("next"), spent(0.04)],
    ]);
    assert!(host.run(p.process(direct("s1", "hi"))).success);
    let stopped = host.run(async {
        let stop = async {
            while streamed_text(&host, "s2").is_empty() {
                host.sleep(1).await;
            }
            p.cancel_current_processing()
        };
        futures::join!(p.process(direct("s2", "tell me a story")), stop).0
    });
    assert!(stopped.cancelled, "{stopped:?}");
    assert!(host.run(p.process(direct("s3", "again"))).success);
    let sessions: Vec<_> =
        host.agent_requests("session/prompt").iter().map(|r| r["params"]["sessionId"].clone()).collect();
    assert_eq!(sessions, vec![json!("sess-1"); 3], "one session throughout");
    assert_eq!(costs(&host), [0.01, 0.015, 0.015], "the stopped turn counted once, the next only what it added");
    let line = &ledger(&host)[1]["usage"];
    assert_eq!([&line["inputTokens"], &line["outputTokens"]], [&json!(40), &json!(4)], "{line}");
    assert!(inbox(&host).is_empty(), "no journal left for the stopped message: {:?}", inbox(&host));
}

#[test]
fn a_turn_stopped_before_its_agent_answers_the_cancel_counts_what_it_spent_when_the_agent_ends() {
    let host = FakeHost::new();
    let p = acp_processor(&host, agent_settings(AgentKind::ClaudeCode));
    host.agent().turns.push_back(vec![spent(0.01), chunk("Once upon"), AgentStep::Silence]);
    let stopped = host.run(async {
        let stop = async {
            while streamed_text(&host, "s1").is_empty() {
                host.sleep(1).await;
            }
            p.cancel_current_processing()
        };
        futures::join!(p.process(direct("s1", "tell me a story")), stop).0
    });
    assert!(stopped.cancelled, "{stopped:?}");
    assert!(ledger(&host).is_empty(), "counted when the prompt's end is known");
    // The agent never answers; it is stopped (the agent setting changed, the app closes).
    p.stop_agent();
    host.run_for(1000);
    assert_eq!(costs(&host), [0.01], "what it reported until the stop");
}

#[test]
fn a_turn_after_a_stop_and_a_restart_counts_only_what_it_added() {
    let host = FakeHost::new();
    host.agent().init = Some(InitAnswer::Answer { version: json!(1), load_session: true, auth_methods: Vec::new() });
    let p = acp_processor(&host, agent_settings(AgentKind::ClaudeCode));
    host.agent().turns.extend([
        vec![chunk("one"), spent(0.01)],
        vec![spent(0.03), chunk("Once upon"), AgentStep::AwaitCancel, AgentStep::End("cancelled".into())],
    ]);
    assert!(host.run(p.process(direct("s1", "hi"))).success);
    let stopped = host.run(async {
        let stop = async {
            while streamed_text(&host, "s2").is_empty() {
                host.sleep(1).await;
            }
            p.cancel_current_processing()
        };
        futures::join!(p.process(direct("s2", "tell me a story")), stop).0
    });
    assert!(stopped.cancelled, "{stopped:?}");
    host.run_for(1000);
    p.dispose();
    drop(p);
    host.agent().turns.push_back(vec![chunk("three"), spent(0.06)]);
    let p = acp_processor(&host, agent_settings(AgentKind::ClaudeCode));
    assert!(host.run(p.process(direct("s3", "again"))).success);
    assert_eq!(host.agent_requests("session/load")[0]["params"]["sessionId"], "sess-1");
    assert_eq!(costs(&host), [0.01, 0.02, 0.03], "each turn's own cost, the stopped one's too");
}
