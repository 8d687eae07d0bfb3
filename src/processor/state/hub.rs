//! The hub connection as the pipeline keeps it: the state machine (`hub::client`), the pacer of
//! notifications (`hub::display`), the ids the hub still knows (`hub::memory`), the last message
//! answered with a notification, and the generation of the settings it was configured from.

use std::cell::{Cell, RefCell};

use crate::hub::display::Pacer;
use crate::hub::memory::HubMemory;
use crate::hub::{HubAction, HubClient, HubStatus, ResponseKind};

/// The hub connection: its state machine, and the last hub message answered with a
/// notification (scheduled runs notify the hub as its answer; a message the user stopped is
/// never one).
#[derive(Default)]
pub(crate) struct HubLink {
    pub(crate) client: RefCell<HubClient>,
    last_notified: RefCell<Option<String>>,
    /// Notifications paced to the hub's display limits.
    pub(crate) pacer: RefCell<Pacer>,
    /// The message ids the hub still knows.
    pub(crate) memory: RefCell<HubMemory>,
    /// Bumped by every settings change, so a delayed re-registration applies only the last one.
    settings_generation: Cell<u64>,
}

impl HubLink {
    /// A settings change: returns its generation.
    pub(crate) fn settings_changed(&self) -> u64 {
        self.settings_generation.set(self.settings_generation.get() + 1);
        self.settings_generation.get()
    }

    /// The newest settings change's generation.
    pub(crate) fn settings_generation(&self) -> u64 {
        self.settings_generation.get()
    }

    /// A response about a message, handed to the state machine; returns its actions. An ack or
    /// reject sent on the live connection makes its id one a notification may go under.
    pub(crate) fn respond(
        &self,
        message_id: &str,
        kind: ResponseKind,
        frame: String,
        message_at: u64,
    ) -> Vec<HubAction> {
        if kind == ResponseKind::Notification {
            *self.last_notified.borrow_mut() = Some(message_id.to_owned());
        }
        let actions = self.client.borrow_mut().respond(message_id, kind, frame, message_at);
        if kind != ResponseKind::Notification && actions.iter().any(|a| matches!(a, HubAction::Send { .. })) {
            self.memory.borrow_mut().answered(message_id);
        }
        actions
    }

    /// The last hub message answered with a notification, if any this session.
    pub(crate) fn last_notified(&self) -> Option<String> {
        self.last_notified.borrow().clone()
    }

    /// The connection's status and its detail.
    pub(crate) fn status(&self) -> (HubStatus, Option<String>) {
        self.client.borrow().status()
    }
}
