//! [`HubClient`], the connection as a state machine: its phases (off, connecting, opened,
//! registering, registered, waiting to reconnect, stopped), configured from the settings and
//! driven by the socket's opening and closing and by the wake-ups it asked for. Frames in are
//! `inbound.rs`, responses out `outbox.rs`.

use std::collections::VecDeque;

use super::actions::{HubAction, HubStatus};
use super::policy::{reconnect_delay, CLOSE_WAIT_MS, CONNECT_TIMEOUT_MS, OWN_NAME_GRACE_MS, REGISTRATION_TIMEOUT_MS};
use crate::host_types::Millis;
use crate::hub::config::HubConfig;
use crate::hub::frames::registration;

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Phase {
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
pub(super) struct Queued {
    pub(super) message_id: String,
    pub(super) frame: String,
    pub(super) message_at: Millis,
}

/// The connection state.
#[derive(Debug)]
pub(crate) struct HubClient {
    pub(super) config: Option<HubConfig>,
    pub(super) phase: Phase,
    pub(super) next_socket: u64,
    /// Connection attempts failed since the last successful registration.
    pub(super) failures: u32,
    pub(super) outbox: VecDeque<Queued>,
    /// Acks a full outbox could not keep, by message: the hub still waits for each, so one goes
    /// ahead of its message's notification whenever that comes (at most `OUTBOX_LIMIT`; a
    /// message stopped before its answer leaves one here until newer ones push it out).
    pub(super) owed_acks: VecDeque<Queued>,
    pub(super) status: (HubStatus, Option<String>),
    /// The socket closed because the user turned the connection off or changed its settings: a
    /// message that was already on its way on it is refused rather than silently lost.
    pub(super) closing: Option<u64>,
    /// The socket that held our name, closed by a settings change, whose close the host has not
    /// reported yet: the next registration waits for it.
    pub(super) releasing: Option<u64>,
    /// The name our last registration held and when it ended: a `DUPLICATE_NAME` for it soon
    /// after is our own previous connection, which the hub has not let go of yet.
    pub(super) released: Option<(String, Millis)>,
    /// `DUPLICATE_NAME` retries since then.
    pub(super) name_retries: u32,
}

impl Default for HubClient {
    fn default() -> Self {
        HubClient::new()
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

    pub(super) fn socket(&self) -> Option<u64> {
        match self.phase {
            Phase::Connecting { socket, .. }
            | Phase::Opened { socket, .. }
            | Phase::Registering { socket, .. }
            | Phase::Registered { socket } => Some(socket),
            _ => None,
        }
    }

    pub(super) fn set_status(&mut self, status: HubStatus, detail: Option<String>, out: &mut Vec<HubAction>) {
        if self.status != (status, detail.clone()) {
            self.status = (status, detail.clone());
            out.push(HubAction::Status { status, detail });
        }
    }

    pub(super) fn close(&mut self, out: &mut Vec<HubAction>) {
        if let Some(socket) = self.socket() {
            out.push(HubAction::Close { socket });
        }
    }

    pub(super) fn connect(&mut self, now: Millis, out: &mut Vec<HubAction>) {
        let Some(config) = &self.config else { return };
        let socket = self.next_socket;
        self.next_socket += 1;
        out.push(HubAction::Connect { socket, url: config.url.clone() });
        let deadline = now + CONNECT_TIMEOUT_MS;
        self.phase = Phase::Connecting { socket, deadline };
        out.push(HubAction::Wake { at_ms: deadline });
        self.set_status(HubStatus::Connecting, None, out);
    }

    pub(super) fn back_off(&mut self, now: Millis, random: f64, why: &str, out: &mut Vec<HubAction>) {
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
    pub(super) fn register(&mut self, socket: u64, now: Millis, out: &mut Vec<HubAction>) {
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
    pub(super) fn own_name_may_linger(&self, now: Millis) -> bool {
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
}
