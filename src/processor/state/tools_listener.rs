//! The `smarthole` MCP server's own listener as the host reports it: not yet reported, listening
//! on the port the system picked, failed (why), or closed. A turn about to start an agent waits
//! for the first report (the host binds it while the start-up goes on).

use std::cell::RefCell;

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

/// The listener's state and who waits for it to change.
#[derive(Default)]
pub(crate) struct ToolsListener {
    state: RefCell<ListenerState>,
    waiters: RefCell<Vec<oneshot::Sender<()>>>,
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
}
