//! What the chat view is told so that it only draws: whether it is busy — the messages accepted
//! and not answered yet, an `in_flight` event at each change, and the same list read at once —,
//! Stop answered synchronously with what is left (the view is idle within the frame Stop was
//! pressed in, before the cancelled result arrives), and the hidden "Chat opened" line (UC014)
//! recorded when the view opens.

use serde::Serialize;

use super::error::ProcessorError;
use super::handle::MessageProcessor;
use crate::event::Event;
use crate::host::Host;
use crate::message::InFlightMessage;

/// The hidden line recorded when the chat view opens (UC014).
pub(crate) const CHAT_OPENED: &str = "Chat opened";

/// What Stop did, answered at once: the message stopped (its cancelled result follows as the
/// `response` event) and the messages still in flight (those waiting behind it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StopAnswer {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
    pub in_flight: Vec<InFlightMessage>,
}

impl<H: Host + 'static> MessageProcessor<H> {
    /// The messages accepted and not answered yet (from any source), oldest first; a stopped
    /// one is not among them.
    pub fn messages_in_flight(&self) -> Vec<InFlightMessage> {
        self.inner.inbox.listed()
    }

    /// Stop, as the chat view presses it: the message in flight is abandoned (as
    /// `cancel_current_processing` does) and is no longer in flight from now on; the answer says
    /// which it was and what is still in flight. The `in_flight` event follows when its run has
    /// ended — after the stop is on disk —, never before: the host may die at any event, and a
    /// stop not yet on disk would be answered again at the next start.
    pub fn stop(&self) -> StopAnswer {
        let stopped = self.inner.run.stop();
        if let Some(id) = &stopped {
            self.inner.host.log(crate::host_types::LogLevel::Info, &format!("stopping message {id}"));
            self.inner.inbox.unlist(id);
        }
        StopAnswer { stopped, in_flight: self.messages_in_flight() }
    }

    /// The chat view opened: the hidden line of UC014 goes to the current conversation (after
    /// the idle boundary, to the new one it starts); returns that conversation's id.
    pub async fn chat_opened(&self) -> Result<String, ProcessorError> {
        self.record_system_line(CHAT_OPENED).await
    }

    /// Tells the views what is in flight now.
    pub(super) fn in_flight_changed(&self) {
        self.inner.host.emit(&Event::InFlight { messages: self.messages_in_flight() });
    }
}
