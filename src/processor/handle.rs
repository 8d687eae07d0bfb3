//! [`MessageProcessor`], the handle a host holds, and its life: made, started, reconfigured,
//! stopped. Its other methods live with the part of the pipeline they belong to (the list is in
//! the type's documentation); every part is an `impl MessageProcessor` in a file of its own.

use std::future::Future;
use std::rc::Rc;

use futures::future::{FutureExt, LocalBoxFuture};

use super::error::ProcessorError;
use super::state::{Config, Inner, SharedResult, TaskSet};
use crate::event::{Event, NoticeLevel};
use crate::host::Host;
use crate::inbox;
use crate::message::ProcessResult;
use crate::platform::{platform_features, PlatformFacts, PlatformFeatures};
use crate::secrets::{Masking, Secrets};
use crate::settings::Settings;
use crate::store::{ConversationStore, StoreError};

/// The message pipeline of seed 003 — save to inbox → ack → model with tools and retry → notify
/// → record history → clean up — one message at a time in arrival order, with a Stop that stops
/// and a restart that finishes what a crash left without recording anything twice.
///
/// Cheap to clone; dropping the last clone (or [`dispose`](Self::dispose)) stops the message in
/// flight and every background task. It never blocks and never touches the world itself: all
/// it reads and writes goes through the [`Host`] it was made with, and everything it has to say
/// comes out through [`Host::emit`] (events for the views) and the host's other calls (hub
/// frames, HTTP requests, files) — there is nothing to poll.
///
/// # In what order to call it
///
/// 1. **Make it**: [`new`](Self::new) with validated settings (nothing is read yet).
/// 2. **Start it**: [`initialize`](Self::initialize) loads the history and starts the worker,
///    the periodic cleanup and the hub; then [`reprocess_pending`](Self::reprocess_pending)
///    finishes what a previous session left in the inbox, and
///    [`start_search_index`](Self::start_search_index) builds the search index in the
///    background. (A message that arrives first initializes it on the way.)
/// 3. **Feed it what happens** — the host reports, the processor decides:
///    - a message: [`process`](Self::process) (its result is also emitted as
///      `Event::Response`); a typed one from [`new_message`](Self::new_message);
///    - the hub's sockets: [`hub_opened`](Self::hub_opened), [`hub_frame`](Self::hub_frame),
///      [`hub_closed`](Self::hub_closed) (the processor asks the host to connect, send and close);
///    - the vault: [`vault_changed`](Self::vault_changed);
///    - the agent API: [`handle_api`](Self::handle_api), one call per HTTP request;
///    - the user's answer to a card: [`decide_approval`](Self::decide_approval),
///      [`decide_approval_hunks`](Self::decide_approval_hunks);
///    - new settings: [`update_settings`](Self::update_settings).
/// 4. **Commands** from the views, each waiting its turn behind the message in flight where it
///    changes a conversation: Stop ([`cancel_current_processing`](Self::cancel_current_processing)),
///    [`new_conversation`](Self::new_conversation), [`open_conversation`](Self::open_conversation),
///    [`clear_history`](Self::clear_history), [`record_system_line`](Self::record_system_line),
///    [`change_schedule`](Self::change_schedule), [`undo_turn`](Self::undo_turn),
///    [`export_conversation`](Self::export_conversation), [`attach_vault`](Self::attach_vault),
///    [`attach_bytes`](Self::attach_bytes), [`check_connection`](Self::check_connection),
///    [`cleanup_stale_states`](Self::cleanup_stale_states), [`new_api_token`](Self::new_api_token).
/// 5. **Read** what the views draw (no side effects): [`settings`](Self::settings),
///    [`current_conversation`](Self::current_conversation),
///    [`conversations`](Self::conversations), [`conversation_page`](Self::conversation_page),
///    [`conversation_lines`](Self::conversation_lines),
///    [`conversation_usage`](Self::conversation_usage), [`turn_review`](Self::turn_review),
///    [`last_undoable_turn`](Self::last_undoable_turn),
///    [`pending_approvals`](Self::pending_approvals), [`scheduled`](Self::scheduled),
///    [`mentions`](Self::mentions), [`hub_status`](Self::hub_status),
///    [`search_index_status`](Self::search_index_status), [`usage_totals`](Self::usage_totals),
///    [`api_listeners`](Self::api_listeners), [`api_config_document`](Self::api_config_document),
///    [`queued`](Self::queued), [`current_message_id`](Self::current_message_id),
///    [`running_tasks`](Self::running_tasks).
/// 6. **Stop it**: [`dispose`](Self::dispose), or drop the last clone.
///
/// # Where each method lives
///
/// `handle.rs` its life (new, initialize, settings, dispose); `arrival.rs` a message's arrival,
/// the inbox and its attempts (process, reprocess_pending); `run.rs` the run (Stop, a tool run
/// alone); `failure.rs` a failed run and its later retry; `view.rs` and `review.rs` the chat
/// view's reads and changes; `attachments.rs`, `search.rs`, `setup.rs` (the connection check and
/// usage totals); `conversations.rs` (stale questions), `approvals.rs`, `worker.rs` (schedules),
/// `hub.rs`, `api.rs`, `markdown_copy.rs` (export).
pub struct MessageProcessor<H: Host> {
    /// Every part of the pipeline talks to the host through `Masking`: what leaves has the
    /// configured secrets hidden.
    pub(super) inner: Rc<Inner<Masking<H>>>,
    /// Held by the host's handles and not by the processor's own tasks: when the last handle
    /// holding it is dropped, every task stops.
    owner: Option<Rc<Lifetime>>,
}

/// Stops everything the processor runs when its last handle is dropped.
struct Lifetime {
    tasks: Rc<TaskSet>,
}

impl Drop for Lifetime {
    fn drop(&mut self) {
        self.tasks.abort_all();
    }
}

/// A clone is another of the host's handles: the processor runs until the last one is dropped.
/// (The processor's own tasks hold handles without the lifetime: see `spawn` and `track`.)
impl<H: Host> Clone for MessageProcessor<H> {
    fn clone(&self) -> Self {
        MessageProcessor { inner: Rc::clone(&self.inner), owner: self.owner.clone() }
    }
}

impl<H: Host + 'static> MessageProcessor<H> {
    /// A processor over a host, with validated settings.
    pub fn new(host: H, settings: Settings) -> Result<Self, ProcessorError> {
        let tasks = Rc::new(TaskSet::default());
        let secrets = Rc::new(Secrets::default());
        let config = Config::new(settings, Rc::clone(&secrets))?;
        let host = Masking { inner: host, secrets };
        let inner = Rc::new(Inner::new(host, config, Rc::clone(&tasks)));
        Ok(MessageProcessor { inner, owner: Some(Rc::new(Lifetime { tasks })) })
    }

    /// The host (tests inspect it).
    pub fn host(&self) -> &H {
        &self.inner.host.inner
    }

    /// The current settings.
    pub fn settings(&self) -> Rc<Settings> {
        self.inner.config.settings()
    }

    /// Replaces the settings; the message in flight finishes with the old ones. A changed hub
    /// URL, name or description reconnects and registers again; turning the hub off closes it.
    pub fn update_settings(&self, settings: Settings) -> Result<(), ProcessorError> {
        self.inner.config.replace(settings)?;
        self.inner.meaning.wake();
        if self.settings().agent == crate::acp::AgentKind::Builtin {
            self.stop_agent();
        }
        if self.inner.background.started() {
            self.configure_hub();
        }
        Ok(())
    }

    /// What the host can do (`platform.rs`), reported before `initialize`: the core decides from
    /// it which features this device has — the hub stays off where there is none to reach,
    /// whatever the settings say — and answers with them, for the settings and commands to draw.
    pub fn report_platform(&self, facts: PlatformFacts) -> PlatformFeatures {
        self.inner.config.set_platform(facts);
        if self.inner.background.started() {
            self.configure_hub();
        }
        platform_features(facts)
    }

    /// Loads the history (the index and the current conversation), drops stale questions, notes
    /// which messages a previous session left in the inbox, and starts the periodic cleanup,
    /// the worker and the hub. Later calls only make sure of it.
    pub async fn initialize(&self) -> Result<(), ProcessorError> {
        let mut store = self.inner.store.lock().await;
        if store.is_none() {
            let mut opened = ConversationStore::open(&self.inner.host).await?;
            for text in opened.take_notices() {
                self.inner.host.emit(&Event::Notice { level: NoticeLevel::Warning, text });
            }
            *store = Some(opened);
            let names = self.inner.host.list_dir(inbox::INBOX_DIR).await.map_err(StoreError::from)?;
            let slots = inbox::slots::recover(&self.inner.host, &names).await.map_err(StoreError::from)?;
            self.inner.inbox.found_on_disk(names.iter().filter_map(|n| n.strip_suffix(".json")).map(str::to_owned));
            self.inner.inbox.found_on_disk(slots.entries);
            self.inner.inbox.slots_found(slots.ready);
            drop(store);
            self.restore_approvals().await;
            self.resume_verification_timers();
            self.load_timeline().await;
        } else {
            drop(store);
        }
        if self.inner.background.start_once() {
            self.cleanup_stale_states().await?;
            self.start_maintenance();
            self.start_worker();
            self.configure_hub();
        }
        Ok(())
    }

    /// Stops the message in flight and every background task; later messages are refused.
    pub fn dispose(&self) {
        self.inner.tasks.abort_all();
        self.stop_agent();
    }

    /// Stops everything as [`Self::dispose`] does and leaves the processor's state unfreed: for a
    /// host that throws away the whole instance (its memory goes with it), where freeing a large
    /// search index allocation by allocation would only hold the event loop (about 150 ms at
    /// 100,000 notes). Nothing in the state does anything when dropped; the tasks still stop.
    pub fn discard(self) {
        self.dispose();
        std::mem::forget(Rc::clone(&self.inner));
    }

    /// Background tasks running (summaries, retrospection, cleanup, messages in flight).
    pub fn running_tasks(&self) -> usize {
        self.inner.tasks.running()
    }

    /// The handle a task of the processor's own holds: it does not keep the processor running.
    fn task_handle(&self) -> Self {
        MessageProcessor { inner: Rc::clone(&self.inner), owner: None }
    }

    /// Runs a task on the host's executor, among those dropping the processor stops. It is given
    /// a handle of its own (never a clone: a task holding one would keep the processor running).
    pub(super) fn spawn<F: Future<Output = ()> + 'static>(&self, task: impl FnOnce(Self) -> F) {
        let task = self.inner.tasks.wrap(task(self.task_handle())).map(drop);
        self.inner.host.spawn(task.boxed_local());
    }

    /// Registers a message's processing so re-deliveries share it and dropping the processor
    /// stops it, and reports its result (`Event::Response`). The work is given a handle of its
    /// own, as a spawned task is.
    pub(super) fn track(
        &self,
        id: String,
        conversation_id: Option<String>,
        work: impl FnOnce(Self) -> LocalBoxFuture<'static, ProcessResult>,
    ) -> SharedResult {
        let this = self.task_handle();
        let key = id.clone();
        let listed = conversation_id.clone();
        let work = self.inner.tasks.wrap(work(self.task_handle()));
        let shared = async move {
            let result = work.await.unwrap_or_else(|| ProcessResult::cancelled(&key));
            this.inner.inbox.finished(&key);
            this.in_flight_changed();
            this.inner.host.emit(&Event::Response { result: result.clone(), conversation_id });
            result
        }
        .boxed_local()
        .shared();
        self.inner.inbox.started(id, listed, shared.clone());
        self.in_flight_changed();
        shared
    }
}
