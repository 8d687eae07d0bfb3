//! Frames from the hub: the registration's answer (registered, refused for good, or our own
//! previous name not let go yet), a routed message handed on (or refused: too large, or arriving
//! as the connection closes), and everything else ignored with a log line.

use super::actions::{HubAction, HubStatus};
use super::machine::{HubClient, Phase};
use super::policy::{
    permanent_refusal, CLOSING_REJECT_REASON, NAME_RETRY_MAX_MS, NAME_RETRY_START_MS, OVERSIZED_REJECT_REASON,
};
use crate::host_types::{LogLevel, Millis};
use crate::hub::frames::{oversized_message_id, parse_inbound, FrameError, Inbound};

impl HubClient {
    /// A text frame arrived.
    pub(crate) fn on_frame(&mut self, socket: u64, text: &str, now: Millis, random: f64) -> Vec<HubAction> {
        let mut out = Vec::new();
        if self.socket() != Some(socket) {
            if self.closing == Some(socket) {
                if let Ok(Inbound::Message(payload)) = parse_inbound(text) {
                    if let Some(id) = payload.get("id").and_then(|v| v.as_str()) {
                        let frame = crate::hub::frames::reject(id, CLOSING_REJECT_REASON);
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
                    out.push(HubAction::Send {
                        socket,
                        frame: crate::hub::frames::reject(id, OVERSIZED_REJECT_REASON),
                    });
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
}
