//! The state machine's words with the processor: the status it shows ([`HubStatus`]), the
//! actions it asks for ([`HubAction`]: connect, send, close, wake me at…, deliver a message, tell
//! the user) and the kinds of responses it carries ([`ResponseKind`]).

use serde::Serialize;

use crate::host_types::{LogLevel, Millis};

/// What the status bar shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HubStatus {
    Disabled,
    Disconnected,
    Connecting,
    Connected,
    Error,
}

/// What the processor must do for the connection.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum HubAction {
    /// Open socket `socket` to `url` (and forget any older one).
    Connect {
        socket: u64,
        url: String,
    },
    /// Close socket `socket`.
    Close {
        socket: u64,
    },
    /// Send a text frame on socket `socket`.
    Send {
        socket: u64,
        frame: String,
    },
    /// Call `on_timer` at this time.
    Wake {
        at_ms: Millis,
    },
    /// The status changed.
    Status {
        status: HubStatus,
        detail: Option<String>,
    },
    /// A routed message to process (its payload).
    Deliver(serde_json::Map<String, serde_json::Value>),
    /// The user must be told (a permanent refusal).
    Notice(String),
    Log(LogLevel, String),
}

/// Kinds of responses the processor sends about a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ResponseKind {
    Ack,
    Reject,
    Notification,
}
