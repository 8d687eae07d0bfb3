//! The fake host's side of the scripted ACP agent (agent.rs): the `Host` calls reach it, tests
//! set it up and read what the core asked, and [`drive_agent`] carries its output back to the
//! processor as the JS host does.

use std::collections::BTreeMap;

use futures::StreamExt;
use serde_json::Value;

use super::agent::{FakeAgent, Out};
use super::state::FakeHost;
use crate::host::Host;
use crate::processor::MessageProcessor;

impl FakeHost {
    /// The scripted agent, to set up or inspect.
    pub fn agent(&self) -> std::cell::RefMut<'_, FakeAgent> {
        self.state.agent.borrow_mut()
    }

    /// The lines the core wrote to agents whose `method` is `method`.
    pub fn agent_requests(&self, method: &str) -> Vec<Value> {
        let agent = self.state.agent.borrow();
        agent.received.iter().filter(|m| m.get("method").and_then(Value::as_str) == Some(method)).cloned().collect()
    }

    pub(super) fn fake_agent_start(
        &self,
        process: u64,
        command: &str,
        args: &[String],
        env: &BTreeMap<String, String>,
        cwd: &str,
    ) {
        let launch = (command.to_owned(), args.to_vec(), env.clone(), cwd.to_owned());
        self.state.agent.borrow_mut().start(process, launch);
    }

    pub(super) fn fake_agent_write(&self, process: u64, text: &str) {
        self.state.agent.borrow_mut().write(process, text);
    }

    pub(super) fn fake_agent_stop(&self, process: u64) {
        self.state.agent.borrow_mut().stop_process(process);
    }
}

/// Connects the fake agent's output to `processor`: a background task tells it what the agent
/// wrote and when it ended, as the JS host does. Call once per processor.
pub fn drive_agent(processor: &MessageProcessor<FakeHost>) {
    let host = processor.host().clone();
    let mut rx = host.state.agent.borrow_mut().connect();
    let processor = processor.clone();
    let task = async move {
        while let Some(out) = rx.next().await {
            match out {
                Out::Output(process, chunk) => processor.agent_output(process, &chunk),
                Out::Exited(process, code, signal, error, stderr) => {
                    processor.agent_exited(process, code, signal.as_deref(), error.as_deref(), &stderr)
                }
                // The agent's HTTP call (to the tools' own listener) runs beside its output, as a
                // real client's does.
                Out::Mcp(request) => {
                    let (processor, host) = (processor.clone(), processor.host().clone());
                    host.clone().spawn(Box::pin(async move {
                        let answer = processor.handle_agent_tools(request).await;
                        host.state.agent.borrow_mut().mcp_answered(answer.status, &answer.body);
                    }));
                }
                Out::McpConnect(request) => {
                    let (processor, host) = (processor.clone(), processor.host().clone());
                    host.clone().spawn(Box::pin(async move {
                        let answer = processor.handle_agent_tools(request).await;
                        host.state.agent.borrow_mut().mcp_connects.push(answer.status);
                    }));
                }
            }
        }
    };
    host.spawn(Box::pin(task));
}
