//! The background worker (seed 001): a tick every 30 s on the host's timer takes the background
//! conversations whose run is due from a timeline ordered by time, and sends each a `worker`
//! message through the same queue as chat messages. A run is claimed (its `next_run_at` moved
//! on) when it starts, and a run's message id is the conversation and the time it was due, so a
//! run is never started twice — not by a later tick while it waits or runs, not by a restart.

use futures::FutureExt;
use serde_json::{json, Value};

use super::error::ProcessorError;
use super::handle::MessageProcessor;
use super::state::loaded;
use crate::conversation::{Conversation, ConversationStatus, ScheduleType, StatusEvent};
use crate::event::{Event, NoticeLevel};
use crate::host::Host;
use crate::host_types::{LogLevel, Millis};
use crate::hub::frames::shorten_to_plain_text;
use crate::hub::Priority;
use crate::message::RoutedMessage;
use crate::schedule::{claim, finish, next_run_ms, resume, RunEnd, TICK_MS};
use crate::store::{StoreError, Target};
use crate::time::format_iso;

/// The size of a job's history after which its runs go on in a new conversation: a few thousand
/// runs, read whole by each run in tens of milliseconds, far under the store's read bound.
pub(crate) const CONTINUE_AFTER_BYTES: u64 = 8 * 1024 * 1024;

/// The target of a message: a `worker` message names its conversation in its metadata.
pub(super) fn target_of(message: &RoutedMessage) -> Target {
    match message.named_conversation() {
        Some(id) => Target::Conversation(id),
        None => Target::Current,
    }
}

/// When the run a worker message starts was due.
fn due_of(message: &RoutedMessage) -> Option<Millis> {
    message.metadata.as_ref().and_then(|m| m.get("dueAt")).and_then(Value::as_u64)
}

/// Whether a claimed run may go ahead.
pub(super) enum Claim {
    Run,
    /// The schedule changed (deleted, paused, moved) since the run was queued.
    Skip(String),
}

/// The message a scheduled run starts with.
fn run_message(conversation: &Conversation, due: Millis, now: Millis) -> Option<Value> {
    let schedule = conversation.schedule.as_ref()?;
    let when = match schedule.kind {
        ScheduleType::Cron => format!(
            "cron \"{}\" in {}",
            schedule.expression.as_deref().unwrap_or(""),
            schedule.time_zone.as_deref().unwrap_or("UTC")
        ),
        ScheduleType::Scheduled => "a one-time run".to_owned(),
        ScheduleType::Immediate => "a background run".to_owned(),
    };
    let text = format!(
        "Scheduled run ({when}, due {}).\nTask: {}\nDo it now. The user is not watching: do not ask questions unless you \
cannot go on without an answer; keep what the next run needs with state_update, and end with a short report of what \
you did.",
        format_iso(due),
        schedule.task
    );
    Some(json!({
        "id": format!("worker-{}-{due}", conversation.id),
        "text": text,
        "timestamp": format_iso(now),
        "source": "worker",
        "metadata": {"conversationId": conversation.id, "dueAt": due},
    }))
}

impl<H: Host + 'static> MessageProcessor<H> {
    /// Puts a conversation at its next run on the timeline, or takes it off (not background,
    /// paused, nothing due).
    pub(super) fn schedule_changed(&self, conversation: &Conversation) {
        let next = match (&conversation.schedule, conversation.status) {
            (Some(schedule), ConversationStatus::Background) => next_run_ms(schedule),
            _ => None,
        };
        self.inner.background.set_next_run(&conversation.id, next);
        self.scheduled_agent_changed(conversation);
        // A run due before the next tick (an `immediate` one, a time just ahead) is not kept
        // waiting for it.
        let now = self.inner.host.now_ms();
        if let Some(at) = next.filter(|at| *at < now + TICK_MS) {
            self.spawn(|this| async move {
                this.inner.host.sleep(at.saturating_sub(now)).await;
                this.worker_tick().await;
            });
        }
    }

    /// A conversation's metadata changed: the UI is told and the timeline follows.
    pub(super) fn conversation_changed(&self, conversation: Conversation) {
        self.schedule_changed(&conversation);
        self.inner.host.emit(&Event::ConversationUpdated { conversation: Box::new(conversation) });
    }

    /// Builds the timeline from the index (background conversations are never archived, so
    /// they are all there).
    pub(super) async fn load_timeline(&self) {
        let guard = self.inner.store.lock().await;
        let Some(store) = guard.as_ref() else { return };
        for conversation in store.live() {
            self.schedule_changed(conversation);
        }
    }

    /// Starts the worker: a tick now (runs missed while the app was closed), then every 30 s.
    pub(super) fn start_worker(&self) {
        self.spawn(|this| async move {
            loop {
                this.worker_tick().await;
                this.inner.host.sleep(TICK_MS).await;
            }
        });
    }

    /// Runs the worker's tick now (tests; the worker ticks every 30 s on its own): sends every
    /// due conversation its run. Runs already queued or under way are not sent again.
    pub async fn worker_tick(&self) {
        let host = &self.inner.host;
        let now = host.now_ms();
        let due = self.inner.background.due(now);
        if due.is_empty() {
            return;
        }
        let messages: Vec<Value> = {
            let guard = self.inner.store.lock().await;
            let Some(store) = guard.as_ref() else { return };
            due.iter()
                .filter_map(|id| store.live().iter().find(|c| c.id == *id))
                .filter_map(|c| run_message(c, c.schedule.as_ref().and_then(next_run_ms)?, now))
                .collect()
        };
        for message in messages {
            let id = message.get("id").and_then(Value::as_str).unwrap_or_default().to_owned();
            if self.inner.inbox.is_in_flight(&id) {
                continue;
            }
            host.log(LogLevel::Info, &format!("worker: starting {id}"));
            let run = self.accept(message);
            self.spawn(|_| run.map(drop));
        }
    }

    /// Claims a worker message's run just before it starts: the schedule must still be there,
    /// running and due at the time the message names — or already claimed by this very message
    /// (a restart finishing it).
    pub(super) async fn claim_run(&self, message: &RoutedMessage, id: &str) -> Result<Claim, StoreError> {
        let host = &self.inner.host;
        let now = host.now_ms();
        let due = due_of(message);
        let mut guard = self.inner.store.lock().await;
        let Ok(store) = loaded(&mut guard) else { return Ok(Claim::Skip("history not loaded".into())) };
        let Some(conversation) = store.live().iter().find(|c| c.id == id).cloned() else {
            return Ok(Claim::Skip(format!("conversation {id} is gone")));
        };
        let Some(schedule) = &conversation.schedule else { return Ok(Claim::Skip("the schedule was deleted".into())) };
        if schedule.current_run.as_deref() == Some(message.id.as_str()) {
            return Ok(Claim::Run);
        }
        if schedule.paused || conversation.status != ConversationStatus::Background {
            return Ok(Claim::Skip("the schedule is paused or waiting for the user".into()));
        }
        if next_run_ms(schedule) != due {
            return Ok(Claim::Skip("the schedule changed since this run was due".into()));
        }
        let cron = |e: &str, z: &str, after: u64| host.cron_next(e, z, after);
        let mut claim_error = None;
        let updated = store
            .update(host, id, |c| {
                if let Some(s) = &mut c.schedule {
                    if let Err(e) = claim(s, now, &cron) {
                        claim_error = Some(e);
                    }
                    s.current_run = Some(message.id.clone());
                }
                Ok(())
            })
            .await?;
        drop(guard);
        if let Some(e) = claim_error {
            host.log(LogLevel::Warn, &format!("schedule of {id}: the next run could not be computed: {e}"));
        }
        self.conversation_changed(updated);
        Ok(Claim::Run)
    }

    /// A scheduled run ended: success (`Ok`; a Stop counts as one: the user decided), or the
    /// failure that ended it. Clears a finished schedule, pauses one that keeps failing, and
    /// tells the user (chat view, and the hub when it has a message to answer).
    pub(super) async fn run_ended(&self, message: &RoutedMessage, result: Result<&str, &str>) {
        let Target::Conversation(id) = target_of(message) else { return };
        let host = &self.inner.host;
        let now = host.now_ms();
        let mut end = RunEnd::Continue;
        let updated = {
            let mut guard = self.inner.store.lock().await;
            let Some(store) = guard.as_mut() else { return };
            store
                .update(host, &id, |c| {
                    let Some(schedule) =
                        c.schedule.as_mut().filter(|s| s.current_run.as_deref() == Some(message.id.as_str()))
                    else {
                        return Ok(());
                    };
                    schedule.current_run = None;
                    end = finish(schedule, result.map(drop), now);
                    if end == RunEnd::Clear {
                        c.schedule = None;
                        // A run that asked the user something keeps waiting for the answer.
                        if c.status == ConversationStatus::Background {
                            c.apply(StatusEvent::ScheduleCleared)?;
                        }
                    }
                    Ok(())
                })
                .await
        };
        let conversation = match updated {
            Ok(c) => c,
            Err(e) => return host.log(LogLevel::Warn, &format!("could not record the end of run {}: {e}", message.id)),
        };
        let title = conversation.title.clone().unwrap_or_else(|| "Scheduled task".to_owned());
        let text = match (result, end) {
            (Err(error), RunEnd::Paused) => {
                format!("Scheduled task “{title}” failed 3 times in a row and is paused: {error} Resume it from the chat once fixed.")
            }
            (Err(error), _) => format!("Scheduled task “{title}” failed: {error} It will be tried again."),
            (Ok(answer), _) => format!("Scheduled task “{title}” ran: {}", shorten_to_plain_text(answer, 300)),
        };
        host.emit(&Event::ScheduledRun {
            conversation_id: id.clone(),
            message_id: message.id.clone(),
            ok: result.is_ok(),
            text: text.clone(),
        });
        if end == RunEnd::Paused {
            host.emit(&Event::Notice { level: NoticeLevel::Error, text: text.clone() });
        }
        self.notify_hub_of_run(&text, result.is_err());
        let continues = end == RunEnd::Continue && conversation.status == ConversationStatus::Background;
        self.conversation_changed(conversation);
        if continues {
            self.continue_if_long(&id).await;
        }
    }

    /// A job whose conversation has grown past [`CONTINUE_AFTER_BYTES`] goes on in a new one:
    /// every run reads its history, the chat view pages through it, and a history past the
    /// store's read bound could not be read at all (a run an hour for a year and a half).
    async fn continue_if_long(&self, id: &str) {
        let host = &self.inner.host;
        match host.file_size(&crate::conversation::metadata::log_path(id)).await {
            Ok(Some(size)) if size > CONTINUE_AFTER_BYTES => {}
            _ => return,
        }
        let moved = {
            let mut guard = self.inner.store.lock().await;
            let Some(store) = guard.as_mut() else { return };
            store.continue_schedule(host, id).await
        };
        match moved {
            Ok((old, new)) => {
                host.log(LogLevel::Info, &format!("the scheduled job of {} goes on in {}", old.id, new.id));
                self.conversation_changed(old);
                self.conversation_changed(new);
            }
            Err(e) => {
                host.log(LogLevel::Warn, &format!("could not move the long job of {id} to a new conversation: {e}"))
            }
        }
    }

    /// A scheduled run's outcome on the hub: the hub only shows notifications that answer a
    /// message it routed recently, so it answers the last one routed here (if any this session).
    fn notify_hub_of_run(&self, text: &str, failed: bool) {
        let Some(last) = self.inner.hub.last_notified() else { return };
        let priority = if failed { Priority::High } else { Priority::Normal };
        self.notify_hub(&self.settings(), &last, "scheduled task", text, priority, self.inner.host.now_ms());
    }

    /// Pauses, resumes or deletes a conversation's schedule (the chat view's buttons); returns
    /// the conversation.
    pub async fn change_schedule(&self, id: &str, change: ScheduleChange) -> Result<Conversation, ProcessorError> {
        let host = &self.inner.host;
        let now = host.now_ms();
        let cron = |e: &str, z: &str, after: u64| host.cron_next(e, z, after);
        let updated = {
            let mut guard = self.inner.store.lock().await;
            let store = loaded(&mut guard)?;
            store
                .update(host, id, |c| {
                    let Some(schedule) = c.schedule.as_mut() else {
                        return Err(StoreError::Encode(format!("conversation {id} has no schedule")));
                    };
                    match change {
                        ScheduleChange::Pause => {
                            schedule.paused = true;
                            schedule.next_run_at = None;
                        }
                        ScheduleChange::Resume => resume(schedule, now, &cron).map_err(StoreError::Encode)?,
                        ScheduleChange::Delete => {
                            c.schedule = None;
                            if c.status == ConversationStatus::Background {
                                c.apply(StatusEvent::ScheduleCleared)?;
                            }
                        }
                    }
                    Ok(())
                })
                .await?
        };
        self.conversation_changed(updated.clone());
        Ok(updated)
    }

    /// Conversations with a schedule, soonest run first (paused ones last).
    pub async fn scheduled(&self) -> Vec<Conversation> {
        let guard = self.inner.store.lock().await;
        let Some(store) = guard.as_ref() else { return Vec::new() };
        let mut out: Vec<Conversation> = store.live().iter().filter(|c| c.schedule.is_some()).cloned().collect();
        crate::lean::sort_by_key(&mut out, |c| c.schedule.as_ref().and_then(next_run_ms).unwrap_or(u64::MAX));
        out
    }
}

/// What the user does to a schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScheduleChange {
    Pause,
    Resume,
    Delete,
}
