//! A run that failed: the user is told (and the hub, unless the message waits to be tried
//! again), the failure is noted in the message's inbox file, and the message is either tried
//! again later in this session (a passing failure: 1 minute after its first attempt, doubling),
//! left for the next start, or — out of attempts, or refused as sent — set aside in `failed/`.

use futures::FutureExt;

use super::handle::MessageProcessor;
use super::hub::message_time;
use super::worker::target_of;
use crate::event::{Event, NoticeLevel};
use crate::host::Host;
use crate::host_types::LogLevel;
use crate::hub::frames::shorten_to_plain_text;
use crate::hub::Priority;
use crate::inbox::{self, InboxEntry, MAX_ATTEMPTS};
use crate::llm::LlmError;
use crate::message::ProcessResult;
use crate::store::Target;

/// Code of a failure to read or write the plugin's data folder.
pub(super) const STORAGE_ERROR: &str = "storage_error";
/// Code of a message given up on after all its attempts.
pub(super) const MOVED_TO_FAILED: &str = "moved_to_failed";

impl<H: Host + 'static> MessageProcessor<H> {
    /// A failed turn of `model`: the user is told, the message stays in the inbox for a later
    /// attempt, or moves to `failed/` when it has had all of them.
    pub(super) async fn fail(&self, mut entry: InboxEntry, error: LlmError, model: &str) -> ProcessResult {
        let host = &self.inner.host;
        let settings = self.settings();
        let message = entry.message.clone();
        self.inner.edits.end();
        let user_message = error.user_message(model);
        host.log(LogLevel::Warn, &format!("message {} failed: {error}", message.id));
        // One that waits to be tried again tells the hub it waits (`retry_later`), not the error.
        if message.from_hub() && !waits_to_retry(&entry, &error) {
            let body = format!("Error: {user_message}");
            self.notify_hub(&settings, &message.id, &message.text, &body, Priority::High, message_time(host, &message));
        }
        entry.last_error = Some(self.inner.config.mask(&error.to_string()).into_owned());
        entry.last_error_code = Some(error.kind.code().to_owned());
        entry.failures += 1;
        if let Target::Conversation(_) = target_of(&message) {
            // A scheduled run is not retried from the inbox: its schedule decides what follows.
            self.run_ended(&message, Err(&user_message)).await;
            self.clean_up(&message).await;
        } else if entry.attempts >= MAX_ATTEMPTS {
            self.give_up(&entry, &format!("it failed {} times; last error: {error}", entry.attempts)).await;
        } else if error.refused_as_sent() {
            // The same request would be refused the same way at every start.
            self.give_up(&entry, &format!("the AI service refused it as sent ({error})")).await;
        } else {
            if let Err(e) = inbox::save(host, &entry).await {
                host.log(LogLevel::Error, &format!("could not note the failure of {}: {e}", message.id));
            }
            self.inner.inbox.kept_on_disk(&message.id);
            if waits_to_retry(&entry, &error) {
                self.retry_later(&entry);
            }
        }
        ProcessResult::failure(&message.id, error.kind.code(), user_message)
    }

    /// A message whose model calls failed for a passing reason (overloaded, rate limited, the
    /// network) is tried again later in this session — 1 minute after its first attempt,
    /// doubling — until its attempts run out; the user is told it waits. (It also stays in the
    /// inbox, so a restart continues it as before.)
    fn retry_later(&self, entry: &InboxEntry) {
        let host = &self.inner.host;
        let delay = later_retry_delay(entry.attempts);
        let message = &entry.message;
        host.log(
            LogLevel::Info,
            &format!(
                "message {} waits {} s for attempt {} of {MAX_ATTEMPTS}",
                message.id,
                delay / 1000,
                entry.attempts + 1
            ),
        );
        let wait = format!(
            "Waiting to try again in {} min (attempt {} of {MAX_ATTEMPTS})",
            delay.div_ceil(60_000),
            entry.attempts + 1
        );
        let text = format!("{wait}: “{}”", shorten_to_plain_text(&message.text, 80));
        host.emit(&Event::Notice { level: NoticeLevel::Warning, text });
        self.notify_hub_of_retry(message, &wait);
        let id = message.id.clone();
        self.spawn(|this| async move {
            this.inner.host.sleep(delay).await;
            // A Retry click or a re-delivery may have run it already, or be running it now.
            if this.inner.inbox.is_in_flight(&id) {
                return;
            }
            let Some(entry) = this.load_entry(&id).await else { return };
            let ticket = this.inner.run.ticket();
            let conversation = entry.message.named_conversation();
            let work = this.track(id, conversation, |runner| runner.resume(entry, ticket, false).boxed_local());
            work.await;
        });
    }

    /// Moves a message out of the inbox for good and tells the user.
    pub(super) async fn give_up(&self, entry: &InboxEntry, reason: &str) {
        let host = &self.inner.host;
        // Written into failed/ (the vault may be synced) and shown: a server's words may echo a key.
        let reason = &*self.inner.config.mask(reason);
        let id = &entry.message.id;
        self.inner.inbox.removed_from_disk(id);
        match inbox::move_to_failed(host, &inbox::entry_file_name(id), Some(entry), None, reason).await {
            Ok(path) => host.emit(&Event::Notice {
                level: NoticeLevel::Error,
                text: format!(
                    "A message was set aside in .smarthole/{path}: \"{}\": {reason}.",
                    shorten_to_plain_text(&entry.message.text, 80)
                ),
            }),
            Err(e) => host.log(LogLevel::Error, &format!("could not move message {id} to failed/: {e}")),
        }
    }
}

/// The wait before a failed message's next attempt in the same session: 1 minute after the
/// first, doubling, at most 15 minutes (a model outage of minutes, not days).
fn later_retry_delay(attempts: u32) -> u64 {
    (60_000u64 << attempts.saturating_sub(1).min(4)).min(15 * 60_000)
}

/// Whether a failed message is tried again later in this session (`retry_later`): a passing
/// failure with attempts left, not a scheduled run (its schedule decides).
fn waits_to_retry(entry: &InboxEntry, error: &LlmError) -> bool {
    error.retryable() && entry.attempts < MAX_ATTEMPTS && !matches!(target_of(&entry.message), Target::Conversation(_))
}
