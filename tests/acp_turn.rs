//! A turn answered by the user's own agent over ACP (the FakeHost's scripted agent): streamed
//! as the built-in agent's (tokens, tool chips, the plan, usage), recorded once; Stop is
//! `session/cancel`; the agent's end mid-turn keeps the message for a retry that records it once;
//! sessions are reused, loaded, or made new with the history.

mod common;

use common::acp::*;
use common::*;
use serde_json::json;
use smarthole_agent::testing::{AgentStep, FakeHost, InitAnswer};
use smarthole_agent::{AgentKind, Event, Host, LineRole};

#[test]
fn a_turn_streams_tokens_tool_chips_plan_and_usage_and_is_recorded_once() {
    let host = FakeHost::new();
    let p = acp_processor(&host, agent_settings(AgentKind::ClaudeCode));
    host.agent().turns.push_back(vec![
        AgentStep::Update(json!({"sessionUpdate": "plan", "entries": [
            {"content": "Read the list", "status": "in_progress", "priority": "high"},
            {"content": "Answer", "status": "pending", "priority": "medium"},
        ]})),
        tool("t1", "mcp__smarthole__read_file", "read", json!({"path": "Shopping.md"})),
        tool_done("t1", "completed", "milk, eggs"),
        AgentStep::Update(json!({"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": "hmm"}})),
        chunk("You need "),
        chunk("milk and eggs."),
        AgentStep::Update(json!({"sessionUpdate": "usage_update", "used": 1200, "size": 200000,
            "cost": {"amount": 0.0123, "currency": "USD"}})),
        AgentStep::Update(json!({"sessionUpdate": "available_commands_update", "availableCommands": []})),
    ]);
    let result = host.run(p.process(direct("m1", "What is on my shopping list?")));
    assert!(result.success, "{result:?}");
    assert_eq!(result.response.as_deref(), Some("You need milk and eggs."));
    assert_eq!(
        drawn(&host, "m1"),
        [
            "plan Read the list:in_progress, Answer:pending",
            "tool read_file",
            "done read_file",
            "text You need ",
            "text milk and eggs.",
        ],
        "the thought is not drawn as the answer"
    );
    let usage = result.usage.expect("the agent's usage is the cost line's");
    assert_eq!((usage.context_tokens, usage.context_window, usage.cost_usd), (1200, 200_000, Some(0.0123)));
    assert_eq!(result.tools_used, Some(vec!["read_file".to_owned()]));
    // Recorded once: the user's message and the agent's answer.
    assert_eq!(recorded_count(&host, "m1"), 1);
    let said: Vec<(LineRole, String)> = history(&host)
        .iter()
        .filter(|l| l.visible)
        .map(|l| {
            (
                l.role,
                l.content
                    .iter()
                    .filter_map(|b| match b {
                        smarthole_agent::ContentBlock::Text { text } => Some(text.as_str()),
                        _ => None,
                    })
                    .collect(),
            )
        })
        .collect();
    assert_eq!(said.len(), 2);
    assert_eq!(said[1], (LineRole::Assistant, "You need milk and eggs.".to_owned()));
    assert!(inbox(&host).is_empty());
    // The handshake and the session as the contract says.
    let init = &host.agent_requests("initialize")[0];
    assert_eq!(init["params"]["protocolVersion"], 1);
    let new = &host.agent_requests("session/new")[0];
    assert_eq!(new["params"]["cwd"], VAULT);
    assert_eq!(new["params"]["mcpServers"][0]["name"], "smarthole", "the plugin's own tools");
    assert_eq!(
        new["params"]["_meta"]["claudeCode"]["options"]["disallowedTools"],
        json!(["Edit", "Write", "NotebookEdit", "Bash"]),
        "Claude Code's own write and shell tools are off by default"
    );
    let prompt = &host.agent_requests("session/prompt")[0];
    assert_eq!(prompt["params"]["sessionId"], "sess-1");
    assert!(prompt["params"]["prompt"][0]["text"].as_str().unwrap().ends_with("What is on my shopping list?"));
    // The conversation keeps its session, named by agent.
    let conversation = host.run(p.current_conversation()).unwrap();
    assert_eq!(conversation.provider_session_id.as_deref(), Some("claude-code:sess-1"));
}

#[test]
fn the_process_lives_across_turns_and_the_session_is_reused() {
    let host = FakeHost::new();
    let p = acp_processor(&host, agent_settings(AgentKind::Gemini));
    host.agent().turns.extend([vec![chunk("one")], vec![chunk("two")]]);
    assert_eq!(host.run(p.process(direct("a", "first"))).response.as_deref(), Some("one"));
    assert_eq!(host.run(p.process(direct("b", "second"))).response.as_deref(), Some("two"));
    assert_eq!(host.agent().launches.len(), 1, "one process");
    assert_eq!(host.agent_requests("initialize").len(), 1);
    assert_eq!(host.agent_requests("session/new").len(), 1, "the session is reused");
    assert!(host.agent_requests("session/new")[0]["params"].get("_meta").is_none(), "only Claude Code takes _meta");
    let second = host.agent_requests("session/prompt")[1]["params"]["prompt"][0]["text"].as_str().unwrap().to_owned();
    assert!(!second.contains("conversation_so_far"), "a live session has the history: {second}");
}

#[test]
fn stop_mid_stream_cancels_the_session_and_nothing_is_recorded() {
    let host = FakeHost::new();
    let p = acp_processor(&host, agent_settings(AgentKind::ClaudeCode));
    host.agent().turns.extend([vec![chunk("Once upon"), AgentStep::AwaitCancel], vec![chunk("next")]]);
    let (result, stopped) = host.run(async {
        let stop = async {
            while streamed_text(&host, "s1").is_empty() {
                host.sleep(1).await;
            }
            p.cancel_current_processing()
        };
        futures::join!(p.process(direct("s1", "tell me a story")), stop)
    });
    assert!(stopped);
    assert!(result.cancelled, "{result:?}");
    assert_eq!(host.agent_requests("session/cancel").len(), 1, "session/cancel sent");
    assert_eq!(host.agent_requests("session/cancel")[0]["params"]["sessionId"], "sess-1");
    assert_eq!(p.current_message_id(), None, "the view is idle at once");
    assert!(history(&host).is_empty(), "nothing recorded");
    assert!(inbox(&host).is_empty());
    // The agent's late `cancelled` does not disturb the next turn, in the same session.
    let next = host.run(p.process(direct("s2", "again")));
    assert_eq!(next.response.as_deref(), Some("next"));
    assert_eq!(host.agent().launches.len(), 1);
}

#[test]
fn what_a_stopped_prompt_still_sends_is_not_the_next_answer() {
    let host = FakeHost::new();
    let p = acp_processor(&host, agent_settings(AgentKind::ClaudeCode));
    host.agent().turns.extend([
        vec![chunk("first")],
        vec![chunk("Once upon"), AgentStep::AwaitCancel, chunk(" a time (late)")],
        vec![chunk("third")],
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
    assert!(stopped.cancelled);
    let next = host.run(p.process(direct("s3", "again")));
    assert_eq!(next.response.as_deref(), Some("third"), "the late chunk is not part of it");
    assert_eq!(streamed_text(&host, "s3"), "third");
    let sessions: Vec<_> =
        host.agent_requests("session/prompt").iter().map(|r| r["params"]["sessionId"].clone()).collect();
    assert_eq!(sessions, vec![json!("sess-1"); 3], "one session throughout");
}

#[test]
fn stop_during_a_permission_request_answers_it_cancelled() {
    let host = FakeHost::new();
    let mut settings = agent_settings(AgentKind::ClaudeCode);
    settings.agent_own_tools = true;
    let p = acp_processor(&host, settings);
    host.agent().turns.push_back(vec![AgentStep::Permission(
        json!({"toolCallId": "b1", "title": "rm -rf build", "kind": "execute"}),
    )]);
    let result = host.run(async {
        let stop = async {
            while !host.events().iter().any(|e| matches!(e, Event::ApprovalRequested { .. })) {
                host.sleep(1).await;
            }
            p.cancel_current_processing()
        };
        futures::join!(p.process(direct("s1", "clean up")), stop).0
    });
    assert!(result.cancelled);
    assert_eq!(permission_answers(&host), [json!({"outcome": "cancelled"})]);
}

#[test]
fn an_agent_ending_mid_turn_fails_the_turn_keeps_the_message_and_its_retry_records_it_once() {
    let host = FakeHost::new();
    let p = acp_processor(&host, agent_settings(AgentKind::ClaudeCode));
    host.agent().turns.push_back(vec![
        chunk("half an ans"),
        AgentStep::Exit(None, Some("SIGKILL".into()), "fatal: out of memory".into()),
    ]);
    let result = host.run(p.process(direct("k1", "summarise my notes")));
    assert!(!result.success);
    assert_eq!(result.error_code.as_deref(), Some("agent_error"));
    let error = result.error.unwrap();
    assert!(error.contains("Claude Code stopped in the middle of its answer"), "{error}");
    assert!(error.contains("SIGKILL") && error.contains("out of memory"), "{error}");
    assert_eq!(inbox(&host), ["inbox/k1.json", "inbox/k1.turn.jsonl"], "the message and its run's journal are kept");
    assert!(history(&host).is_empty(), "nothing recorded");
    // Tried again later in the session, as a failed model call is: a new process, recorded once.
    host.agent().turns.push_back(vec![chunk("Here is the summary.")]);
    host.run_for(5 * 60_000);
    assert_eq!(host.agent().launches.len(), 2, "a new process");
    assert_eq!(recorded_count(&host, "k1"), 1);
    assert!(inbox(&host).is_empty());
    assert!(history(&host).iter().any(|l| l.role == LineRole::Assistant
        && matches!(&l.content[..], [smarthole_agent::ContentBlock::Text { text }] if text == "Here is the summary.")));
}

#[test]
fn a_message_kept_by_a_crash_is_finished_at_the_next_start_without_being_recorded_twice() {
    let host = FakeHost::new();
    let p = acp_processor(&host, agent_settings(AgentKind::Opencode));
    host.agent().turns.push_back(vec![AgentStep::Exit(Some(1), None, String::new())]);
    assert!(!host.run(p.process(direct("r1", "hello"))).success);
    p.dispose();
    drop(p);
    // The next start: the message is in the inbox; the agent answers this time.
    host.agent().turns.push_back(vec![chunk("hi there")]);
    let p = acp_processor(&host, agent_settings(AgentKind::Opencode));
    let summary = host.run(p.reprocess_pending()).unwrap();
    assert_eq!(summary.results.len(), 1, "{summary:?}");
    assert!(summary.results[0].success, "{summary:?}");
    assert_eq!(recorded_count(&host, "r1"), 1);
    assert!(inbox(&host).is_empty());
    // Re-delivered after it was recorded: answered from the record, the agent not asked again.
    let prompts = host.agent_requests("session/prompt").len();
    let again = host.run(p.process(direct("r1", "hello")));
    assert!(again.success);
    assert_eq!(host.agent_requests("session/prompt").len(), prompts);
    assert_eq!(recorded_count(&host, "r1"), 1);
}

#[test]
fn a_new_process_loads_the_conversations_session_when_the_agent_can() {
    let host = FakeHost::new();
    host.agent().init = Some(InitAnswer::Answer { version: json!(1), load_session: true, auth_methods: Vec::new() });
    let p = acp_processor(&host, agent_settings(AgentKind::ClaudeCode));
    host.agent().turns.extend([vec![chunk("one")], vec![chunk("two")]]);
    assert!(host.run(p.process(direct("a", "first"))).success);
    p.stop_agent();
    assert!(host.run(p.process(direct("b", "second"))).success);
    assert_eq!(host.agent().launches.len(), 2);
    let load = host.agent_requests("session/load");
    assert_eq!(load.len(), 1);
    assert_eq!(load[0]["params"]["sessionId"], "sess-1");
    assert_eq!(load[0]["params"]["cwd"], VAULT);
    assert_eq!(host.agent_requests("session/new").len(), 1, "no new session");
    let text = host.agent_requests("session/prompt")[1]["params"]["prompt"][0]["text"].as_str().unwrap().to_owned();
    assert!(!text.contains("conversation_so_far"), "a loaded session has its history");
}

#[test]
fn without_session_load_a_new_session_gets_the_conversations_history() {
    let host = FakeHost::new();
    let p = acp_processor(&host, agent_settings(AgentKind::Codex));
    host.agent().turns.extend([vec![chunk("Paris.")], vec![chunk("About 2 million.")]]);
    assert!(host.run(p.process(direct("a", "What is the capital of France?"))).success);
    p.stop_agent();
    assert!(host.run(p.process(direct("b", "How many people live there?"))).success);
    assert!(host.agent_requests("session/load").is_empty());
    assert_eq!(host.agent_requests("session/new").len(), 2);
    let text = host.agent_requests("session/prompt")[1]["params"]["prompt"][0]["text"].as_str().unwrap().to_owned();
    assert!(text.starts_with("<conversation_so_far>"), "{text}");
    assert!(text.contains("User: ") && text.contains("What is the capital of France?"), "{text}");
    assert!(text.contains("Assistant: Paris."), "{text}");
    assert!(text.ends_with("How many people live there?"));
    let conversation = host.run(p.current_conversation()).unwrap();
    assert_eq!(conversation.provider_session_id.as_deref(), Some("codex:sess-2"), "the new session is kept");
}

#[test]
fn the_answer_says_the_agent_is_starting_before_its_first_turn_and_not_once_it_runs() {
    let host = FakeHost::new();
    let p = acp_processor(&host, agent_settings(AgentKind::Gemini));
    host.agent().turns.push_back(vec![chunk("one")]);
    host.agent().turns.push_back(vec![chunk("two")]);
    assert!(host.run(p.process(direct("m1", "first"))).success);
    assert!(host.run(p.process(direct("m2", "second"))).success);
    let status = |id: &str| -> Vec<String> {
        host.events()
            .into_iter()
            .filter_map(|e| match e {
                Event::Waiting { message_id, text, .. } if message_id == id => Some(text),
                Event::TextDelta { message_id, text, .. } if message_id == id => Some(format!("text {text}")),
                _ => None,
            })
            .collect()
    };
    assert_eq!(status("m1"), ["Starting Gemini CLI…", "text one"]);
    assert_eq!(status("m2"), ["text two"], "the agent already runs: nothing starts");
}
