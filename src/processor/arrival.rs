//! A message's arrival: checked, written to the inbox (before anything else happens), acked to
//! the hub, given its place in line, then run. A message already in flight is shared, not run
//! twice; one an earlier run left in the inbox continues as a new attempt, and one out of
//! attempts — or whose runs took the app down twice — is set aside in `failed/`. At start-up,
//! `reprocess_pending` does the same for everything a previous session left.

use std::future::Future;

use futures::future::{Either, FutureExt};
use serde::Serialize;
use serde_json::Value;

use super::error::ProcessorError;
use super::failure::{MOVED_TO_FAILED, STORAGE_ERROR};
use super::handle::MessageProcessor;
use super::hub::message_time;
use super::state::{SharedResult, Ticket};
use crate::event::{Event, NoticeLevel, Stage};
use crate::host::Host;
use crate::host_types::{HostError, LogLevel};
use crate::hub::frames::{ack, reject};
use crate::hub::ResponseKind;
use crate::ids::new_id;
use crate::inbox::{self, InboxEntry, Pending, MAX_ATTEMPTS, MAX_CRASHED_RUNS};
use crate::journal::{crashed_runs, Journal};
use crate::message::{id_of, parse_routed, ProcessResult, RoutedMessage, DIRECT_ID_PREFIX, INVALID_MESSAGE};
use crate::store::StoreError;
use crate::time::format_iso;

/// What `reprocessPending()` did.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReprocessSummary {
    /// Results of the left-over messages, oldest first (those out of attempts with the code
    /// `moved_to_failed`).
    pub results: Vec<ProcessResult>,
    /// Unreadable inbox files set aside in `failed/`.
    pub moved_to_failed: Vec<String>,
}

impl<H: Host + 'static> MessageProcessor<H> {
    /// Takes a message (a `RoutedMessage` as JSON). The ticket in line is taken now, so messages
    /// run in the order of these calls. The result has the configured secrets hidden.
    pub fn process(&self, raw: Value) -> impl Future<Output = ProcessResult> + 'static {
        let work = self.accept(raw);
        let this = self.clone();
        async move {
            let mut result = work.await;
            result.mask_texts(&|text| this.inner.config.mask_in_place(text));
            result
        }
    }

    /// A message the user typed, with an id minted here (`direct-` and 64 random bits from the
    /// host) and the current time: the views pass it to `process`, and resend it for Retry.
    pub fn new_message(&self, text: &str) -> RoutedMessage {
        let host = &self.inner.host;
        RoutedMessage::direct(new_id(host, DIRECT_ID_PREFIX), text.to_owned(), format_iso(host.now_ms()))
    }

    /// Number of messages waiting behind the one in flight.
    pub fn queued(&self) -> usize {
        self.inner.run.waiting()
    }

    /// The id of the message being processed, if any.
    pub fn current_message_id(&self) -> Option<String> {
        self.inner.run.current_id()
    }

    /// Finishes every message a previous session left in the inbox, oldest first; corrupt files
    /// and messages out of attempts go to `failed/` with the reason.
    pub async fn reprocess_pending(&self) -> Result<ReprocessSummary, ProcessorError> {
        self.initialize().await?;
        let host = &self.inner.host;
        let pending = inbox::list_pending(host).await.map_err(StoreError::from)?;
        let mut summary = ReprocessSummary::default();
        let mut runs = Vec::new();
        for item in pending {
            match item {
                Pending::Corrupt { file, reason, raw } => {
                    host.log(LogLevel::Warn, &format!("inbox file {file} is unreadable: {reason}"));
                    let moved = inbox::move_to_failed(host, &file, None, Some(&raw), &reason).await;
                    let notice =
                        |path: &str| format!("An unreadable inbox file was set aside in .smarthole/{path}: {reason}");
                    self.set_aside(&file, moved, notice, &mut summary);
                }
                Pending::Oversized { file, reason } => {
                    host.log(LogLevel::Warn, &format!("inbox file {file} is not read: {reason}"));
                    let moved = inbox::move_oversized_to_failed(host, &file, &reason).await;
                    let notice = |path: &str| {
                        format!("An inbox file too large to read was set aside in .smarthole/{path}: {reason}")
                    };
                    self.set_aside(&file, moved, notice, &mut summary);
                }
                Pending::Entry(entry) => {
                    if self.inner.inbox.is_in_flight(&entry.message.id) {
                        continue;
                    }
                    let ticket = self.inner.run.ticket();
                    let (id, conversation) = (entry.message.id.clone(), entry.message.named_conversation());
                    runs.push(self.track(id, conversation, |this| this.resume(entry, ticket, true).boxed_local()));
                }
            }
        }
        for run in runs {
            summary.results.push(run.await);
        }
        summary.results.iter_mut().for_each(|result| result.mask_texts(&|text| self.inner.config.mask_in_place(text)));
        Ok(summary)
    }

    /// An inbox file that could not be read, moved to `failed/` (or not): the user is told where
    /// (`notice` of its new path).
    fn set_aside(
        &self,
        file: &str,
        moved: Result<String, HostError>,
        notice: impl FnOnce(&str) -> String,
        summary: &mut ReprocessSummary,
    ) {
        let host = &self.inner.host;
        match moved {
            Ok(path) => {
                host.emit(&Event::Notice { level: NoticeLevel::Warning, text: notice(&path) });
                summary.moved_to_failed.push(path);
            }
            Err(e) => host.log(LogLevel::Error, &format!("could not move {file} to failed/: {e}")),
        }
    }

    /// A message in, unmasked (the processor's own sources — the hub, the worker, the agent
    /// API — take it so): refused when invalid, shared when already in flight, else tracked.
    pub(super) fn accept(&self, raw: Value) -> impl Future<Output = ProcessResult> + 'static {
        let host = &self.inner.host;
        let message = match parse_routed(&raw, &format_iso(host.now_ms())) {
            Ok(message) => message,
            Err(invalid) => {
                let id = id_of(&raw).unwrap_or("").to_owned();
                let from_hub = raw.get("source").and_then(Value::as_str) == Some("websocket");
                if from_hub && !id.is_empty() {
                    self.respond(&id, ResponseKind::Reject, reject(&id, &invalid.to_string()), host.now_ms());
                }
                host.log(LogLevel::Warn, &format!("refused a message: {invalid}"));
                let result = ProcessResult::failure(&id, INVALID_MESSAGE, format!("Message refused: {invalid}."));
                host.emit(&Event::Response { result: result.clone(), conversation_id: None });
                return Either::Left(futures::future::ready(result));
            }
        };
        Either::Right(self.accept_message(message))
    }

    /// A message made or checked here, in: shared when already in flight, else tracked.
    pub(super) fn accept_message(&self, message: RoutedMessage) -> impl Future<Output = ProcessResult> + 'static {
        let host = &self.inner.host;
        let existing: Option<SharedResult> = self.inner.inbox.in_flight(&message.id);
        if let Some(existing) = existing {
            if message.from_hub() {
                self.respond(&message.id, ResponseKind::Ack, ack(&message.id), message_time(host, &message));
            }
            return Either::Left(existing);
        }
        let ticket = self.inner.run.ticket();
        let (id, conversation) = (message.id.clone(), message.named_conversation());
        Either::Right(self.track(id, conversation, |this| this.arrive(message, ticket).boxed_local()))
    }

    /// Arrival: inbox, ack, then wait in line and run.
    async fn arrive(self, message: RoutedMessage, ticket: Ticket) -> ProcessResult {
        let host = &self.inner.host;
        if let Err(e) = self.initialize().await {
            return self.refuse_unstored(&message, &e.to_string());
        }
        let left_over = self.inner.inbox.is_on_disk(&message.id);
        let earlier = if left_over { self.load_entry(&message.id).await } else { None };
        let entry = match earlier {
            // Left by an earlier run: this delivery continues it as a new attempt.
            Some(entry) => match self.next_attempt(entry).await {
                Ok(entry) => entry,
                Err(set_aside) => return set_aside,
            },
            None => {
                let entry = InboxEntry::new(message.clone(), host.now_ms());
                let saved = match self.inner.inbox.take_slot() {
                    Some(slot) => inbox::slots::save_into(host, &slot, &entry).await,
                    None => inbox::save(host, &entry).await,
                };
                self.make_slots();
                if let Err(e) = saved {
                    return self.refuse_unstored(&message, &e.to_string());
                }
                entry
            }
        };
        host.emit(&Event::stage(&message, Stage::InboxWritten));
        if message.from_hub() {
            self.respond(&message.id, ResponseKind::Ack, ack(&message.id), message_time(host, &message));
            host.emit(&Event::stage(&message, Stage::AckSent));
        }
        host.emit(&Event::MessageReceived { conversation_id: message.named_conversation(), message });
        ticket.wait().await;
        self.run(entry).await
    }

    /// Runs a left-over message as a new attempt. A hub message is acked again first: the run
    /// that saved it may have died before its ack left, and the hub, which matches answers by
    /// client name and message id rather than by connection, still waits for one before the
    /// answer (an ack that did leave is repeated; the hub takes it as the same answer).
    pub(super) async fn resume(self, entry: InboxEntry, ticket: Ticket, ack_again: bool) -> ProcessResult {
        let id = entry.message.id.clone();
        let message = entry.message.clone();
        let entry = match self.next_attempt(entry).await {
            Ok(entry) => entry,
            Err(set_aside) => return set_aside,
        };
        let host = &self.inner.host;
        if ack_again && message.from_hub() {
            self.respond(&id, ResponseKind::Ack, ack(&id), message_time(host, &message));
            host.emit(&Event::stage(&message, Stage::AckSent));
        }
        host.emit(&Event::MessageReceived { conversation_id: message.named_conversation(), message });
        ticket.wait().await;
        self.run(entry).await
    }

    /// Keeps slots ready for the next messages' entries (inbox/slots.rs), made in the background
    /// after a message takes one (or finds none): never at start-up, where they would share the
    /// plugin's load; those of the last session are still there.
    pub(super) fn make_slots(&self) {
        for _ in 0..self.inner.inbox.slots_to_make(inbox::slots::SLOTS_READY) {
            self.spawn(|this| async move {
                let host = &this.inner.host;
                let path = inbox::slots::new_slot_path(host);
                let (slot, error) = match inbox::slots::make(host, &path).await {
                    Ok(()) => (Some(path), None),
                    Err(e) => (None, Some(e)),
                };
                if let (true, Some(e)) = (this.inner.inbox.slot_made(slot), error) {
                    host.log(
                        LogLevel::Warn,
                        &format!("could not make an inbox slot: {e} (not logged again until one is made)"),
                    );
                }
            });
        }
    }

    /// A message that could not be made durable is refused, not processed.
    fn refuse_unstored(&self, message: &RoutedMessage, why: &str) -> ProcessResult {
        let host = &self.inner.host;
        host.log(LogLevel::Error, &format!("could not save message {} to the inbox: {why}", message.id));
        if message.from_hub() {
            let frame = reject(&message.id, "the plugin could not save the message");
            self.respond(&message.id, ResponseKind::Reject, frame, host.now_ms());
        }
        ProcessResult::failure(
            &message.id,
            STORAGE_ERROR,
            format!("Could not save the message ({why}). Check that the vault folder is writable, then send it again."),
        )
    }

    /// The inbox entry of a message, if the inbox holds a readable one.
    pub(super) async fn load_entry(&self, message_id: &str) -> Option<InboxEntry> {
        inbox::load(&self.inner.host, message_id).await
    }

    /// Counts a new attempt of a left-over message, or moves it to `failed/` when it has had
    /// all of them, or when its runs took the app down twice. Returns the entry to run, or the
    /// result of a message set aside.
    async fn next_attempt(&self, mut entry: InboxEntry) -> Result<InboxEntry, ProcessResult> {
        let host = &self.inner.host;
        let journal = Journal::new(host, &entry.message.id).load().await.unwrap_or_default();
        let crashed = crashed_runs(&journal, entry.failures);
        let why = if crashed >= MAX_CRASHED_RUNS {
            Some(format!(
                "working on it stopped the app or the agent's core {crashed} times before it finished (a crash, or the app closed); it is not run again, so it cannot do that at every start"
            ))
        } else if entry.attempts >= MAX_ATTEMPTS {
            Some(format!(
                "it failed {} times; last error: {}",
                entry.attempts,
                entry.last_error.as_deref().unwrap_or("the plugin stopped while processing it")
            ))
        } else {
            None
        };
        if let Some(why) = why {
            self.give_up(&entry, &why).await;
            let text = format!("This message was set aside in .smarthole/failed/: {why}.");
            return Err(ProcessResult::failure(&entry.message.id, MOVED_TO_FAILED, text));
        }
        entry.attempts += 1;
        if let Err(e) = inbox::save(host, &entry).await {
            host.log(
                LogLevel::Warn,
                &format!("could not count attempt {} of {}: {e}", entry.attempts, entry.message.id),
            );
        }
        Ok(entry)
    }
}
