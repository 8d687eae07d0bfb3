//! Which message ids the hub still knows. The hub keeps its last 100 deliveries (to all its
//! clients) in memory only and drops a response about a message it no longer knows — an old one,
//! or any routed before it restarted. The plugin sees only its own deliveries and cannot tell a
//! restarted hub from a lost connection, so it counts an id as known while it was routed on the
//! current connection and fewer than [`KNOWN_WITHIN`] deliveries reached it since (the rest of
//! the hub's memory is left for other clients' messages, which it cannot see). A notification
//! about an id the hub may have forgotten goes under the newest id it knows and has had our answer
//! (ack or reject) for instead — the hub shows a notification whatever message it names, and takes
//! a message's notifications after its ack. Plain bookkeeping, no I/O.

use std::collections::VecDeque;

/// How many of our own latest deliveries count as known to the hub, of the 100 it remembers.
pub(crate) const KNOWN_WITHIN: usize = 80;

#[derive(Debug)]
struct Delivery {
    id: String,
    /// Its ack (or reject) went out on this connection.
    answered: bool,
}

/// The latest messages the hub routed here on the current connection, oldest first.
#[derive(Debug, Default)]
pub(crate) struct HubMemory {
    deliveries: VecDeque<Delivery>,
}

impl HubMemory {
    /// A message the hub routed here (a re-delivery too: the hub records it anew).
    pub(crate) fn routed(&mut self, id: &str) {
        self.deliveries.push_back(Delivery { id: id.to_owned(), answered: false });
        if self.deliveries.len() > KNOWN_WITHIN {
            self.deliveries.pop_front();
        }
    }

    /// The ack (or reject) of `id` went out on the current connection.
    pub(crate) fn answered(&mut self, id: &str) {
        if let Some(delivery) = self.deliveries.iter_mut().rev().find(|d| d.id == id) {
            delivery.answered = true;
        }
    }

    /// The connection changed (lost, or registered anew): the hub may be a new one, knowing none
    /// of the ids routed before.
    pub(crate) fn connection_changed(&mut self) {
        self.deliveries.clear();
    }

    /// Whether the hub surely still knows `id`.
    pub(crate) fn knows(&self, id: &str) -> bool {
        self.deliveries.iter().any(|d| d.id == id)
    }

    /// The newest id the hub knows that we answered, if any.
    fn newest_answered(&self) -> Option<&str> {
        self.deliveries.iter().rev().find(|d| d.answered).map(|d| d.id.as_str())
    }

    /// Whether a notification about `id` would go under an id the hub knows (its own, or one
    /// routed on this connection).
    pub(crate) fn can_show(&self, id: &str) -> bool {
        self.knows(id) || !self.deliveries.is_empty()
    }

    /// The id a notification answering `ids` (oldest first) goes under: the newest of them the
    /// hub knows; else the newest id it knows that we answered; else, when it knows none, the
    /// newest of them (a hub that only lost the connection still shows it). `None`: wait, the
    /// ack of a message routed on this connection is about to go out.
    pub(crate) fn id_for<'a>(&'a self, ids: &[&'a str]) -> Option<&'a str> {
        if let Some(known) = ids.iter().rev().find(|id| self.knows(id)) {
            return Some(known);
        }
        if let Some(answered) = self.newest_answered() {
            return Some(answered);
        }
        if self.deliveries.is_empty() {
            ids.last().copied()
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_is_known_while_recent_on_this_connection_and_a_forgotten_one_goes_under_the_newest_acked() {
        let mut memory = HubMemory::default();
        for i in 0..110 {
            memory.routed(&format!("m{i}"));
        }
        assert_eq!(memory.id_for(&["m0"]), None, "forgotten, and no ack out yet: wait for one");
        assert!(memory.can_show("m0"));
        for i in 0..110 {
            memory.answered(&format!("m{i}"));
        }
        assert!(!memory.knows("m29"), "80 or more deliveries since");
        assert!(memory.knows("m30"));
        assert_eq!(memory.id_for(&["m0"]), Some("m109"), "forgotten: the newest acked instead");
        assert_eq!(memory.id_for(&["m0", "m50", "m1"]), Some("m50"), "the newest of them it knows");
        // Delivered again: known again.
        memory.routed("m0");
        assert_eq!(memory.id_for(&["m0"]), Some("m0"));
        // An id not acked is never a stand-in.
        memory.routed("m200");
        assert_eq!(memory.id_for(&["m1"]), Some("m109"));
        assert_eq!(memory.id_for(&["m200"]), Some("m200"), "its own id, known, acked or not");
    }

    #[test]
    fn after_the_connection_changed_nothing_from_before_is_known() {
        let mut memory = HubMemory::default();
        memory.routed("old");
        memory.answered("old");
        assert!(memory.can_show("old"));
        memory.connection_changed();
        assert!(!memory.knows("old"));
        assert!(!memory.can_show("old"), "no id to stand in");
        assert_eq!(memory.id_for(&["old"]), Some("old"), "sent under its own id all the same");
        memory.routed("new");
        assert_eq!(memory.id_for(&["old"]), None, "routed, its ack about to go out");
        assert!(memory.can_show("old"));
        memory.answered("new");
        assert_eq!(memory.id_for(&["old"]), Some("new"));
    }
}
