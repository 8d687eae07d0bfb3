//! Work the processor runs on its own — messages in flight, summaries, retrospection, the
//! periodic cleanup — registered so that dropping the processor (the plugin unloading) stops all
//! of it at once.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::rc::Rc;

use futures::future::{AbortHandle, Abortable};

/// The set of abortable tasks.
#[derive(Default)]
pub(crate) struct TaskSet {
    next: Cell<u64>,
    handles: RefCell<crate::lean::IdMap<AbortHandle>>,
    closed: Cell<bool>,
}

impl TaskSet {
    /// Registers a future: it resolves to `None` if the set is aborted first.
    pub(crate) fn wrap<T: 'static>(
        self: &Rc<Self>,
        fut: impl Future<Output = T> + 'static,
    ) -> impl Future<Output = Option<T>> + 'static {
        let id = self.next.get();
        self.next.set(id + 1);
        let (handle, registration) = AbortHandle::new_pair();
        if self.closed.get() {
            handle.abort();
        } else {
            self.handles.borrow_mut().insert(id, handle);
        }
        let set = Rc::downgrade(self);
        async move {
            let out = Abortable::new(fut, registration).await.ok();
            if let Some(set) = set.upgrade() {
                set.handles.borrow_mut().remove(id);
            }
            out
        }
    }

    /// Stops every task, and every task registered later.
    pub(crate) fn abort_all(&self) {
        self.closed.set(true);
        for (_, handle) in self.handles.borrow_mut().drain() {
            handle.abort();
        }
    }

    /// Tasks still running.
    pub(crate) fn running(&self) -> usize {
        self.handles.borrow().len()
    }
}
