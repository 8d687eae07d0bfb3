//! Responses out: an ack, a reject or a notification is sent at once while registered, else
//! waits in the outbox for the next registration (in order, if still recent); an ack a full
//! outbox could not keep goes ahead of its message's notification.

use super::actions::{HubAction, ResponseKind};
use super::machine::{HubClient, Phase, Queued};
use super::policy::{NOTIFICATION_MAX_AGE_MS, OUTBOX_LIMIT};
use crate::host_types::{LogLevel, Millis};

impl HubClient {
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
    pub(super) fn owe_ack(&mut self, ack: Queued, out: &mut Vec<HubAction>) {
        if self.owed_acks.len() >= OUTBOX_LIMIT {
            if let Some(old) = self.owed_acks.pop_front() {
                out.push(HubAction::Log(LogLevel::Warn, format!("forgot the owed ack for {}", old.message_id)));
            }
        }
        self.owed_acks.push_back(ack);
    }

    /// The ack still owed for a message, if a full outbox dropped it.
    pub(super) fn take_owed_ack(&mut self, message_id: &str) -> Option<Queued> {
        let at = self.owed_acks.iter().position(|q| q.message_id == message_id)?;
        self.owed_acks.remove(at)
    }

    /// Sends the responses that waited, in order, those still recent; drops the others, saying so.
    /// The processor ages every response about a message by that message's own time, so its ack
    /// and its notification are sent or dropped together.
    pub(super) fn flush(&mut self, socket: u64, now: Millis, out: &mut Vec<HubAction>) {
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
