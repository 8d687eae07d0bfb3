//! Titles, summaries and retrospection by the user's own agent (the FakeHost's scripted ACP
//! agent): with an ACP agent chosen, an ended conversation's background prompts go to a side
//! session of the same agent process (no MCP servers, never the conversation's own session, no
//! provider call), a side session while a turn streams keeps its updates apart, its permission
//! requests are rejected, the agent is started for it when it is not running (one process for a
//! turn and a side session starting together), and an agent fault is logged as a failed model
//! call is.

mod common;

use common::acp::*;
use common::*;
use serde_json::{json, Value};
use smarthole_agent::testing::internals::{ConversationIndex, INDEX_PATH};
use smarthole_agent::testing::{AgentStep, FakeHost};
use smarthole_agent::{AgentKind, Event, Host, Settings};

const MINUTE: u64 = 60_000;
/// The summary prompt's instructions (`summary::INSTRUCTIONS`).
const SUMMARY: &str = "You title and summarise conversations";
/// The retrospection prompt's instructions (`retrospection::INSTRUCTIONS`).
const RETROSPECTION: &str = "You review a finished conversation";

fn index(host: &FakeHost) -> ConversationIndex {
    serde_json::from_str(&host.file(INDEX_PATH).expect("index written")).expect("index parses")
}

/// The sessions made with no MCP servers (side sessions), from `session/new`'s answers' order:
/// the fake agent numbers its sessions `sess-1`, `sess-2`… in the order it is asked.
fn side_sessions(host: &FakeHost) -> Vec<String> {
    host.agent_requests("session/new")
        .iter()
        .enumerate()
        .filter(|(_, r)| r["params"]["mcpServers"] == json!([]))
        .map(|(n, _)| format!("sess-{}", n + 1))
        .collect()
}

/// The text of each prompt sent in `session`.
fn prompts_in(host: &FakeHost, session: &str) -> Vec<String> {
    host.agent_requests("session/prompt")
        .iter()
        .filter(|p| p["params"]["sessionId"] == session)
        .map(|p| p["params"]["prompt"][0]["text"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// The session a conversation keeps (`claude-code:sess-1` → `sess-1`).
fn session_of(stored: Option<&str>) -> String {
    stored.and_then(|s| s.split_once(':')).map(|(_, s)| s.to_owned()).expect("the conversation keeps a session")
}

fn summary_steps(title: &str, summary: &str) -> Vec<AgentStep> {
    let answer = json!({"title": title, "summary": summary}).to_string();
    let (a, b) = answer.split_at(answer.len() / 2);
    vec![chunk(a), chunk(b)]
}

#[test]
fn an_ended_conversation_is_titled_and_summarised_by_a_side_session_of_the_agent() {
    let host = FakeHost::new();
    let p = acp_processor(&host, agent_settings(AgentKind::ClaudeCode));
    host.agent().turns.push_back(vec![chunk("Milk is on the list.")]);
    let mut steps = summary_steps("Milk on the list", "The user asked about milk. It is on the list.");
    steps.push(AgentStep::Update(json!({"sessionUpdate": "usage_update", "used": 900, "size": 200000,
        "cost": {"amount": 0.002, "currency": "USD"}})));
    host.agent().matching.push((SUMMARY.into(), steps));
    assert!(host.run(p.process(direct("a", "Is milk on my list?"))).success);
    host.run(p.new_conversation()).unwrap();
    host.run_for(MINUTE);

    let ended = &index(&host).conversations[0];
    assert_eq!(ended.title.as_deref(), Some("Milk on the list"), "titled by the agent");
    assert_eq!(ended.summary.as_deref(), Some("The user asked about milk. It is on the list."));
    assert!(host.requests().is_empty(), "no call to the built-in model's provider: {:?}", host.requests());
    assert_eq!(host.agent().launches.len(), 1, "the same agent process");
    // A side session with no tools, never the conversation's own.
    let sides = side_sessions(&host);
    assert_eq!(sides.len(), 1, "one side session");
    let own = session_of(ended.provider_session_id.as_deref());
    assert_ne!(own, sides[0]);
    assert!(
        prompts_in(&host, &own).iter().all(|text| !text.contains(SUMMARY)),
        "the conversation's session never sees it"
    );
    let asked = prompts_in(&host, &sides[0]);
    assert_eq!(asked.len(), 1);
    assert!(
        asked[0].starts_with(SUMMARY) && asked[0].contains("Milk is on the list."),
        "instructions, then the transcript: {}",
        asked[0]
    );
    // Its usage is in the ledger as a background call's, under the agent's name as its turns
    // are, with the agent's own cost (the price table does not know an agent).
    let ledger: String = host.paths_under("usage").iter().filter_map(|path| host.file(path)).collect();
    let line: Value = ledger
        .lines()
        .find(|l| l.contains("\"summary\""))
        .map(|l| serde_json::from_str(l).unwrap())
        .expect("a summary line in the ledger");
    assert_eq!(line["usage"]["model"], "Claude Code");
    assert_eq!(line["usage"]["contextTokens"].as_u64(), Some(900));
    assert_eq!(line["usage"]["costUsd"].as_f64(), Some(0.002));
}

#[test]
fn a_side_session_while_a_turn_streams_keeps_its_updates_apart_and_may_do_nothing() {
    let host = FakeHost::new();
    let p = acp_processor(&host, agent_settings(AgentKind::ClaudeCode));
    // The turn and the summary's side session interleave: the turn's first piece, then the
    // summary's first half and a permission request, then the turn's end, then the rest.
    host.agent().turns.extend([
        vec![chunk("first answer")],
        vec![chunk("b one "), AgentStep::Open("turn".into()), AgentStep::Gate("aside".into()), chunk("b two")],
    ]);
    let answer = json!({"title": "First", "summary": "The user said hello."}).to_string();
    let (a, b) = answer.split_at(12);
    host.agent().matching.push((
        SUMMARY.into(),
        vec![
            AgentStep::Gate("turn".into()),
            chunk(a),
            AgentStep::Open("aside".into()),
            AgentStep::Permission(json!({"toolCallId": "w1", "title": "Write notes.md", "kind": "edit",
                "rawInput": {"path": "notes.md"}})),
            chunk(b),
        ],
    ));
    assert!(host.run(p.process(direct("a", "hello"))).success);
    host.run_for(31 * MINUTE);
    let result = host.run(p.process(direct("b", "after a long break")));
    host.run_for(MINUTE);

    assert_eq!(result.response.as_deref(), Some("b one b two"), "the turn's answer is its own");
    assert_eq!(drawn(&host, "b"), ["text b one ", "text b two"], "nothing of the side session drawn");
    let idx = index(&host);
    assert_eq!(idx.conversations.len(), 2);
    assert_eq!(idx.conversations[0].title.as_deref(), Some("First"));
    assert_eq!(idx.conversations[0].summary.as_deref(), Some("The user said hello."));
    assert!(host.requests().is_empty(), "no provider call");
    assert_eq!(
        permission_answers(&host),
        [json!({"outcome": "selected", "optionId": "reject"})],
        "the side session may do nothing"
    );
    assert!(p.pending_approvals().is_empty(), "the user is not asked");
    let sides = side_sessions(&host);
    assert_eq!(sides.len(), 1);
    for conversation in &idx.conversations {
        let own = session_of(conversation.provider_session_id.as_deref());
        assert_ne!(own, sides[0]);
        assert!(prompts_in(&host, &own).iter().all(|text| !text.contains(SUMMARY)));
    }
    assert_eq!(host.agent().launches.len(), 1);
}

#[test]
fn retrospection_is_written_by_a_side_session_of_the_agent() {
    let host = FakeHost::new();
    let settings = Settings { enable_conversation_retrospection: true, ..agent_settings(AgentKind::Gemini) };
    let p = acp_processor(&host, settings);
    host.agent().turns.push_back(vec![chunk("Done.")]);
    host.agent().matching.push((SUMMARY.into(), summary_steps("Shed plans", "The user planned a shed.")));
    host.agent().matching.push((RETROSPECTION.into(), vec![chunk("- went well\n"), chunk("- ask sooner")]));
    assert!(host.run(p.process(direct("a", "plan my shed"))).success);
    host.run(p.new_conversation()).unwrap();
    host.run_for(MINUTE);

    let file = host.file("retrospection.md").expect("retrospection written");
    assert!(file.contains("— Shed plans\n\n- went well\n- ask sooner"), "{file}");
    assert!(host
        .events()
        .iter()
        .any(|e| matches!(e, Event::Retrospection { content, .. } if content.contains("ask sooner"))));
    assert!(host.requests().is_empty(), "no provider call");
    let sides = side_sessions(&host);
    assert_eq!(sides.len(), 2, "one side session each");
    let asked: Vec<String> = sides.iter().flat_map(|s| prompts_in(&host, s)).collect();
    assert!(asked.iter().any(|t| t.starts_with(RETROSPECTION) && t.contains("plan my shed")), "{asked:?}");
    let own = session_of(index(&host).conversations[0].provider_session_id.as_deref());
    assert!(prompts_in(&host, &own).iter().all(|t| !t.contains(SUMMARY) && !t.contains(RETROSPECTION)));
}

#[test]
fn the_agent_is_started_for_a_side_session_and_a_turn_arriving_meanwhile_shares_the_process() {
    let host = FakeHost::new();
    let p = acp_processor(&host, agent_settings(AgentKind::ClaudeCode));
    host.agent().turns.extend([vec![chunk("one")], vec![chunk("two")]]);
    host.agent().matching.push((SUMMARY.into(), summary_steps("One", "First.")));
    assert!(host.run(p.process(direct("a", "first"))).success);
    p.stop_agent();
    // Nothing running: the summary's side session starts the agent, whose handshake is slow.
    host.agent().hold_initialize = true;
    host.run(p.new_conversation()).unwrap();
    host.run_for(1_000);
    assert_eq!(host.agent().launches.len(), 2, "started for the side session");
    // A message arrives while that start is under way: its turn waits for the same process.
    let starting = |host: &FakeHost| {
        host.events().iter().any(|e| matches!(e, Event::Waiting { message_id, .. } if message_id == "b"))
    };
    let (result, ()) = host.run(async {
        let release = async {
            while !starting(&host) {
                host.sleep(1).await;
            }
            host.agent().release_initialize();
        };
        futures::join!(p.process(direct("b", "second")), release)
    });
    assert_eq!(result.response.as_deref(), Some("two"), "{result:?}");
    host.run_for(MINUTE);
    assert_eq!(host.agent().launches.len(), 2, "one process for both");
    assert_eq!(host.agent_requests("initialize").len(), 2);
    assert_eq!(index(&host).conversations[0].title.as_deref(), Some("One"));
    assert!(host.requests().is_empty(), "no provider call");
}

#[test]
fn an_agent_fault_in_a_side_session_is_logged_and_the_next_turn_goes_on() {
    let host = FakeHost::new();
    let p = acp_processor(&host, agent_settings(AgentKind::ClaudeCode));
    host.agent().turns.extend([vec![chunk("one")], vec![chunk("again")]]);
    host.agent().matching.push((
        SUMMARY.into(),
        vec![chunk("{\"title\": "), AgentStep::Exit(Some(1), None, "fake agent: out of memory".into())],
    ));
    assert!(host.run(p.process(direct("a", "Remember the milk"))).success);
    host.run(p.new_conversation()).unwrap();
    host.run_for(MINUTE);
    let ended = &index(&host).conversations[0];
    assert_eq!(ended.title.as_deref(), Some("Remember the milk"), "the provisional title stays");
    assert!(ended.summary.is_none());
    let logged = host.logs().into_iter().map(|(_, l)| l).find(|l| l.contains("could not summarise"));
    assert!(logged.as_deref().is_some_and(|l| l.contains("out of memory")), "{logged:?}");
    assert!(host.requests().is_empty(), "no provider call instead");
    assert_eq!(host.run(p.process(direct("b", "next"))).response.as_deref(), Some("again"));
}

#[test]
fn a_side_session_never_gets_claude_codes_write_tools_nor_a_mode_that_asks_nothing() {
    let host = FakeHost::new();
    // The user lets turns use the agent's own tools; the adapter starts sessions in `auto`.
    let p = acp_processor(&host, Settings { agent_own_tools: true, ..agent_settings(AgentKind::ClaudeCode) });
    host.agent().modes = Some(json!({"currentModeId": "auto", "availableModes": [{"id": "auto"}, {"id": "default"}]}));
    host.agent().turns.push_back(vec![chunk("ok")]);
    host.agent().matching.push((SUMMARY.into(), summary_steps("Ok", "Fine.")));
    assert!(host.run(p.process(direct("a", "hi"))).success);
    host.run(p.new_conversation()).unwrap();
    host.run_for(MINUTE);
    assert_eq!(index(&host).conversations[0].title.as_deref(), Some("Ok"));
    let side = &side_sessions(&host)[0];
    let new = host.agent_requests("session/new").into_iter().find(|r| r["params"]["mcpServers"] == json!([])).unwrap();
    assert_eq!(
        new["params"]["_meta"]["claudeCode"]["options"]["disallowedTools"],
        json!(["Edit", "Write", "NotebookEdit", "Bash"]),
        "off in a side session even with the agent's own tools allowed for turns"
    );
    let set = host.agent_requests("session/set_mode");
    assert!(set.iter().any(|s| s["params"]["sessionId"] == *side && s["params"]["modeId"] == "default"), "{set:?}");
    // The mode is set before the prompt.
    let order: Vec<String> = host
        .agent()
        .received
        .iter()
        .filter(|m| m["params"]["sessionId"] == *side)
        .map(|m| m["method"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(order, ["session/set_mode", "session/prompt"]);
}

#[test]
fn a_side_session_the_agent_never_answers_is_cancelled_in_time_and_the_process_serves_on() {
    let host = FakeHost::new();
    let p = acp_processor(&host, agent_settings(AgentKind::ClaudeCode));
    host.agent().turns.extend([vec![chunk("one")], vec![chunk("two")]]);
    host.agent().matching.push((SUMMARY.into(), vec![AgentStep::AwaitCancel]));
    assert!(host.run(p.process(direct("a", "Remember the milk"))).success);
    host.run(p.new_conversation()).unwrap();
    host.run_for(10 * MINUTE);
    let side = side_sessions(&host)[0].clone();
    let cancels = host.agent_requests("session/cancel");
    assert!(cancels.iter().any(|c| c["params"]["sessionId"] == *side), "the side session's prompt cancelled");
    let logged = host.logs().into_iter().map(|(_, l)| l).find(|l| l.contains("could not summarise"));
    assert!(logged.as_deref().is_some_and(|l| l.contains("did not answer")), "{logged:?}");
    assert_eq!(host.run(p.process(direct("b", "next"))).response.as_deref(), Some("two"));
    assert_eq!(host.agent().launches.len(), 1, "the process was not stopped");
}
