//! The processor's side of the hub connection: it feeds socket events to the state machine
//! (`hub::client`), carries out the actions it returns, and sends every ack, reject and
//! notification through it (notifications built in one place, `notify_hub`). It keeps the hub's
//! memory of our message ids up to date (`hub::memory`: routed, answered, the connection changed).

use serde_json::Value;

use super::handle::MessageProcessor;
use crate::event::{Event, NoticeLevel};
use crate::host::Host;
use crate::host_types::LogLevel;
use crate::hub::bodies::answer_body;
use crate::hub::client::SETTINGS_SETTLE_MS;
use crate::hub::display::{Answer, Paced};
use crate::hub::frames::{notification_frame, shorten_to_plain_text};
use crate::hub::{HubAction, HubStatus, Priority, ResponseKind};
use crate::message::{MessageSource, RoutedMessage};
use crate::platform::platform_features;
use crate::settings::Settings;
use crate::time::parse_iso;

impl<H: Host + 'static> MessageProcessor<H> {
    /// A number in 0..1 for the backoff jitter.
    fn jitter(&self) -> f64 {
        (self.inner.host.random_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// (Re)configures the connection from the settings. A new name or description for a live
    /// connection is applied once the settings have not changed for [`SETTINGS_SETTLE_MS`]
    /// (typing a description must not re-register on every keystroke); anything else at once.
    pub(super) fn configure_hub(&self) {
        let generation = self.inner.hub.settings_changed();
        let config = self.hub_config();
        if !self.inner.hub.client.borrow().is_identity_change(&config) {
            return self.apply_hub_config();
        }
        self.spawn(|this| async move {
            this.inner.host.sleep(SETTINGS_SETTLE_MS).await;
            if this.inner.hub.settings_generation() == generation {
                this.apply_hub_config();
            }
        });
    }

    /// The hub connection to have: the settings', where this device has a hub to reach
    /// (`platform.rs`).
    fn hub_config(&self) -> Option<crate::hub::config::HubConfig> {
        let available = platform_features(self.inner.config.platform()).hub.available;
        self.settings().hub_config().filter(|_| available)
    }

    fn apply_hub_config(&self) {
        let config = self.hub_config();
        let now = self.inner.host.now_ms();
        let actions = self.inner.hub.client.borrow_mut().configure(config, now);
        self.hub_apply(actions);
    }

    /// The host's hub socket `socket` opened.
    pub fn hub_opened(&self, socket: u64) {
        let now = self.inner.host.now_ms();
        let actions = self.inner.hub.client.borrow_mut().on_open(socket, now);
        self.hub_apply(actions);
    }

    /// A text frame arrived on hub socket `socket`.
    pub fn hub_frame(&self, socket: u64, text: &str) {
        let (now, random) = (self.inner.host.now_ms(), self.jitter());
        let actions = self.inner.hub.client.borrow_mut().on_frame(socket, text, now, random);
        self.hub_apply(actions);
    }

    /// Hub socket `socket` closed, failed to open, or was dropped; `why` is for the status line.
    pub fn hub_closed(&self, socket: u64, why: &str) {
        let (now, random) = (self.inner.host.now_ms(), self.jitter());
        let actions = self.inner.hub.client.borrow_mut().on_close(socket, now, random, why);
        self.hub_apply(actions);
    }

    /// The hub connection's status and its detail.
    pub fn hub_status(&self) -> (HubStatus, Option<String>) {
        self.inner.hub.status()
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
    /// notification sent after reconnecting may never be shown. So is an answer whose message was
    /// routed before the connection was lost, when no id routed since can carry it: it is sent
    /// all the same (a hub that only lost the connection still shows it).
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
        let answer = Answer {
            message_id: message_id.to_owned(),
            request: request.to_owned(),
            text: text.to_owned(),
            priority,
            message_at,
        };
        if self.inner.hub.status().0 != HubStatus::Connected {
            return self.notify_while_away(answer, title);
        }
        if !self.inner.hub.memory.borrow().can_show(message_id) {
            host.log(
                LogLevel::Info,
                &format!("the hub may not know {message_id} (routed before the connection was lost); its answer is shown in Obsidian and sent anyway"),
            );
            self.show_in_obsidian(request, &answer_body(text));
        }
        self.pace(answer, title);
    }

    /// Offers an answer to the pacer, on the live connection, and does what it says.
    fn pace(&self, answer: Answer, title: &str) {
        let paced = {
            let memory = self.inner.hub.memory.borrow();
            self.inner.hub.pacer.borrow_mut().offer(answer, title, self.inner.host.now_ms(), &memory)
        };
        match paced {
            Paced::Now(ready) => {
                self.respond(&ready.message_id, ResponseKind::Notification, ready.frame, ready.message_at)
            }
            Paced::WakeAt(at) => self.pace_at(at),
            Paced::Waiting => {}
        }
    }

    /// An answer while the hub is away (or off): shown in Obsidian and logged unless the hub is
    /// off, and kept for the next registration (the state machine drops it if off).
    fn notify_while_away(&self, answer: Answer, title: &str) {
        let body = answer_body(&answer.text);
        let message_id = &answer.message_id;
        if self.inner.hub.status().0 != HubStatus::Disabled {
            self.inner.host.log(
                LogLevel::Info,
                &format!("the hub is not connected; the answer to {message_id} is shown in Obsidian and sent after reconnecting"),
            );
            self.show_in_obsidian(&answer.request, &body);
        }
        let frame = notification_frame(message_id, title, &body, answer.priority);
        self.respond(message_id, ResponseKind::Notification, frame, answer.message_at);
    }

    /// The notice that shows an answer the hub may not show.
    fn show_in_obsidian(&self, request: &str, body: &str) {
        let request = shorten_to_plain_text(request, 60);
        self.inner.host.emit(&Event::Notice {
            level: NoticeLevel::Info,
            text: format!("SmartHole hub unavailable. Answer to “{request}”: {body}"),
        });
    }

    /// Sends the oldest answers that waited for a display slot at `at`, and wakes again while
    /// more wait.
    fn pace_at(&self, at: u64) {
        let delay = at.saturating_sub(self.inner.host.now_ms());
        self.spawn(|this| async move {
            this.inner.host.sleep(delay).await;
            let title = this.settings().notification_title.clone();
            let now = this.inner.host.now_ms();
            let due = {
                let memory = this.inner.hub.memory.borrow();
                this.inner.hub.pacer.borrow_mut().due(&title, now, &memory)
            };
            match due {
                Ok(Some(ready)) => {
                    this.respond(&ready.message_id, ResponseKind::Notification, ready.frame, ready.message_at);
                    let next = this.inner.hub.pacer.borrow().next_wake(now);
                    if let Some(next) = next {
                        this.pace_at(next);
                    }
                }
                Ok(None) => {}
                Err(later) => this.pace_at(later),
            }
        });
    }

    /// A hub message that failed for a passing reason and waits to be tried again: the hub says
    /// what the chat says (`wait`), never to try again later (the user would send it twice); the
    /// answer follows when it comes. Only while connected (queued, it would arrive stale after a
    /// reconnect), and with no notice of its own: Obsidian's notice of the wait says it already.
    pub(super) fn notify_hub_of_retry(&self, message: &RoutedMessage, wait: &str) {
        if !message.from_hub() || self.inner.hub.status().0 != HubStatus::Connected {
            return;
        }
        let answer = Answer {
            message_id: message.id.clone(),
            request: message.text.clone(),
            text: format!("{wait}."),
            priority: Priority::Normal,
            message_at: message_time(&self.inner.host, message),
        };
        self.pace(answer, &self.settings().notification_title);
    }

    /// The connection was lost or registered anew: the hub (maybe a restarted one) knows none of
    /// the ids routed before. Lost, the answers waiting for a display slot are shown in Obsidian
    /// now and kept for the next registration, as any answer ready while the hub is away.
    fn connection_changed(&self, status: HubStatus) {
        self.inner.hub.memory.borrow_mut().connection_changed();
        if status == HubStatus::Connected {
            return;
        }
        let waiting = self.inner.hub.pacer.borrow_mut().take_waiting();
        let title = self.settings().notification_title.clone();
        for answer in waiting {
            self.notify_while_away(answer, &title);
        }
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
                    let delay = at_ms.saturating_sub(host.now_ms());
                    self.spawn(|this| async move {
                        this.inner.host.sleep(delay).await;
                        this.hub_timer(at_ms);
                    });
                }
                HubAction::Status { status, detail } => {
                    self.connection_changed(status);
                    host.emit(&Event::HubStatus { status, detail });
                }
                HubAction::Deliver(mut payload) => {
                    if let Some(id) = payload.get("id").and_then(Value::as_str) {
                        self.inner.hub.memory.borrow_mut().routed(id);
                    }
                    payload.insert("source".to_owned(), Value::String(MessageSource::Websocket.as_str().to_owned()));
                    let work = self.accept(Value::Object(payload));
                    self.spawn(|_| async move {
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
