//! What a test reads back: the hub's sockets and frames, the events and log lines, and whether a
//! crash point froze the host.

use serde_json::Value;

use super::state::FakeHost;
use crate::event::Event;
use crate::host_types::LogLevel;

impl FakeHost {
    /// Whether a crash point was reached and the test has not "restarted" yet.
    pub fn is_frozen(&self) -> bool {
        self.state.frozen.get()
    }

    /// Hub sockets the core asked to open, newest last: (socket, url, not closed since).
    pub fn hub_sockets(&self) -> Vec<(u64, String, bool)> {
        self.state.hub_sockets.borrow().clone()
    }

    /// The newest hub socket.
    pub fn last_hub_socket(&self) -> Option<u64> {
        self.state.hub_sockets.borrow().last().map(|(s, _, _)| *s)
    }

    /// Hub frames sent so far, parsed — registrations left out (see `hub_registrations`).
    pub fn hub_frames(&self) -> Vec<Value> {
        self.state.hub.borrow().iter().filter(|f| f["type"] != "registration").cloned().collect()
    }

    /// Registration frames sent so far.
    pub fn hub_registrations(&self) -> Vec<Value> {
        self.state.hub.borrow().iter().filter(|f| f["type"] == "registration").cloned().collect()
    }

    /// Hub responses of one type (`ack`, `reject`, `notification`).
    pub fn hub_responses(&self, kind: &str) -> Vec<Value> {
        self.hub_frames().into_iter().filter(|f| f["payload"]["type"] == kind).collect()
    }

    /// Events emitted so far.
    pub fn events(&self) -> Vec<Event> {
        self.state.events.borrow().clone()
    }

    /// Log lines so far.
    pub fn logs(&self) -> Vec<(LogLevel, String)> {
        self.state.logs.borrow().clone()
    }

    /// Forgets recorded requests, frames, events and logs (not files or the script).
    pub fn clear_records(&self) {
        self.state.requests.borrow_mut().clear();
        self.state.hub.borrow_mut().clear();
        self.state.events.borrow_mut().clear();
        self.state.logs.borrow_mut().clear();
    }
}
