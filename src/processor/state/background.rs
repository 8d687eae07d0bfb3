//! The processor's own work between messages: whether the periodic work (cleanup, worker, hub)
//! has started, the background conversations by the time of their next run, and the lock that
//! serialises read-modify-writes of `retrospection.md`.

use std::cell::{Cell, RefCell};

use futures::lock::Mutex;

use crate::host_types::Millis;
use crate::schedule::Timeline;

/// The periodic work's flag, the schedules' timeline, the retrospection file's lock.
#[derive(Default)]
pub(crate) struct Background {
    started: Cell<bool>,
    timeline: RefCell<Timeline>,
    pub(crate) retrospection_file: Mutex<()>,
}

impl Background {
    /// Whether the periodic work has started.
    pub(crate) fn started(&self) -> bool {
        self.started.get()
    }

    /// Marks the periodic work started; true only the first time.
    pub(crate) fn start_once(&self) -> bool {
        !self.started.replace(true)
    }

    /// Puts a conversation at its next run on the timeline, or takes it off.
    pub(crate) fn set_next_run(&self, conversation: &str, next: Option<Millis>) {
        self.timeline.borrow_mut().set(conversation, next);
    }

    /// The conversations due at `now`.
    pub(crate) fn due(&self, now: Millis) -> Vec<String> {
        self.timeline.borrow().due(now)
    }
}
