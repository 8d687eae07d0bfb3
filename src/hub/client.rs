//! The hub connection as a state machine that never touches a socket: the processor feeds it
//! socket events and the time, and carries out the actions it returns (connect, send, close,
//! wake me at…). Reconnects back off 1 s doubling to 30 s with jitter and reset after a successful
//! registration; the registration failures that would repeat forever stop the retries and say
//! what to change; notifications produced while disconnected wait for the next registration.

use std::collections::VecDeque;

use serde::Serialize;

use super::config::HubConfig;
use super::frames::{oversized_message_id, parse_inbound, registration, FrameError, Inbound};
use crate::host_types::{LogLevel, Millis};

/// First reconnect delay.
pub(crate) const BACKOFF_START_MS: Millis = 1_000;
/// Longest reconnect delay.
pub(crate) const BACKOFF_MAX_MS: Millis = 30_000;
/// How long the hub may take to answer a registration.
pub(crate) const REGISTRATION_TIMEOUT_MS: Millis = 10_000;
/// How long a socket may take to open before the attempt counts as failed (a socket to an
/// address that drops packets may otherwise stay "connecting" for minutes).
pub(crate) const CONNECT_TIMEOUT_MS: Millis = 10_000;
/// How old a message may be for its notification still to be worth sending after a reconnect
/// (the hub only remembers recent message ids).
pub(crate) const NOTIFICATION_MAX_AGE_MS: Millis = 10 * 60_000;
/// Most responses kept while disconnected.
const OUTBOX_LIMIT: usize = 100;
/// Longest wait for the close of the socket that held our name before registering on the new
/// one anyway: the hub frees a name only once it has handled the old socket's close.
pub(crate) const CLOSE_WAIT_MS: Millis = 2_000;
/// How long after our own registration ended a `DUPLICATE_NAME` for the same name is taken as
/// the hub still holding our previous connection (retried), not another app (permanent).
pub(crate) const OWN_NAME_GRACE_MS: Millis = 10_000;
/// First retry after such a `DUPLICATE_NAME`; doubles up to [`NAME_RETRY_MAX_MS`].
const NAME_RETRY_START_MS: Millis = 250;
const NAME_RETRY_MAX_MS: Millis = 2_000;
/// How long the client name and description must stay unchanged before a connected client
/// registers again with them (the settings tab applies a change on every keystroke).
pub(crate) const SETTINGS_SETTLE_MS: Millis = 1_000;

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

#[derive(Debug, Clone, PartialEq)]
enum Phase {
    /// Not configured or disabled.
    Off,
    /// Socket asked for, not open yet.
    Connecting {
        socket: u64,
        deadline: Millis,
    },
    /// Open; registration held back until the previous connection's close is reported (or
    /// `deadline`).
    Opened {
        socket: u64,
        deadline: Millis,
    },
    /// Open; registration sent.
    Registering {
        socket: u64,
        deadline: Millis,
    },
    Registered {
        socket: u64,
    },
    /// Waiting to reconnect.
    Waiting {
        until: Millis,
    },
    /// Refused for good until the settings change.
    Stopped,
}

#[derive(Debug, Clone)]
struct Queued {
    message_id: String,
    frame: String,
    message_at: Millis,
}

/// The connection state.
#[derive(Debug)]
pub(crate) struct HubClient {
    config: Option<HubConfig>,
    phase: Phase,
    next_socket: u64,
    /// Connection attempts failed since the last successful registration.
    failures: u32,
    outbox: VecDeque<Queued>,
    /// Acks a full outbox could not keep, by message: the hub still waits for each, so one goes
    /// ahead of its message's notification whenever that comes (at most `OUTBOX_LIMIT`; a
    /// message stopped before its answer leaves one here until newer ones push it out).
    owed_acks: VecDeque<Queued>,
    status: (HubStatus, Option<String>),
    /// The socket closed because the user turned the connection off or changed its settings: a
    /// message that was already on its way on it is refused rather than silently lost.
    closing: Option<u64>,
    /// The socket that held our name, closed by a settings change, whose close the host has not
    /// reported yet: the next registration waits for it.
    releasing: Option<u64>,
    /// The name our last registration held and when it ended: a `DUPLICATE_NAME` for it soon
    /// after is our own previous connection, which the hub has not let go of yet.
    released: Option<(String, Millis)>,
    /// `DUPLICATE_NAME` retries since then.
    name_retries: u32,
}

/// The reason given to the hub for a routed message over the 1 MB frame limit.
pub(crate) const OVERSIZED_REJECT_REASON: &str = "the message is over 1 MB, more than Obsidian takes in one message";

/// The reason given to the hub for a message that arrived as the connection was being closed.
pub(crate) const CLOSING_REJECT_REASON: &str = "the SmartHole connection is being turned off in Obsidian";

impl Default for HubClient {
    fn default() -> Self {
        HubClient::new()
    }
}

/// The delay before reconnect attempt `failures` (1-based): 1 s doubling to 30 s, each within
/// ±20 % (`random` in 0..1), never over 30 s.
pub(crate) fn reconnect_delay(failures: u32, random: f64) -> Millis {
    let exponent = failures.saturating_sub(1).min(16);
    let base = BACKOFF_START_MS.saturating_mul(1 << exponent).min(BACKOFF_MAX_MS) as f64;
    let jittered = base * (0.8 + 0.4 * random.clamp(0.0, 1.0));
    (jittered as Millis).min(BACKOFF_MAX_MS)
}

/// What the user reads for a refusal that retrying cannot fix.
fn permanent_refusal(code: &str, config: &HubConfig) -> Option<String> {
    match code {
        "INVALID_NAME" => Some(format!(
            "The SmartHole hub refused the client name \"{}\". Use a name that starts with a letter and has only letters, digits, - and _ (Settings → SmartHole hub → Client name).",
            config.client_name
        )),
        "INVALID_DESCRIPTION" => Some(
            "The SmartHole hub refused the routing description: it must be 1 to 1024 characters as the hub counts them (most emoji count as two) (Settings → SmartHole hub → Routing description).".to_owned(),
        ),
        "DUPLICATE_NAME" => Some(format!(
            "Another app is already connected to the SmartHole hub as \"{}\". Choose another client name (Settings → SmartHole hub → Client name).",
            config.client_name
        )),
        _ => None,
    }
}

impl HubClient {
    /// A client that is off.
    pub(crate) fn new() -> Self {
        HubClient {
            config: None,
            phase: Phase::Off,
            next_socket: 1,
            failures: 0,
            outbox: VecDeque::new(),
            owed_acks: VecDeque::new(),
            status: (HubStatus::Disabled, None),
            closing: None,
            releasing: None,
            released: None,
            name_retries: 0,
        }
    }

    /// The status and its detail.
    pub(crate) fn status(&self) -> (HubStatus, Option<String>) {
        self.status.clone()
    }

    fn socket(&self) -> Option<u64> {
        match self.phase {
            Phase::Connecting { socket, .. }
            | Phase::Opened { socket, .. }
            | Phase::Registering { socket, .. }
            | Phase::Registered { socket } => Some(socket),
            _ => None,
        }
    }

    fn set_status(&mut self, status: HubStatus, detail: Option<String>, out: &mut Vec<HubAction>) {
        if self.status != (status, detail.clone()) {
            self.status = (status, detail.clone());
            out.push(HubAction::Status { status, detail });
        }
    }

    fn close(&mut self, out: &mut Vec<HubAction>) {
        if let Some(socket) = self.socket() {
            out.push(HubAction::Close { socket });
        }
    }

    fn connect(&mut self, now: Millis, out: &mut Vec<HubAction>) {
        let Some(config) = &self.config else { return };
        let socket = self.next_socket;
        self.next_socket += 1;
        out.push(HubAction::Connect { socket, url: config.url.clone() });
        let deadline = now + CONNECT_TIMEOUT_MS;
        self.phase = Phase::Connecting { socket, deadline };
        out.push(HubAction::Wake { at_ms: deadline });
        self.set_status(HubStatus::Connecting, None, out);
    }

    fn back_off(&mut self, now: Millis, random: f64, why: &str, out: &mut Vec<HubAction>) {
        self.failures += 1;
        let delay = reconnect_delay(self.failures, random);
        self.phase = Phase::Waiting { until: now + delay };
        out.push(HubAction::Wake { at_ms: now + delay });
        let detail = format!("{why}; retrying in {} s", delay.div_ceil(1000));
        self.set_status(HubStatus::Disconnected, Some(detail), out);
    }

    /// New settings: `None` turns the connection off. A change of URL, name or description
    /// reconnects and registers again; invalid settings stop with an error saying what to fix.
    pub(crate) fn configure(&mut self, config: Option<HubConfig>, now: Millis) -> Vec<HubAction> {
        let mut out = Vec::new();
        if config == self.config && self.phase != Phase::Off {
            return out;
        }
        if let (Phase::Registered { socket }, Some(old)) = (&self.phase, &self.config) {
            self.releasing = Some(*socket);
            self.released = Some((old.client_name.clone(), now));
        }
        self.name_retries = 0;
        self.closing = self.socket();
        self.close(&mut out);
        self.config = config;
        self.failures = 0;
        let Some(config) = self.config.clone() else {
            self.phase = Phase::Off;
            self.set_status(HubStatus::Disabled, None, &mut out);
            return out;
        };
        if let Err(e) = config.validate() {
            self.phase = Phase::Stopped;
            let text = format!("SmartHole hub settings: {e}.");
            out.push(HubAction::Notice(text.clone()));
            self.set_status(HubStatus::Error, Some(text), &mut out);
            return out;
        }
        self.connect(now, &mut out);
        out
    }

    /// The socket opened: register.
    pub(crate) fn on_open(&mut self, socket: u64, now: Millis) -> Vec<HubAction> {
        let mut out = Vec::new();
        let Phase::Connecting { socket: current, .. } = &self.phase else { return out };
        if *current != socket {
            return out;
        }
        if self.releasing.is_some() {
            // The hub still holds our name on the old socket until it has handled its close.
            let deadline = now + CLOSE_WAIT_MS;
            self.phase = Phase::Opened { socket, deadline };
            out.push(HubAction::Wake { at_ms: deadline });
            return out;
        }
        self.register(socket, now, &mut out);
        out
    }

    /// Sends the registration on an open socket.
    fn register(&mut self, socket: u64, now: Millis, out: &mut Vec<HubAction>) {
        let Some(config) = &self.config else { return };
        out.push(HubAction::Send {
            socket,
            frame: registration(&config.client_name, &config.description, &config.version),
        });
        let deadline = now + REGISTRATION_TIMEOUT_MS;
        self.phase = Phase::Registering { socket, deadline };
        out.push(HubAction::Wake { at_ms: deadline });
    }

    /// Whether a `DUPLICATE_NAME` now may be the hub still holding our own previous connection.
    fn own_name_may_linger(&self, now: Millis) -> bool {
        match (&self.released, &self.config) {
            (Some((name, at)), Some(config)) => {
                *name == config.client_name && now.saturating_sub(*at) <= OWN_NAME_GRACE_MS
            }
            _ => false,
        }
    }

    /// Whether `config` differs from the current one only in who we are (name, description,
    /// version) while a connection is kept: such a change waits for the settings to settle.
    pub(crate) fn is_identity_change(&self, config: &Option<HubConfig>) -> bool {
        let live = !matches!(self.phase, Phase::Off | Phase::Stopped);
        match (&self.config, config) {
            (Some(old), Some(new)) => live && old.url == new.url && old != new,
            _ => false,
        }
    }

    /// A text frame arrived.
    pub(crate) fn on_frame(&mut self, socket: u64, text: &str, now: Millis, random: f64) -> Vec<HubAction> {
        let mut out = Vec::new();
        if self.socket() != Some(socket) {
            if self.closing == Some(socket) {
                if let Ok(Inbound::Message(payload)) = parse_inbound(text) {
                    if let Some(id) = payload.get("id").and_then(|v| v.as_str()) {
                        let frame = super::frames::reject(id, CLOSING_REJECT_REASON);
                        out.push(HubAction::Send { socket, frame });
                    }
                }
            }
            return out;
        }
        let frame = match parse_inbound(text) {
            Ok(frame) => frame,
            Err(e @ FrameError::TooLarge(_)) => {
                out.push(HubAction::Log(LogLevel::Warn, format!("dropped a frame from the hub: {e}")));
                // The hub never re-delivers: refuse it by its id, if one can be read, so it is
                // not lost without a trace.
                if let (Some(id), Phase::Registered { .. }) = (oversized_message_id(text), &self.phase) {
                    out.push(HubAction::Send { socket, frame: super::frames::reject(id, OVERSIZED_REJECT_REASON) });
                }
                return out;
            }
            Err(e) => {
                out.push(HubAction::Log(LogLevel::Warn, format!("dropped a frame from the hub: {e}")));
                return out;
            }
        };
        match frame {
            Inbound::RegistrationResponse { success: true, client_id, .. } => {
                if !matches!(self.phase, Phase::Registering { .. }) {
                    out.push(HubAction::Log(LogLevel::Warn, "unexpected registration response; ignored".to_owned()));
                    return out;
                }
                self.phase = Phase::Registered { socket };
                self.failures = 0;
                self.name_retries = 0;
                self.released = None;
                out.push(HubAction::Log(
                    LogLevel::Info,
                    format!("registered with the hub as {}", client_id.unwrap_or_default()),
                ));
                self.set_status(HubStatus::Connected, None, &mut out);
                self.flush(socket, now, &mut out);
            }
            Inbound::RegistrationResponse { success: false, code, message, .. } => {
                let code = code.unwrap_or_default();
                if code == "DUPLICATE_NAME" && self.own_name_may_linger(now) {
                    // Our own previous connection, not yet let go of: try again shortly.
                    self.close(&mut out);
                    let delay =
                        NAME_RETRY_START_MS.saturating_mul(1 << self.name_retries.min(4)).min(NAME_RETRY_MAX_MS);
                    self.name_retries += 1;
                    self.phase = Phase::Waiting { until: now + delay };
                    out.push(HubAction::Wake { at_ms: now + delay });
                    out.push(HubAction::Log(
                        LogLevel::Info,
                        "the hub still holds our previous connection's name; registering again shortly".to_owned(),
                    ));
                    let detail = "waiting for the hub to let go of the previous connection".to_owned();
                    self.set_status(HubStatus::Connecting, Some(detail), &mut out);
                    return out;
                }
                let config = self.config.clone();
                match config.as_ref().and_then(|c| permanent_refusal(&code, c)) {
                    Some(text) => {
                        self.close(&mut out);
                        self.phase = Phase::Stopped;
                        out.push(HubAction::Notice(text.clone()));
                        self.set_status(HubStatus::Error, Some(text), &mut out);
                    }
                    None => {
                        self.close(&mut out);
                        let why = format!("registration refused ({code}: {})", message.unwrap_or_default());
                        self.back_off(now, random, &why, &mut out);
                    }
                }
            }
            Inbound::Message(payload) => {
                if matches!(self.phase, Phase::Registered { .. }) {
                    out.push(HubAction::Deliver(payload));
                } else {
                    out.push(HubAction::Log(
                        LogLevel::Warn,
                        "a message arrived before registration; ignored".to_owned(),
                    ));
                }
            }
        }
        out
    }

    /// The socket closed (or never opened, or the hub dropped it without a close frame).
    pub(crate) fn on_close(&mut self, socket: u64, now: Millis, random: f64, why: &str) -> Vec<HubAction> {
        let mut out = Vec::new();
        if self.releasing == Some(socket) {
            self.releasing = None;
            if let Phase::Opened { socket: current, .. } = self.phase {
                self.register(current, now, &mut out);
            }
            return out;
        }
        if self.socket() != Some(socket) {
            return out;
        }
        if let (Phase::Registered { .. }, Some(config)) = (&self.phase, &self.config) {
            self.released = Some((config.client_name.clone(), now));
        }
        self.back_off(now, random, why, &mut out);
        out
    }

    /// The wake-up asked for `due`: reconnect when the wait is over; give up on a registration
    /// the hub never answered.
    pub(crate) fn on_timer(&mut self, now: Millis, due: Millis, random: f64) -> Vec<HubAction> {
        let mut out = Vec::new();
        match self.phase {
            Phase::Waiting { until } if now >= until => self.connect(now, &mut out),
            Phase::Connecting { deadline, .. } if now >= deadline => {
                self.close(&mut out);
                self.back_off(now, random, "the hub did not accept the connection", &mut out);
            }
            Phase::Opened { socket, deadline } if now >= deadline => {
                // The old socket's close was never reported: register anyway (a refusal for our
                // own name is retried).
                self.releasing = None;
                self.register(socket, now, &mut out);
            }
            Phase::Registering { deadline, .. } if now >= deadline => {
                self.close(&mut out);
                self.back_off(now, random, "the hub did not answer the registration", &mut out);
            }
            // The wake for the current wait, come before it is over by the wall clock (a timer
            // may fire a moment early): wake again at its end, or the reconnect would wait for
            // a wake that never comes. A wake left from an earlier phase is spent.
            Phase::Waiting { until: at }
            | Phase::Connecting { deadline: at, .. }
            | Phase::Opened { deadline: at, .. }
            | Phase::Registering { deadline: at, .. }
                if at == due =>
            {
                out.push(HubAction::Wake { at_ms: at })
            }
            _ => {}
        }
        out
    }

    /// A response about a message. Sent at once when registered; otherwise it waits for the next
    /// registration, in order, so a message's ack still goes before its notification (the hub
    /// matches answers by client name and message id, not by connection, and keeps waiting for
    /// an ack across a reconnect). Off or stopped, it is dropped with a log line.
    pub(crate) fn respond(
        &mut self,
        message_id: &str,
        kind: ResponseKind,
        frame: String,
        message_at: Millis,
    ) -> Vec<HubAction> {
        let mut out = Vec::new();
        let owed = match kind {
            ResponseKind::Notification => self.take_owed_ack(message_id),
            _ => None,
        };
        let room = OUTBOX_LIMIT.saturating_sub(self.outbox.len());
        match (&self.phase, kind) {
            (Phase::Registered { socket }, _) => {
                if let Some(ack) = owed {
                    out.push(HubAction::Send { socket: *socket, frame: ack.frame });
                }
                out.push(HubAction::Send { socket: *socket, frame });
            }
            (Phase::Off | Phase::Stopped, _) => out
                .push(HubAction::Log(LogLevel::Info, format!("hub not connected; {kind:?} for {message_id} not sent"))),
            // Full: the newcomer goes, not a queued one, so a queued ack is never lost ahead of
            // its notification (the outbox only empties at the next registration). A dropped ack
            // is owed, and goes ahead of its notification later; a notification whose owed ack
            // has no room either waits with it.
            (_, _) if room < 1 + usize::from(owed.is_some()) => {
                match (kind, owed) {
                    (ResponseKind::Ack, _) => {
                        self.owe_ack(Queued { message_id: message_id.to_owned(), frame, message_at }, &mut out)
                    }
                    (_, Some(ack)) => self.owe_ack(ack, &mut out),
                    _ => {}
                }
                out.push(HubAction::Log(
                    LogLevel::Warn,
                    format!("{OUTBOX_LIMIT} responses wait for the hub; {kind:?} for {message_id} dropped"),
                ));
            }
            (_, _) => {
                if let Some(ack) = owed {
                    self.outbox.push_back(ack);
                }
                self.outbox.push_back(Queued { message_id: message_id.to_owned(), frame, message_at });
            }
        }
        out
    }

    /// Remembers an ack the outbox had no room for, forgetting the oldest beyond the limit.
    fn owe_ack(&mut self, ack: Queued, out: &mut Vec<HubAction>) {
        if self.owed_acks.len() >= OUTBOX_LIMIT {
            if let Some(old) = self.owed_acks.pop_front() {
                out.push(HubAction::Log(LogLevel::Warn, format!("forgot the owed ack for {}", old.message_id)));
            }
        }
        self.owed_acks.push_back(ack);
    }

    /// The ack still owed for a message, if a full outbox dropped it.
    fn take_owed_ack(&mut self, message_id: &str) -> Option<Queued> {
        let at = self.owed_acks.iter().position(|q| q.message_id == message_id)?;
        self.owed_acks.remove(at)
    }

    /// Sends the responses that waited, in order, those still recent; drops the others, saying so.
    /// The processor ages every response about a message by that message's own time, so its ack
    /// and its notification are sent or dropped together.
    fn flush(&mut self, socket: u64, now: Millis, out: &mut Vec<HubAction>) {
        for queued in self.outbox.drain(..) {
            if now.saturating_sub(queued.message_at) <= NOTIFICATION_MAX_AGE_MS {
                out.push(HubAction::Send { socket, frame: queued.frame });
            } else {
                out.push(HubAction::Log(
                    LogLevel::Info,
                    format!("the response for {} is too old to send after reconnecting; dropped", queued.message_id),
                ));
            }
        }
    }

    /// Responses waiting for a connection.
    #[cfg(test)]
    pub(crate) fn queued_responses(&self) -> usize {
        self.outbox.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hub::config::DEFAULT_HUB_URL;

    fn config(name: &str) -> HubConfig {
        HubConfig {
            url: DEFAULT_HUB_URL.into(),
            client_name: name.into(),
            description: "notes".into(),
            version: "1".into(),
        }
    }

    const OK: &str = r#"{"type":"registration_response","payload":{"success":true,"clientId":"c1"}}"#;

    fn refused(code: &str) -> String {
        format!(r#"{{"type":"registration_response","payload":{{"success":false,"code":"{code}","message":"no"}}}}"#)
    }

    fn sockets(actions: &[HubAction]) -> Vec<u64> {
        actions
            .iter()
            .filter_map(|a| if let HubAction::Connect { socket, .. } = a { Some(*socket) } else { None })
            .collect()
    }

    fn wake(actions: &[HubAction]) -> Option<Millis> {
        actions.iter().find_map(|a| if let HubAction::Wake { at_ms } = a { Some(*at_ms) } else { None })
    }

    /// Connects and registers; returns the socket.
    fn registered(client: &mut HubClient, now: Millis) -> u64 {
        let s = sockets(&client.configure(Some(config("obsidian")), 0))[0];
        client.on_open(s, now);
        client.on_frame(s, OK, now, 0.5);
        assert_eq!(client.status().0, HubStatus::Connected);
        s
    }

    #[test]
    fn backoff_doubles_to_thirty_seconds_within_the_jitter() {
        for (failures, base) in [(1, 1_000), (2, 2_000), (3, 4_000), (4, 8_000), (5, 16_000), (6, 30_000), (40, 30_000)]
        {
            assert_eq!(reconnect_delay(failures, 0.5), base, "{failures}");
            let low = reconnect_delay(failures, 0.0);
            let high = reconnect_delay(failures, 1.0);
            assert_eq!(low, base * 4 / 5);
            assert_eq!(high, (base * 6 / 5).min(BACKOFF_MAX_MS));
        }
    }

    #[test]
    fn a_dropped_connection_reconnects_with_backoff_reset_by_registration() {
        let mut c = HubClient::new();
        let mut now = 0;
        let s = registered(&mut c, now);
        // Dropped: wait 1 s, then a failing hub: 2 s, 4 s…
        let mut socket = s;
        for expected in [1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000] {
            let out = c.on_close(socket, now, 0.5, "connection lost");
            assert_eq!(c.status().0, HubStatus::Disconnected);
            let at = wake(&out).expect("a wake-up");
            assert_eq!(at - now, expected);
            assert!(c.on_timer(at - 1, at - 1, 0.5).is_empty(), "not before its time");
            now = at;
            let out = c.on_timer(now, now, 0.5);
            socket = sockets(&out)[0];
            assert_eq!(c.status().0, HubStatus::Connecting);
        }
        // A successful registration resets the backoff.
        c.on_open(socket, now);
        c.on_frame(socket, OK, now, 0.5);
        let out = c.on_close(socket, now, 0.5, "lost");
        assert_eq!(wake(&out).unwrap() - now, 1_000);
    }

    #[test]
    fn a_wake_that_comes_a_moment_early_wakes_again_and_a_stale_one_is_spent() {
        // The soak once stalled for good here: Node fired the reconnect timer a millisecond
        // before `Date.now()` reached it, and nothing woke the client again.
        let mut c = HubClient::new();
        let s = registered(&mut c, 0);
        let at = wake(&c.on_close(s, 0, 0.5, "connection lost")).expect("a wake-up");
        let early = c.on_timer(at - 1, at, 0.5);
        assert_eq!(early, vec![HubAction::Wake { at_ms: at }], "woken early: wake again, nothing else");
        assert!(c.on_timer(at - 1, at / 2, 0.5).is_empty(), "a wake for an earlier phase is spent");
        let s2 = sockets(&c.on_timer(at, at, 0.5))[0];
        assert_ne!(s, s2);
        assert_eq!(c.status().0, HubStatus::Connecting);
        // The same holds for the connection's own deadline.
        let deadline = at + CONNECT_TIMEOUT_MS;
        assert_eq!(c.on_timer(deadline - 1, deadline, 0.5), vec![HubAction::Wake { at_ms: deadline }]);
        assert!(c.on_timer(deadline, deadline, 0.5).contains(&HubAction::Close { socket: s2 }));
    }

    #[test]
    fn permanent_refusals_stop_retrying_and_say_what_to_change() {
        for code in ["INVALID_NAME", "INVALID_DESCRIPTION", "DUPLICATE_NAME"] {
            let mut c = HubClient::new();
            let s = sockets(&c.configure(Some(config("obsidian")), 0))[0];
            c.on_open(s, 0);
            let out = c.on_frame(s, &refused(code), 0, 0.5);
            assert!(out.contains(&HubAction::Close { socket: s }), "{code}");
            assert!(wake(&out).is_none(), "{code}: no retry");
            let (status, detail) = c.status();
            assert_eq!(status, HubStatus::Error);
            assert!(detail.unwrap().contains("Settings"), "{code}");
            assert!(out.iter().any(|a| matches!(a, HubAction::Notice(_))));
            assert!(c.on_timer(1_000_000, 1_000_000, 0.5).is_empty());
            // Changing the name registers again.
            let out = c.configure(Some(config("obsidian2")), 0);
            assert_eq!(sockets(&out).len(), 1, "{code}");
        }
        for code in ["ALREADY_REGISTERED", "VALIDATION_ERROR"] {
            let mut c = HubClient::new();
            let s = sockets(&c.configure(Some(config("obsidian")), 0))[0];
            c.on_open(s, 0);
            let out = c.on_frame(s, &refused(code), 0, 0.5);
            assert_eq!(wake(&out), Some(1_000), "{code} is retried");
        }
    }

    #[test]
    fn invalid_settings_never_reach_the_hub() {
        let mut c = HubClient::new();
        let out = c.configure(Some(config("9lives")), 0);
        assert!(sockets(&out).is_empty());
        assert_eq!(c.status().0, HubStatus::Error);
        assert!(c.status().1.unwrap().contains("must start with a letter"));
    }

    #[test]
    fn changing_name_or_description_registers_again_and_disabling_closes() {
        let mut c = HubClient::new();
        let s = registered(&mut c, 0);
        assert!(c.configure(Some(config("obsidian")), 0).is_empty(), "same settings: nothing to do");
        let mut changed = config("obsidian");
        changed.description = "different".into();
        let out = c.configure(Some(changed), 0);
        assert_eq!(out[0], HubAction::Close { socket: s });
        let s2 = sockets(&out)[0];
        // Issue 16: the registration waits for the old socket's close (the hub frees the name then).
        assert!(frames(&c.on_open(s2, 0)).is_empty(), "not registered before the old socket closed");
        let out = c.on_close(s, 0, 0.5, "closed");
        assert!(matches!(&out[0], HubAction::Send { frame, .. } if frame.contains("different")));
        let out = c.configure(None, 0);
        assert!(out.contains(&HubAction::Close { socket: s2 }));
        assert_eq!(c.status().0, HubStatus::Disabled);
        assert!(c.on_close(s2, 0, 0.5, "closed").is_empty(), "a closed socket's events are ignored");
        // A message already on its way on the closing socket is refused, with a reason.
        let out = c.on_frame(s2, r#"{"type":"message","payload":{"id":"late","text":"hi"}}"#, 0, 0.5);
        assert!(
            matches!(&out[..], [HubAction::Send { socket, frame }] if *socket == s2 && frame.contains("\"reject\"") && frame.contains("turned off"))
        );
    }

    #[test]
    fn an_unanswered_registration_is_abandoned_and_retried() {
        let mut c = HubClient::new();
        let s = sockets(&c.configure(Some(config("obsidian")), 0))[0];
        let out = c.on_open(s, 0);
        assert_eq!(wake(&out), Some(REGISTRATION_TIMEOUT_MS));
        let out = c.on_timer(REGISTRATION_TIMEOUT_MS, REGISTRATION_TIMEOUT_MS, 0.5);
        assert!(out.contains(&HubAction::Close { socket: s }));
        assert_eq!(wake(&out), Some(REGISTRATION_TIMEOUT_MS + 1_000));
    }

    #[test]
    fn a_socket_that_never_opens_is_given_up_and_retried() {
        let mut c = HubClient::new();
        let out = c.configure(Some(config("obsidian")), 0);
        let s = sockets(&out)[0];
        assert_eq!(wake(&out), Some(CONNECT_TIMEOUT_MS));
        assert!(c.on_timer(CONNECT_TIMEOUT_MS - 1, CONNECT_TIMEOUT_MS - 1, 0.5).is_empty(), "still within its time");
        let out = c.on_timer(CONNECT_TIMEOUT_MS, CONNECT_TIMEOUT_MS, 0.5);
        assert!(out.contains(&HubAction::Close { socket: s }));
        assert_eq!(wake(&out), Some(CONNECT_TIMEOUT_MS + 1_000));
        let retry = c.on_timer(CONNECT_TIMEOUT_MS + 1_000, CONNECT_TIMEOUT_MS + 1_000, 0.5);
        assert_eq!(sockets(&retry), [s + 1]);
        assert!(
            c.on_open(s, CONNECT_TIMEOUT_MS + 1_001).is_empty(),
            "the abandoned socket opening late changes nothing"
        );
    }

    #[test]
    fn stale_sockets_and_bad_frames_are_ignored() {
        let mut c = HubClient::new();
        let s = registered(&mut c, 0);
        assert!(c.on_frame(s + 7, r#"{"type":"message","payload":{"id":"x","text":"y"}}"#, 0, 0.5).is_empty());
        for bad in ["not json", r#"{"type":"message","payload":"x"}"#, r#"{"type":"mystery","payload":{}}"#] {
            let out = c.on_frame(s, bad, 0, 0.5);
            assert!(matches!(&out[..], [HubAction::Log(LogLevel::Warn, _)]), "{bad}");
        }
        assert_eq!(c.status().0, HubStatus::Connected, "still connected");
        let out = c.on_frame(s, r#"{"type":"message","payload":{"id":"m1","text":"hi"}}"#, 0, 0.5);
        assert!(matches!(&out[..], [HubAction::Deliver(p)] if p["id"] == "m1"));
    }

    #[test]
    fn responses_wait_for_the_next_registration_in_order_if_still_recent() {
        let mut c = HubClient::new();
        let s = registered(&mut c, 0);
        c.on_close(s, 0, 0.5, "lost");
        assert!(c.respond("old", ResponseKind::Ack, "a-old".into(), 0).is_empty());
        assert!(c.respond("old", ResponseKind::Notification, "n-old".into(), 0).is_empty());
        assert!(c.respond("new", ResponseKind::Ack, "a-new".into(), 9 * 60_000).is_empty());
        assert!(c.respond("new", ResponseKind::Notification, "n-new".into(), 9 * 60_000).is_empty());
        assert_eq!(c.queued_responses(), 4);
        let now = 11 * 60_000;
        let s2 = sockets(&c.on_timer(now, now, 0.5))[0];
        c.on_open(s2, now);
        let out = c.on_frame(s2, OK, now, 0.5);
        let sent: Vec<&str> = out
            .iter()
            .filter_map(|a| if let HubAction::Send { frame, .. } = a { Some(frame.as_str()) } else { None })
            .collect();
        assert_eq!(sent, ["a-new", "n-new"], "the ack first; the 11-minute-old message's responses are dropped");
        assert!(out.iter().any(|a| matches!(a, HubAction::Log(_, l) if l.contains("too old"))));
        assert_eq!(c.queued_responses(), 0);
        assert_eq!(
            c.respond("x", ResponseKind::Ack, "ack".into(), now),
            [HubAction::Send { socket: s2, frame: "ack".into() }]
        );
        // Off, nothing is kept.
        c.configure(None, now);
        assert!(matches!(&c.respond("y", ResponseKind::Ack, "ack".into(), now)[..], [HubAction::Log(..)]));
        assert_eq!(c.queued_responses(), 0);
    }

    fn frames(actions: &[HubAction]) -> Vec<&str> {
        actions
            .iter()
            .filter_map(|a| if let HubAction::Send { frame, .. } = a { Some(frame.as_str()) } else { None })
            .collect()
    }

    /// Disconnected with a full outbox, then registered again: what waited is sent.
    fn fill_then_drop_an_ack(c: &mut HubClient) {
        let s = registered(c, 0);
        c.on_close(s, 0, 0.5, "lost");
        for i in 0..OUTBOX_LIMIT {
            c.respond(&format!("m{i}"), ResponseKind::Ack, format!("a-m{i}"), 0);
        }
        let out = c.respond("late", ResponseKind::Ack, "a-late".into(), 0);
        assert!(matches!(&out[..], [HubAction::Log(LogLevel::Warn, l)] if l.contains("late")));
        // Its answer, still with no room: dropped too, and the ack is still owed.
        let out = c.respond("late", ResponseKind::Notification, "n-late-full".into(), 0);
        assert!(frames(&out).is_empty());
        let s2 = sockets(&c.on_timer(60_000, 60_000, 0.5))[0];
        c.on_open(s2, 60_000);
        let flushed = c.on_frame(s2, OK, 60_000, 0.5);
        assert_eq!(frames(&flushed).len(), OUTBOX_LIMIT);
        assert!(!frames(&flushed).iter().any(|f| f.contains("late")));
    }

    #[test]
    fn an_ack_a_full_outbox_dropped_goes_ahead_of_its_answer_sent_live() {
        let mut c = HubClient::new();
        fill_then_drop_an_ack(&mut c);
        let out = c.respond("late", ResponseKind::Notification, "n-late".into(), 60_000);
        assert_eq!(frames(&out), ["a-late", "n-late"]);
        let out = c.respond("late", ResponseKind::Notification, "n-again".into(), 60_000);
        assert_eq!(frames(&out), ["n-again"], "owed once");
    }

    #[test]
    fn an_ack_a_full_outbox_dropped_waits_ahead_of_its_answer_in_the_next_outbox() {
        let mut c = HubClient::new();
        fill_then_drop_an_ack(&mut c);
        let s = sockets(&c.on_timer(60_000, 60_000, 0.5)).first().copied();
        assert!(s.is_none(), "registered: no new socket");
        let socket = match c.phase {
            Phase::Registered { socket } => socket,
            ref other => panic!("not registered: {other:?}"),
        };
        c.on_close(socket, 60_000, 0.5, "lost again");
        assert!(c.respond("late", ResponseKind::Notification, "n-late".into(), 60_000).is_empty());
        assert_eq!(c.queued_responses(), 2);
        let s3 = sockets(&c.on_timer(120_000, 120_000, 0.5))[0];
        c.on_open(s3, 120_000);
        assert_eq!(frames(&c.on_frame(s3, OK, 120_000, 0.5)), ["a-late", "n-late"]);
    }

    #[test]
    fn a_full_outbox_keeps_what_waits_and_drops_the_newcomer() {
        let mut c = HubClient::new();
        let s = registered(&mut c, 0);
        c.on_close(s, 0, 0.5, "lost");
        c.respond("first", ResponseKind::Ack, "a-first".into(), 0);
        for i in 1..OUTBOX_LIMIT {
            c.respond(&format!("m{i}"), ResponseKind::Ack, format!("a-m{i}"), 0);
        }
        // Full: the queued ack of "first" stays; the newcomers go, ack and notification alike.
        let out = c.respond("first", ResponseKind::Notification, "n-first".into(), 0);
        assert!(matches!(&out[..], [HubAction::Log(LogLevel::Warn, l)] if l.contains("first")));
        c.respond("last", ResponseKind::Ack, "a-last".into(), 0);
        c.respond("last", ResponseKind::Notification, "n-last".into(), 0);
        assert_eq!(c.queued_responses(), OUTBOX_LIMIT);
        let s2 = sockets(&c.on_timer(60_000, 60_000, 0.5))[0];
        c.on_open(s2, 60_000);
        let out = c.on_frame(s2, OK, 60_000, 0.5);
        let sent: Vec<&str> = out
            .iter()
            .filter_map(|a| if let HubAction::Send { frame, .. } = a { Some(frame.as_str()) } else { None })
            .collect();
        assert_eq!(sent.len(), OUTBOX_LIMIT);
        assert_eq!(sent.first(), Some(&"a-first"));
        assert_eq!(sent.last().copied(), Some(format!("a-m{}", OUTBOX_LIMIT - 1).as_str()));
    }

    #[test]
    fn a_new_registration_waits_for_the_old_sockets_close_or_two_seconds() {
        let mut c = HubClient::new();
        let s = registered(&mut c, 0);
        let mut changed = config("obsidian");
        changed.description = "new words".into();
        let s2 = sockets(&c.configure(Some(changed), 0))[0];
        let out = c.on_open(s2, 10);
        assert!(frames(&out).is_empty());
        assert_eq!(wake(&out), Some(10 + CLOSE_WAIT_MS));
        assert!(frames(&c.on_timer(10 + CLOSE_WAIT_MS - 1, 10 + CLOSE_WAIT_MS - 1, 0.5)).is_empty());
        let out = c.on_timer(10 + CLOSE_WAIT_MS, 10 + CLOSE_WAIT_MS, 0.5);
        assert!(matches!(frames(&out)[..], [f] if f.contains("new words")), "registered anyway: {out:?}");
        // The old socket's close, reported late, changes nothing.
        assert!(c.on_close(s, 3_000, 0.5, "closed").is_empty());
        c.on_frame(s2, OK, 3_000, 0.5);
        assert_eq!(c.status().0, HubStatus::Connected);
    }

    #[test]
    fn duplicate_name_for_our_own_previous_connection_is_retried_then_permanent() {
        let mut c = HubClient::new();
        let s = registered(&mut c, 0);
        let mut changed = config("obsidian");
        changed.description = "again".into();
        let s2 = sockets(&c.configure(Some(changed), 0))[0];
        c.on_close(s, 0, 0.5, "closed");
        c.on_open(s2, 0);
        // The hub has not handled the old close yet: our own name is "taken".
        let mut now = 5;
        let mut socket = s2;
        let mut delays = Vec::new();
        loop {
            let out = c.on_frame(socket, &refused("DUPLICATE_NAME"), now, 0.5);
            if c.status().0 == HubStatus::Error {
                assert!(out.iter().any(|a| matches!(a, HubAction::Notice(t) if t.contains("Another app"))));
                break;
            }
            assert_eq!(c.status().0, HubStatus::Connecting, "not an error while it may be ourselves");
            let at = wake(&out).expect("a retry");
            delays.push(at - now);
            now = at;
            socket = sockets(&c.on_timer(now, now, 0.5))[0];
            assert!(!frames(&c.on_open(socket, now)).is_empty(), "registers at once: nothing to wait for");
        }
        assert_eq!(&delays[..5], [250, 500, 1_000, 2_000, 2_000]);
        assert!(
            now > OWN_NAME_GRACE_MS && now <= OWN_NAME_GRACE_MS + NAME_RETRY_MAX_MS + 5,
            "gave up after the grace: {now}"
        );
        // Once the hub lets go, it registers.
        let mut c = HubClient::new();
        let s = registered(&mut c, 0);
        c.on_close(s, 100, 0.5, "connection lost");
        let s2 = sockets(&c.on_timer(1_100, 1_100, 0.5))[0];
        c.on_open(s2, 1_100);
        let out = c.on_frame(s2, &refused("DUPLICATE_NAME"), 1_100, 0.5);
        let s3 = sockets(&c.on_timer(wake(&out).unwrap(), wake(&out).unwrap(), 0.5))[0];
        c.on_open(s3, 1_400);
        c.on_frame(s3, OK, 1_400, 0.5);
        assert_eq!(c.status().0, HubStatus::Connected);
    }

    #[test]
    fn only_a_live_connection_waits_for_identity_changes_to_settle() {
        let mut c = HubClient::new();
        let mut other = config("obsidian");
        other.description = "x".into();
        assert!(!c.is_identity_change(&Some(other.clone())), "off: apply at once");
        registered(&mut c, 0);
        assert!(c.is_identity_change(&Some(other.clone())));
        assert!(!c.is_identity_change(&Some(config("obsidian"))), "unchanged");
        let mut moved = other.clone();
        moved.url = "ws://127.0.0.1:1".into();
        assert!(!c.is_identity_change(&Some(moved)), "a new address is not debounced");
        assert!(!c.is_identity_change(&None), "turning off is not debounced");
    }
}
