//! The inbox as the pipeline tracks it in memory: which messages are being processed (a
//! re-delivery waits for the same result) and which inbox files an earlier run left (a crash or a
//! failure: a re-delivery of one continues that file instead of starting over).

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use futures::future::{LocalBoxFuture, Shared};

use crate::ids::file_stem;
use crate::message::{InFlightMessage, ProcessResult};

/// A message's processing, shared by every delivery of it that waits for the result.
pub(crate) type SharedResult = Shared<LocalBoxFuture<'static, ProcessResult>>;

/// The messages in flight and the inbox files left by earlier runs.
#[derive(Default)]
pub(crate) struct InboxState {
    /// By message id.
    inflight: RefCell<HashMap<String, SharedResult>>,
    /// By file stem.
    on_disk: RefCell<HashSet<String>>,
    /// Those the chat view is told of, in arrival order: in flight and not stopped.
    listed: RefCell<Vec<InFlightMessage>>,
    /// Empty inbox files ready for new messages' entries (inbox/slots.rs), and how many more
    /// are being made.
    slots: RefCell<Vec<String>>,
    slots_coming: std::cell::Cell<usize>,
    /// The last slot tried could not be made: a failing disk is logged once, not once a slot.
    slots_failing: std::cell::Cell<bool>,
}

impl InboxState {
    /// The processing of a message already under way, to share.
    pub(crate) fn in_flight(&self, message_id: &str) -> Option<SharedResult> {
        self.inflight.borrow().get(message_id).cloned()
    }

    /// Whether a message is being processed (queued or running).
    pub(crate) fn is_in_flight(&self, message_id: &str) -> bool {
        self.inflight.borrow().contains_key(message_id)
    }

    /// A message's processing began: re-deliveries share `result`.
    pub(crate) fn started(&self, message_id: String, conversation_id: Option<String>, result: SharedResult) {
        self.listed.borrow_mut().push(InFlightMessage { message_id: message_id.clone(), conversation_id });
        self.inflight.borrow_mut().insert(message_id, result);
    }

    /// A message's processing ended.
    pub(crate) fn finished(&self, message_id: &str) {
        self.inflight.borrow_mut().remove(message_id);
        self.unlist(message_id);
    }

    /// The messages in flight the chat view is told of, oldest first.
    pub(crate) fn listed(&self) -> Vec<InFlightMessage> {
        self.listed.borrow().clone()
    }

    /// A message stopped: no longer listed, though its run may take a moment to end.
    pub(crate) fn unlist(&self, message_id: &str) {
        self.listed.borrow_mut().retain(|m| m.message_id != message_id);
    }

    /// Notes the inbox's files (by stem) found at start-up.
    pub(crate) fn found_on_disk(&self, stems: impl IntoIterator<Item = String>) {
        self.on_disk.borrow_mut().extend(stems);
    }

    /// A file for this message was left in the inbox by an earlier run.
    pub(crate) fn is_on_disk(&self, message_id: &str) -> bool {
        self.on_disk.borrow().contains(&file_stem(message_id))
    }

    /// The message stays in the inbox (its run failed or could not be recorded).
    pub(crate) fn kept_on_disk(&self, message_id: &str) {
        self.on_disk.borrow_mut().insert(file_stem(message_id));
    }

    /// The message's file left the inbox (cleaned up or moved to `failed/`).
    pub(crate) fn removed_from_disk(&self, message_id: &str) {
        self.on_disk.borrow_mut().remove(&file_stem(message_id));
    }

    /// A ready slot for a new message's entry, if there is one.
    pub(crate) fn take_slot(&self) -> Option<String> {
        self.slots.borrow_mut().pop()
    }

    /// How many slots to make now to keep `ready` of them: those neither ready nor coming.
    pub(crate) fn slots_to_make(&self, ready: usize) -> usize {
        let wanted = ready.saturating_sub(self.slots.borrow().len() + self.slots_coming.get());
        self.slots_coming.set(self.slots_coming.get() + wanted);
        wanted
    }

    /// A slot being made is ready (`Some`), or could not be made; true for the first that could
    /// not since one was made (the one to log: a failing disk fails every slot of every message).
    pub(crate) fn slot_made(&self, slot: Option<String>) -> bool {
        self.slots_coming.set(self.slots_coming.get().saturating_sub(1));
        let failed = slot.is_none();
        self.slots.borrow_mut().extend(slot);
        let was_failing = self.slots_failing.replace(failed);
        failed && !was_failing
    }

    /// Slots found ready at start-up.
    pub(crate) fn slots_found(&self, slots: Vec<String>) {
        self.slots.borrow_mut().extend(slots);
    }
}
