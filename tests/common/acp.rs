//! Helpers of the ACP tests: a processor whose agent is the FakeHost's scripted ACP agent, and
//! the updates such an agent sends.

use std::collections::BTreeMap;

use serde_json::{json, Value};
use smarthole_agent::testing::{drive_agent, AgentStep, FakeHost};
use smarthole_agent::{AgentKind, Event, MessageProcessor, Settings};

/// The vault's folder as the fake host reports it.
pub const VAULT: &str = "/home/user/vault";

/// The port the host reports for the `smarthole` server's own listener (the system's pick).
pub const TOOLS_PORT: u16 = 41_817;

/// A processor whose turns go to the scripted agent `kind` (the hub off), the host's
/// environment being `env` (PATH and HOME when empty); the host has reported the `smarthole`
/// server's listener open at [`TOOLS_PORT`].
pub fn acp_processor(host: &FakeHost, settings: Settings) -> MessageProcessor<FakeHost> {
    let p = acp_processor_unreported(host, settings);
    p.agent_tools_listening(Some(TOOLS_PORT), None);
    p
}

/// As [`acp_processor`], the host having said nothing of the tools' listener yet.
pub fn acp_processor_unreported(host: &FakeHost, settings: Settings) -> MessageProcessor<FakeHost> {
    {
        let mut agent = host.agent();
        agent.folder = Some(VAULT.to_owned());
        if agent.environment.is_empty() {
            agent.environment = BTreeMap::from([
                ("PATH".to_owned(), "/usr/bin:/bin".to_owned()),
                ("HOME".to_owned(), "/home/user".to_owned()),
            ]);
        }
    }
    let p = super::processor_with(host, settings);
    drive_agent(&p);
    p
}

/// The test settings with `kind` as the agent and the hub off.
pub fn agent_settings(kind: AgentKind) -> Settings {
    Settings { agent: kind, hub_enabled: false, ..super::settings() }
}

/// A chunk of the agent's answer.
pub fn chunk(text: &str) -> AgentStep {
    AgentStep::Update(json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}))
}

/// A tool call starting, then finished with `status`.
pub fn tool(id: &str, title: &str, kind: &str, input: Value) -> AgentStep {
    AgentStep::Update(json!({
        "sessionUpdate": "tool_call", "toolCallId": id, "title": title, "kind": kind,
        "status": "pending", "rawInput": input,
    }))
}

pub fn tool_done(id: &str, status: &str, output: &str) -> AgentStep {
    AgentStep::Update(json!({
        "sessionUpdate": "tool_call_update", "toolCallId": id, "status": status,
        "content": [{"type": "content", "content": {"type": "text", "text": output}}],
    }))
}

/// The events of `message_id` the chat draws, in order, in short words.
pub fn drawn(host: &FakeHost, message_id: &str) -> Vec<String> {
    host.events()
        .into_iter()
        .filter_map(|e| match e {
            Event::TextDelta { message_id: id, text, .. } if id == message_id => Some(format!("text {text}")),
            Event::ToolStarted { message_id: id, name, .. } if id == message_id => Some(format!("tool {name}")),
            Event::ToolFinished { message_id: id, name, is_error, .. } if id == message_id => {
                Some(format!("done {name}{}", if is_error { " (failed)" } else { "" }))
            }
            Event::Plan { message_id: id, entries, .. } if id == message_id => Some(format!(
                "plan {}",
                entries.iter().map(|e| format!("{}:{}", e.content, e.status)).collect::<Vec<_>>().join(", ")
            )),
            _ => None,
        })
        .collect()
}

/// The permission answers the core gave (the lines answering `perm-*` requests).
pub fn permission_answers(host: &FakeHost) -> Vec<Value> {
    host.agent()
        .received
        .iter()
        .filter(|m| m["id"].as_str().is_some_and(|id| id.starts_with("perm-")))
        .map(|m| m["result"]["outcome"].clone())
        .collect()
}
