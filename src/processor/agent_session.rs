//! A conversation's ACP session for a turn (`agent_turn.rs`): reused, loaded (`session/load`),
//! or new (`session/new`, given the recent history when the conversation has some, also when
//! the agent fails to load it: Gemini CLI in a new process); and a session that starts in a mode
//! that asks nothing (`auto`, the newer Claude Code adapter) set to `default` before the prompt,
//! so the agent's permission requests still come to the plugin.

use futures::channel::mpsc::UnboundedReceiver;
use serde_json::Value;

use super::agent_turn::reply_to;
use super::conversations::TurnContext;
use super::handle::MessageProcessor;
use crate::acp::client::Delivery;
use crate::acp::error::AcpError;
use crate::acp::launch::AgentKind;
use crate::acp::messages;
use crate::acp::session::{self, SessionStep};
use crate::host::Host;
use crate::settings::Settings;

impl<H: Host + 'static> MessageProcessor<H> {
    /// The session of the conversation: reused, loaded, or new; and whether the prompt must
    /// carry the conversation's history.
    pub(super) async fn acp_session(
        &self,
        context: &TurnContext,
        kind: AgentKind,
        folder: &str,
        settings: &Settings,
        has_history: bool,
        rx: &mut UnboundedReceiver<Delivery>,
    ) -> Result<(String, bool), AcpError> {
        let stored = session::session_of(kind, context.session.as_deref());
        let step = {
            let client = self.inner.acp.client.borrow();
            session::plan_session(stored, has_history, |s| client.is_live(s), client.capabilities().load_session)
        };
        let with_history = match step {
            SessionStep::Reuse(session) => return Ok((session, false)),
            SessionStep::Load(session) => {
                let smarthole = self.mcp_endpoint(settings);
                self.smarthole_given(smarthole.as_ref());
                let id = self
                    .acp_request("session/load", &session::load_session_params(&session, folder, smarthole.as_ref()));
                let loaded = self.acp_wait(rx, "session/load", |d| reply_to(id, d)).await;
                match loaded {
                    Ok(Ok(value)) => {
                        self.leave_asking_nothing_mode(&session, &value, rx).await?;
                        return Ok((session, false));
                    }
                    // The agent no longer has it: a new session, given the history.
                    Ok(Err(_)) => has_history,
                    Err(error) => return Err(error),
                }
            }
            SessionStep::New { with_history } => with_history,
        };
        let smarthole = self.mcp_endpoint(settings);
        self.smarthole_given(smarthole.as_ref());
        let params = session::new_session_params(kind, folder, settings.agent_own_tools, smarthole.as_ref());
        let id = self.acp_request("session/new", &params);
        let agent = kind.label().to_owned();
        match self.acp_wait(rx, "session/new", |d| reply_to(id, d)).await? {
            Ok(value) => {
                let session = messages::new_session_id(&value).map_err(|e| AcpError::Malformed {
                    agent,
                    what: format!("session/new's answer: {e}"),
                    command: kind.name().into(),
                })?;
                self.leave_asking_nothing_mode(&session, &value, rx).await?;
                Ok((session, with_history))
            }
            Err(error) if error.code == crate::acp::codec::AUTH_REQUIRED => {
                Err(AcpError::Login { agent, login: kind.login_command().to_owned() })
            }
            Err(error) => Err(AcpError::Refused { agent, method: "session/new".into(), message: error.message }),
        }
    }

    /// Notes that this process's session was given the `smarthole` server (`server_reach.rs`).
    fn smarthole_given(&self, smarthole: Option<&crate::acp::mcp_server::McpEndpoint>) {
        if smarthole.is_some() {
            self.inner.acp.server_reach.borrow_mut().given();
        }
    }

    /// Sets the session to `default` when it starts in a mode that asks nothing and offers it
    /// (`session::mode_to_set`); an agent refusing is told in the error.
    async fn leave_asking_nothing_mode(
        &self,
        session: &str,
        answer: &Value,
        rx: &mut UnboundedReceiver<Delivery>,
    ) -> Result<(), AcpError> {
        let Some(mode) = session::mode_to_set(answer) else { return Ok(()) };
        let id = self.acp_request("session/set_mode", &session::set_mode_params(session, mode));
        match self.acp_wait(rx, "session/set_mode", |d| reply_to(id, d)).await? {
            Ok(_) => Ok(()),
            Err(error) => Err(AcpError::Refused {
                agent: self.inner.acp.client.borrow().label().into(),
                method: "session/set_mode".into(),
                message: error.message,
            }),
        }
    }
}
