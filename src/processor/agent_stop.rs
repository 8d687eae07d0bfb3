//! Stop of an ACP turn: the turn dropped before its prompt ended tells the agent to cancel it
//! and keeps what the turn spent until the prompt's end is known (counted then, once, in
//! `agent_usage.rs`); the session's next prompt waits for the stopped one's end, so nothing
//! the agent still sends for it is taken for the next answer.

use futures::channel::mpsc::UnboundedReceiver;

use super::handle::MessageProcessor;
use super::state::StoppedSpend;
use crate::acp::client::Delivery;
use crate::acp::error::AcpError;
use crate::acp::launch::AgentKind;
use crate::acp::progress::AgentUsage;
use crate::host::Host;

/// Tells the agent to cancel its prompt if the turn is dropped before the prompt ended (Stop),
/// and keeps what the turn spent until the prompt's end is known (`agent_usage.rs`).
pub(super) struct CancelOnDrop<'a, H: Host + 'static> {
    pub(super) processor: &'a MessageProcessor<H>,
    /// The prompt's request id and session, until it ends.
    pub(super) prompt: Option<(u64, String)>,
    pub(super) kind: AgentKind,
    /// The agent's last usage report in the turn.
    pub(super) reported: Option<AgentUsage>,
}

impl<H: Host + 'static> Drop for CancelOnDrop<'_, H> {
    fn drop(&mut self) {
        if let Some((prompt, session)) = self.prompt.take() {
            let (kind, reported) = (self.kind, self.reported.take());
            let spend = StoppedSpend { prompt, session: session.clone(), kind, reported };
            *self.processor.inner.acp.stopped_spend.borrow_mut() = Some(spend);
            self.processor.acp_cancel(&session);
            *self.processor.inner.acp.cancelled.borrow_mut() = Some((prompt, session));
        }
    }
}

impl<H: Host + 'static> MessageProcessor<H> {
    /// Waits for the end of the session's prompt the user stopped, if its answer has not come
    /// yet: what the agent still sends for it is not the next answer.
    pub(super) async fn cancelled_prompt_ended(
        &self,
        session: &str,
        rx: &mut UnboundedReceiver<Delivery>,
    ) -> Result<(), AcpError> {
        let stopped = self.inner.acp.cancelled.borrow_mut().take();
        match stopped {
            Some((id, stopped_session)) if stopped_session == session => {
                let ended = |d: &Delivery| matches!(d, Delivery::Reply { id: got, .. } if *got == id).then_some(());
                self.acp_wait(rx, "session/cancel", ended).await
            }
            _ => Ok(()),
        }
    }
}
