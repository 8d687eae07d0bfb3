//! The `smarthole` MCP server's own listener: whenever an ACP agent is in use on this device the
//! host keeps one open on 127.0.0.1 at a port the system picks (so two vaults' agents never
//! clash on one port, and the agent API keeps its own port and on/off setting), reports the port
//! back here once bound, and hands its requests to [`MessageProcessor::handle_agent_tools`]. An
//! agent is started only once the listener is known to be open; the sessions get its URL.
//! A stored schedule naming an ACP agent wants the listener too, whatever the settings say: the
//! host is told by [`Event::AgentToolsWanted`] when that changes the answer.

use futures::future::{select, Either};

use super::handle::MessageProcessor;
use super::state::{ListenerState, ToolsListener};
use crate::acp::error::AcpError;
use crate::acp::mcp_server::is_mcp_path;
use crate::acp::AgentKind;
use crate::api::{ApiError, ApiRequest, ApiResponse};
use crate::conversation::Conversation;
use crate::event::Event;
use crate::host::Host;
use crate::host_types::LogLevel;
use crate::platform::platform_features;

/// How long a turn about to start an agent waits for the host's first report of the listener.
pub(crate) const TOOLS_LISTEN_WAIT_MS: u64 = 10_000;

impl<H: Host + 'static> MessageProcessor<H> {
    /// Whether the host should keep the `smarthole` server's listener open (on 127.0.0.1, port
    /// 0): an ACP agent is the one in use, or a stored schedule names one for its runs, and this
    /// device can start it and can listen at all.
    pub fn agent_tools_listener(&self) -> bool {
        let facts = self.inner.config.platform();
        let wanted = self.settings().agent != AgentKind::Builtin || self.inner.acp.tools_listener.any_scheduled();
        platform_features(facts).own_agent.available && facts.can_listen && wanted
    }

    /// A conversation's schedule was stored, changed or removed: whether it names an ACP agent
    /// is noted, and the host told when that changes [`Self::agent_tools_listener`]'s answer.
    pub(super) fn scheduled_agent_changed(&self, conversation: &Conversation) {
        let names = conversation.schedule.as_ref().and_then(|s| s.agent).is_some_and(|a| a != AgentKind::Builtin);
        self.tools_wish_after(|listener| listener.set_scheduled(&conversation.id, names));
    }

    /// Every conversation is gone (the history cleared): no job wants the listener.
    pub(super) fn scheduled_agents_cleared(&self) {
        self.tools_wish_after(ToolsListener::clear_scheduled);
    }

    /// Applies `change` to the jobs wanting the listener; emits [`Event::AgentToolsWanted`] when
    /// the answer the host acts on changed (a settings change the host follows by itself).
    fn tools_wish_after(&self, change: impl FnOnce(&ToolsListener)) {
        let before = self.agent_tools_listener();
        change(&self.inner.acp.tools_listener);
        let wanted = self.agent_tools_listener();
        if wanted != before {
            self.inner.host.emit(&Event::AgentToolsWanted { wanted });
        }
    }

    /// The host's report of that listener: bound at `port`, or failed with `error`, or (neither)
    /// closed.
    pub fn agent_tools_listening(&self, port: Option<u16>, error: Option<&str>) {
        let state = match (port, error) {
            (Some(port), _) if port != 0 => ListenerState::Listening(port),
            (_, Some(why)) => ListenerState::Failed(why.to_owned()),
            _ => ListenerState::Closed,
        };
        let line = match &state {
            ListenerState::Listening(port) => format!("SmartHole's tools for the agent: listening on 127.0.0.1:{port}"),
            ListenerState::Failed(why) => format!("SmartHole's tools for the agent could not listen: {why}"),
            _ => "SmartHole's tools for the agent: listener closed".to_owned(),
        };
        self.inner.host.log(LogLevel::Info, &line);
        self.inner.acp.tools_listener.report(state);
    }

    /// Answers a request on the `smarthole` server's own listener: `/mcp` only, admitted with
    /// the running agent process's token.
    pub async fn handle_agent_tools(&self, request: ApiRequest) -> ApiResponse {
        if !is_mcp_path(&request.url) {
            let path = request.url.split('?').next().unwrap_or_default().to_owned();
            return ApiError::NotFound(path).response();
        }
        self.handle_mcp(&request).await
    }

    /// The port the `smarthole` server listens on, waiting (bounded) for the host's first report;
    /// an error naming `kind` when it could not be opened, so the agent is not started. `None`
    /// where nothing can listen at all (a host that starts programs but serves nothing: the
    /// agent runs without the note tools, as one that takes no MCP server over HTTP does).
    pub(super) async fn tools_port(&self, kind: AgentKind) -> Result<Option<u16>, AcpError> {
        if !self.inner.config.platform().can_listen {
            let text =
                format!("this host cannot listen on a local port: {} gets no SmartHole note tools", kind.label());
            self.inner.host.log(LogLevel::Warn, &text);
            return Ok(None);
        }
        let listener = &self.inner.acp.tools_listener;
        if listener.state() == ListenerState::Unreported {
            let report = listener.next_report();
            if let Either::Right(_) = select(report, Box::pin(self.inner.host.sleep(TOOLS_LISTEN_WAIT_MS))).await {
                self.inner.host.log(LogLevel::Warn, "the host did not report the agent tools' listener");
            }
        }
        let why = match listener.state() {
            ListenerState::Listening(port) => return Ok(Some(port)),
            ListenerState::Failed(why) => why,
            ListenerState::Unreported => format!("the host did not open it within {} s", TOOLS_LISTEN_WAIT_MS / 1000),
            ListenerState::Closed => "it is closed".to_owned(),
        };
        Err(AcpError::ToolsListener { agent: kind.label().to_owned(), why })
    }
}
