//! The agent process as the pipeline keeps it across turns: the connection's state machine
//! (`acp::client`), and the turn listening to it (one at a time, as the FIFO gate runs them).

use std::cell::{Cell, RefCell};

use futures::channel::mpsc::UnboundedSender;

use crate::acp::client::{AcpClient, Delivery};

/// The ACP agent's connection and who listens to it.
#[derive(Default)]
pub(crate) struct AcpLink {
    pub(crate) client: RefCell<AcpClient>,
    listener: RefCell<Option<UnboundedSender<Delivery>>>,
    /// The user was told this device cannot start agents (once a session).
    pub(crate) told_unavailable: Cell<bool>,
    /// A prompt the user stopped whose answer has not come yet: its request id and session (the
    /// session's next prompt waits for it, so none of its late updates is taken for the next
    /// answer).
    pub(crate) cancelled: RefCell<Option<(u64, String)>>,
}

impl AcpLink {
    /// Makes `sender` the turn hearing the agent until the guard is dropped.
    pub(crate) fn listen(&self, sender: UnboundedSender<Delivery>) -> ListenGuard<'_> {
        *self.listener.borrow_mut() = Some(sender);
        ListenGuard { link: self }
    }

    /// Hands a delivery to the turn listening; gives it back when none is.
    pub(crate) fn deliver(&self, delivery: Delivery) -> Option<Delivery> {
        match self.listener.borrow().as_ref() {
            Some(sender) => sender.unbounded_send(delivery).err().map(|e| e.into_inner()),
            None => Some(delivery),
        }
    }
}

/// Stops a turn hearing the agent, however the turn ends.
pub(crate) struct ListenGuard<'a> {
    link: &'a AcpLink,
}

impl Drop for ListenGuard<'_> {
    fn drop(&mut self) {
        self.link.listener.borrow_mut().take();
    }
}
