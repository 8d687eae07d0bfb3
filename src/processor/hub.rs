//! The processor's side of the hub connection: it feeds socket events to the state machine
//! (`hub::client`), carries out the actions it returns, and sends every ack, reject and
//! notification through it (notifications built in one place, `notify_hub`).

use serde_json::Value;

use super::pipeline::Pipeline;
use crate::event::{Event, NoticeLevel};
use crate::host::Host;
use crate::hub::frames::notification;
use crate::hub::{HubAction, Priority, ResponseKind};
use crate::message::{MessageSource, RoutedMessage};
use crate::settings::Settings;
use crate::time::parse_iso;

impl<H: Host + 'static> Pipeline<H> {
    /// A number in 0..1 for the backoff jitter.
    fn jitter(&self) -> f64 {
        (self.inner.host.random_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// (Re)configures the connection from the settings.
    pub(super) fn configure_hub(&self) {
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

    fn hub_timer(&self) {
        let (now, random) = (self.inner.host.now_ms(), self.jitter());
        let actions = self.inner.hub.client.borrow_mut().on_timer(now, random);
        self.hub_apply(actions);
    }

    /// Sends (or keeps, or drops) a response about a message.
    pub(super) fn respond(&self, message_id: &str, kind: ResponseKind, frame: String, message_at: u64) {
        let actions = self.inner.hub.respond(message_id, kind, frame, message_at);
        self.hub_apply(actions);
    }

    /// Tells the hub about a message: `text` (Markdown) as a notification under the title in
    /// `settings` (the turn's own, for a turn). Every notification the processor and its tools
    /// send goes through here.
    pub(super) fn notify_hub(
        &self,
        settings: &Settings,
        message_id: &str,
        text: &str,
        priority: Priority,
        message_at: u64,
    ) {
        let frame = notification(message_id, &settings.notification_title, text, priority);
        self.respond(message_id, ResponseKind::Notification, frame, message_at);
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
                        this.hub_timer();
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
