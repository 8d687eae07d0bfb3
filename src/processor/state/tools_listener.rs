//! The `smarthole` MCP server's own listener as the host reports it: not yet reported, listening
//! on the port the system picked, failed (why), or closed. A turn about to start an agent waits
//! for the first report (the host binds it while the start-up goes on). Also the conversations
//! whose stored schedule names an ACP agent: their runs want the listener whatever the settings.

use std::cell::RefCell;
use std::collections::BTreeSet;

use futures::channel::oneshot;

/// What the host last said of the listener.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) enum ListenerState {
    /// Nothing said yet (the host binds it after the core starts).
    #[default]
    Unreported,
    /// Bound on 127.0.0.1 at this port.
    Listening(u16),
    /// Could not be opened, and why.
    Failed(String),
    /// Closed (the built-in agent is in use, or nothing can listen here).
    Closed,
}

/// The listener's state, who waits for it to change, and the jobs that want it.
#[derive(Default)]
pub(crate) struct ToolsListener {
    state: RefCell<ListenerState>,
    waiters: RefCell<Vec<oneshot::Sender<()>>>,
    /// Conversations whose schedule names an ACP agent (by id).
    scheduled: RefCell<BTreeSet<String>>,
}

impl ToolsListener {
    /// The host's report; wakes whoever waits for one.
    pub(crate) fn report(&self, state: ListenerState) {
        *self.state.borrow_mut() = state;
        for waiter in self.waiters.borrow_mut().drain(..) {
            let _ = waiter.send(());
        }
    }

    /// What the host last said.
    pub(crate) fn state(&self) -> ListenerState {
        self.state.borrow().clone()
    }

    /// Resolves at the next report.
    pub(crate) fn next_report(&self) -> oneshot::Receiver<()> {
        let (tx, rx) = oneshot::channel();
        self.waiters.borrow_mut().push(tx);
        rx
    }

    /// Notes whether `conversation`'s schedule names an ACP agent (false: no schedule, one on
    /// the built-in agent, or the conversation gone).
    pub(crate) fn set_scheduled(&self, conversation: &str, names_acp_agent: bool) {
        let mut scheduled = self.scheduled.borrow_mut();
        if names_acp_agent {
            scheduled.insert(conversation.to_owned());
        } else {
            scheduled.remove(conversation);
        }
    }

    /// Forgets every job (the history was cleared).
    pub(crate) fn clear_scheduled(&self) {
        self.scheduled.borrow_mut().clear();
    }

    /// Whether some stored schedule names an ACP agent.
    pub(crate) fn any_scheduled(&self) -> bool {
        !self.scheduled.borrow().is_empty()
    }
}
