//! The FIFO gate every message waits at, and the message holding it (for Stop).

use std::cell::RefCell;
use std::rc::Rc;

use futures::future::AbortHandle;

use super::queue::{FifoQueue, Ticket};

/// The gate and the message holding it.
#[derive(Default)]
pub(crate) struct RunState {
    queue: Rc<FifoQueue>,
    current: RefCell<Option<CurrentRun>>,
}

/// The message in flight, for Stop.
struct CurrentRun {
    message_id: String,
    abort: AbortHandle,
}

impl RunState {
    /// A place in line, taken now.
    pub(crate) fn ticket(&self) -> Ticket {
        self.queue.ticket()
    }

    /// Messages waiting behind the one in flight.
    pub(crate) fn waiting(&self) -> usize {
        self.queue.waiting()
    }

    /// The id of the message in flight.
    pub(crate) fn current_id(&self) -> Option<String> {
        self.current.borrow().as_ref().map(|c| c.message_id.clone())
    }

    /// Aborts the message in flight; returns its id (`None` when idle).
    pub(crate) fn stop(&self) -> Option<String> {
        let current = self.current.borrow();
        let run = current.as_ref()?;
        run.abort.abort();
        Some(run.message_id.clone())
    }

    /// Makes a message the one in flight until the guard is dropped, however its run ends.
    pub(crate) fn begin(&self, message_id: String, abort: AbortHandle) -> CurrentGuard<'_> {
        *self.current.borrow_mut() = Some(CurrentRun { message_id, abort });
        CurrentGuard { slot: &self.current }
    }
}

/// Clears the message in flight when its run ends, however it ends.
pub(crate) struct CurrentGuard<'a> {
    slot: &'a RefCell<Option<CurrentRun>>,
}

impl Drop for CurrentGuard<'_> {
    fn drop(&mut self) {
        self.slot.borrow_mut().take();
    }
}
