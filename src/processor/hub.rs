//! The processor's side of the hub connection: it feeds socket events to the state machine
//! (`hub::client`), carries out the actions it returns, and sends every ack, reject and
//! notification through it (notifications built in one place, `notify_hub`).

use serde_json::Value;

use super::pipeline::Pipeline;
use crate::event::{Event, NoticeLevel};
use crate::host::Host;
use crate::host_types::LogLevel;
use crate::hub::client::SETTINGS_SETTLE_MS;
use crate::hub::display::{answer_body, Answer, Paced};
use crate::hub::frames::{notification_frame, shorten_to_plain_text};
use crate::hub::{HubAction, HubStatus, Priority, ResponseKind};
use crate::message::{MessageSource, RoutedMessage};
use crate::settings::Settings;
use crate::time::parse_iso;

impl<H: Host + 'static> Pipeline<H> {
    /// A number in 0..1 for the backoff jitter.
    fn jitter(&self) -> f64 {
        (self.inner.host.random_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// (Re)configures the connection from the settings. A new name or description for a live
    /// connection is applied once the settings have not changed for [`SETTINGS_SETTLE_MS`]
    /// (typing a description must not re-register on every keystroke); anything else at once.
    pub(super) fn configure_hub(&self) {
        let generation = self.inner.hub.settings_changed();
        let config = self.settings().hub_config();
        if !self.inner.hub.client.borrow().is_identity_change(&config) {
            return self.apply_hub_config();
        }
        let this = self.clone();
        self.spawn(async move {
            this.inner.host.sleep(SETTINGS_SETTLE_MS).await;
            if this.inner.hub.settings_generation() == generation {
                this.apply_hub_config();
            }
        });
    }

    fn apply_hub_config(&self) {
        let config = self.settings().hub_config();
        let now = self.inner.host.now_ms();
        let actions = self.inner.hub.client.borrow_mut().configure(config, now);
        self.hub_apply(actions);
    }

    pub(super) fn hub_opened(&self, socket: u64) {
        let now = self.inner.host.now_ms();
        let actions = self.inner.hub.client.borrow_mut().on_open(socket, now);
        self.hub_apply(actions);
    }

    pub(super) fn hub_frame(&self, socket: u64, text: &str) {
        let (now, random) = (self.inner.host.now_ms(), self.jitter());
        let actions = self.inner.hub.client.borrow_mut().on_frame(socket, text, now, random);
        self.hub_apply(actions);
    }

    pub(super) fn hub_closed(&self, socket: u64, why: &str) {
        let (now, random) = (self.inner.host.now_ms(), self.jitter());
        let actions = self.inner.hub.client.borrow_mut().on_close(socket, now, random, why);
        self.hub_apply(actions);
    }

    fn hub_timer(&self, due: u64) {
        let (now, random) = (self.inner.host.now_ms(), self.jitter());
        let actions = self.inner.hub.client.borrow_mut().on_timer(now, due, random);
        self.hub_apply(actions);
    }

    /// Sends (or keeps, or drops) a response about a message.
    pub(super) fn respond(&self, message_id: &str, kind: ResponseKind, frame: String, message_at: u64) {
        let actions = self.inner.hub.respond(message_id, kind, frame, message_at);
        self.hub_apply(actions);
    }

    /// Tells the hub about a message: `text` (Markdown) as a notification, titled and paced by
    /// `hub::display` so the hub's display queue shows every answer (`request` is the user's
    /// message, for titles and lists). Every notification the processor and its tools send goes
    /// through here. An answer ready while the hub is away is shown in Obsidian (a notice; the
    /// chat has it already) and logged: the hub forgets message ids when it restarts, so the
    /// notification sent after reconnecting may never be shown.
    pub(super) fn notify_hub(
        &self,
        settings: &Settings,
        message_id: &str,
        request: &str,
        text: &str,
        priority: Priority,
        message_at: u64,
    ) {
        let host = &self.inner.host;
        let title = &settings.notification_title;
        let status = self.inner.hub.status().0;
        if status != HubStatus::Connected {
            let body = answer_body(text);
            if status != HubStatus::Disabled {
                host.log(
                    LogLevel::Info,
                    &format!("the hub is not connected; the answer to {message_id} is shown in Obsidian and sent after reconnecting"),
                );
                let request = shorten_to_plain_text(request, 60);
                host.emit(&Event::Notice {
                    level: NoticeLevel::Info,
                    text: format!("SmartHole hub unavailable. Answer to “{request}”: {body}"),
                });
            }
            let frame = notification_frame(message_id, title, &body, priority);
            return self.respond(message_id, ResponseKind::Notification, frame, message_at);
        }
        let answer = Answer {
            message_id: message_id.to_owned(),
            request: request.to_owned(),
            text: text.to_owned(),
            priority,
            message_at,
        };
        let paced = self.inner.hub.pacer.borrow_mut().offer(answer, title, host.now_ms());
        match paced {
            Paced::Now(ready) => {
                self.respond(&ready.message_id, ResponseKind::Notification, ready.frame, ready.message_at)
            }
            Paced::WakeAt(at) => self.pace_at(at),
            Paced::Waiting => {}
        }
    }

    /// Sends the answers that waited for a display slot at `at`.
    fn pace_at(&self, at: u64) {
        let this = self.clone();
        let delay = at.saturating_sub(self.inner.host.now_ms());
        self.spawn(async move {
            this.inner.host.sleep(delay).await;
            let title = this.settings().notification_title.clone();
            let due = this.inner.hub.pacer.borrow_mut().due(&title, this.inner.host.now_ms());
            match due {
                Ok(Some(ready)) => {
                    this.respond(&ready.message_id, ResponseKind::Notification, ready.frame, ready.message_at)
                }
                Ok(None) => {}
                Err(later) => this.pace_at(later),
            }
        });
    }

    /// Carries out the state machine's actions. Called with no borrow of it held.
    fn hub_apply(&self, actions: Vec<HubAction>) {
        let host = &self.inner.host;
        for action in actions {
            match action {
                HubAction::Connect { socket, url } => host.hub_connect(socket, &url),
                HubAction::Close { socket } => host.hub_disconnect(socket),
                HubAction::Send { socket, frame } => host.hub_send(socket, frame),
                HubAction::Wake { at_ms } => {
                    let this = self.clone();
                    let delay = at_ms.saturating_sub(host.now_ms());
                    self.spawn(async move {
                        this.inner.host.sleep(delay).await;
                        this.hub_timer(at_ms);
                    });
                }
                HubAction::Status { status, detail } => host.emit(&Event::HubStatus { status, detail }),
                HubAction::Deliver(mut payload) => {
                    payload.insert("source".to_owned(), Value::String(MessageSource::Websocket.as_str().to_owned()));
                    let work = self.process(Value::Object(payload));
                    self.spawn(async move {
                        work.await;
                    });
                }
                HubAction::Notice(text) => host.emit(&Event::Notice { level: NoticeLevel::Error, text }),
                HubAction::Log(level, line) => host.log(level, &line),
            }
        }
    }
}

/// When a message was sent, for how recent its notification is (now, if its time is unreadable).
pub(super) fn message_time<H: Host>(host: &H, message: &RoutedMessage) -> u64 {
    parse_iso(&message.timestamp).unwrap_or_else(|| host.now_ms())
}
