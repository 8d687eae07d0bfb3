//! The `smarthole` MCP server's side in the processor: a request on its own listener at `/mcp`
//! (`agent_listener.rs`) is admitted with the running agent process's own token (`acp::mcp_server` decides the
//! protocol), and a `tools/call` is handed to the turn whose prompt is in flight, which runs the
//! tool exactly as the built-in agent's turn runs it (the same `TurnServices`: review-first
//! diffs, protected folders, approvals asked the same way). With no prompt in flight the call is
//! refused with a clear error. Also where the agent reaches the server ([`Self::mcp_endpoint`]).

use futures::channel::oneshot;
use futures::FutureExt;

use super::handle::MessageProcessor;
use super::hub::message_time;
use super::state::ServedCall;
use crate::acp::mcp_server::{self, McpEndpoint, McpStep, SERVED_TOOLS};
use crate::acp::served_names;
use crate::api::{guard, ApiRequest, ApiResponse};
use crate::host::Host;
use crate::host_types::LogLevel;
use crate::message::RoutedMessage;
use crate::settings::Settings;
use crate::tools::{ToolContext, ToolOutput};

/// What the model reads when it calls a tool with no message being answered.
pub(crate) const NO_PROMPT: &str =
    "No message is being answered now: SmartHole's tools run only while SmartHole is waiting for your answer to a prompt.";

/// What the model reads when the turn ended (Stop) before its call ran.
const TURN_ENDED: &str = "The user stopped this turn: the tool did not run.";

impl<H: Host + 'static> MessageProcessor<H> {
    /// Where the running agent reaches the `smarthole` server: its own listener's port on
    /// 127.0.0.1 (the host reported it before the process started; `agent_listener.rs`), with
    /// this process's token; `None` for an agent that does not take MCP servers over HTTP (it
    /// has no note tools then).
    pub(super) fn mcp_endpoint(&self, settings: &Settings) -> Option<McpEndpoint> {
        if !self.inner.acp.client.borrow().capabilities().mcp_http {
            let agent = settings.agent.label();
            let text = format!("{agent} does not take MCP servers over HTTP: it cannot use SmartHole's note tools");
            self.inner.host.log(LogLevel::Warn, &text);
            return None;
        }
        let token = self.inner.acp.mcp_token.borrow().clone()?;
        Some(McpEndpoint::on_port(self.inner.acp.mcp_port.get()?, token))
    }

    /// A new token for an agent process about to start (the old process's stops working).
    pub(super) fn new_mcp_token(&self) {
        let host = &self.inner.host;
        let token: String = (0..4).map(|_| format!("{:016x}", host.random_u64())).collect();
        self.inner.config.secrets().add_made(&token, "agent tools token");
        *self.inner.acp.mcp_token.borrow_mut() = Some(token);
    }

    /// Answers a request to the `smarthole` MCP server.
    pub(super) async fn handle_mcp(&self, request: &ApiRequest) -> ApiResponse {
        let token = self.inner.acp.mcp_token.borrow().clone().unwrap_or_default();
        if let Err(error) = guard::admit(request, &token) {
            self.inner.host.log(LogLevel::Debug, &format!("smarthole MCP {}: {error}", request.method));
            return error.response();
        }
        self.inner.acp.server_reach.borrow_mut().connected();
        let kind = self.inner.acp.client.borrow().kind();
        let tools = served_names::served_definitions(kind, self.inner.tools.definitions_of(&SERVED_TOOLS));
        let (id, name, input) = match mcp_server::step(&request.method, &request.body, &tools) {
            McpStep::Answer(answer) => return response(answer),
            // A second name (Gemini CLI's `write_note`) runs the built-in tool it stands for.
            McpStep::Call { id, name, arguments } => {
                (id, served_names::built_in_name(kind, &name).to_owned(), arguments)
            }
        };
        let (reply, answer) = oneshot::channel();
        if self.inner.acp.serve(ServedCall { name, input, reply }).is_err() {
            return response(mcp_server::call_refused(&id, NO_PROMPT));
        }
        response(match answer.await {
            Ok(output) => mcp_server::call_answer(&id, &output.content, output.is_error),
            Err(_) => mcp_server::call_refused(&id, TURN_ENDED),
        })
    }

    /// Runs a `smarthole` tool call in the turn answering `message`, as the built-in agent's
    /// turn runs a tool; `tool_use_id` is the agent's id of the call (where its cards go).
    pub(super) async fn run_served(
        &self,
        message: &RoutedMessage,
        settings: &Settings,
        name: &str,
        input: &serde_json::Value,
        tool_use_id: String,
    ) -> ToolOutput {
        let host = &self.inner.host;
        let notify_hub = |text: &str, priority| {
            self.notify_hub(settings, &message.id, &message.text, text, priority, message_time(host, message));
        };
        let approve = |ask| self.ask_approval(message, ask).boxed_local();
        let start_index = || self.start_search_index();
        let services = self.turn_services(message, &notify_hub, &approve, &[], &start_index);
        let mut ctx = ToolContext::new(host, settings, services);
        ctx.tool_use_id = tool_use_id;
        self.inner.tools.run(&ctx, name, input).await
    }
}

fn response(answer: mcp_server::McpAnswer) -> ApiResponse {
    ApiResponse { status: answer.status, body: answer.body, headers: answer.headers }
}

/// What a prompt's loop hears: the agent's output, or a `smarthole` tool call.
pub(super) enum Incoming {
    Agent(crate::acp::client::Delivery),
    Tool(ServedCall),
}

/// The `smarthole` tool calls of a prompt: the agent's ids of the calls it announced (so the
/// diff card goes under its chip) and the calls' effects on the turn.
#[derive(Default)]
pub(super) struct ServedTools {
    /// Announced (`tool_call` updates) and not yet called: id, tool name.
    announced: Vec<(String, String)>,
    calls: u32,
    pub(super) effects: Vec<crate::tools::ToolEffect>,
}

impl ServedTools {
    /// Notes a chip the turn shows, if it is one of the served tools.
    pub(super) fn started(&mut self, shown: &crate::acp::progress::Shown) {
        if let crate::acp::progress::Shown::ToolStarted { id, name, .. } = shown {
            if SERVED_TOOLS.contains(&name.as_str()) {
                self.announced.push((id.clone(), name.clone()));
            }
        }
    }

    /// The id a call of `name` is shown under: the oldest announced one of that tool, or a new one.
    pub(super) fn call_id(&mut self, name: &str) -> String {
        self.calls += 1;
        match self.announced.iter().position(|(_, n)| n == name) {
            Some(at) => self.announced.remove(at).0,
            None => format!("smarthole-{}", self.calls),
        }
    }
}
