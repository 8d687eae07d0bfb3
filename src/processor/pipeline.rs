//! The pipeline's shared state: [`Pipeline`], the handle every part of the processor is written
//! against (`impl Pipeline` in `mod.rs`, `worker.rs`, `conversations.rs`, `hub.rs`, …), and the
//! state behind it, [`Inner`], kept in owned parts with their own methods: [`InboxState`] (what
//! is in flight, what the inbox holds), [`RunState`] (the FIFO gate and the message holding it),
//! [`HubLink`] (the hub's state machine, the last message notified) and [`Background`] (the
//! periodic work, the schedules' timeline). Its own module so that those parts depend on it,
//! not on each other or on `processor/mod.rs`.

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use futures::future::{AbortHandle, LocalBoxFuture, Shared};
use futures::lock::Mutex;

use super::api_recent::ApiRecent;
use super::error::ProcessorError;
use super::queue::{FifoQueue, Ticket};
use super::tasks::TaskSet;
use crate::approval::ApprovalBook;
use crate::conversation::ConversationStore;
use crate::host::Host;
use crate::host_types::Millis;
use crate::hub::display::Pacer;
use crate::hub::memory::HubMemory;
use crate::hub::{HubAction, HubClient, HubStatus, ResponseKind};
use crate::ids::file_stem;
use crate::message::ProcessResult;
use crate::schedule::Timeline;
use crate::settings::Settings;
use crate::tools::ToolRegistry;

/// A message's processing, shared by every delivery of it that waits for the result.
pub(super) type SharedResult = Shared<LocalBoxFuture<'static, ProcessResult>>;

/// Everything the pipeline keeps: the host and the settings, the store, and the parts below —
/// the inbox's books, the gate and its run, the hub link, the background work — each with the
/// methods that touch only it.
pub(super) struct Inner<H: Host> {
    pub(super) host: H,
    /// The configured secrets the host hides in what leaves (the same ones `Masking` holds),
    /// for texts that leave another way: return values, the inbox's failure notes.
    pub(super) secrets: Rc<crate::secrets::Secrets>,
    pub(super) settings: RefCell<Rc<Settings>>,
    pub(super) tools: ToolRegistry,
    /// `None` until the store is first opened ([`loaded`] reads it).
    pub(super) store: Mutex<Option<ConversationStore>>,
    /// Everything the processor runs, stopped together.
    pub(super) tasks: Rc<TaskSet>,
    pub(super) inbox: InboxState,
    pub(super) run: RunState,
    pub(super) hub: HubLink,
    pub(super) background: Background,
    pub(super) approvals: ApprovalBook,
    /// Messages and at-once verifications of the agent API, for polling.
    pub(super) api_recent: RefCell<ApiRecent>,
    /// The vault's search index.
    pub(super) search: crate::tools::indexer::SearchIndex,
    /// The `@` picker's listing of the vault.
    pub(super) mentions: crate::attachment::Mentions,
    /// Attachments' copies read and checked, for the turns that send them again.
    pub(super) copies: crate::attachment::Copies,
    /// The server and model whose last connection check refused an image: images are refused
    /// when attached for them, before anything is sent.
    pub(super) images_refused: RefCell<Option<(String, String)>>,
}

impl<H: Host> Inner<H> {
    /// The state of a new processor.
    pub(super) fn new(host: H, settings: Settings, tasks: Rc<TaskSet>, secrets: Rc<crate::secrets::Secrets>) -> Self {
        Inner {
            host,
            secrets,
            settings: RefCell::new(Rc::new(settings)),
            tools: ToolRegistry::default(),
            store: Mutex::new(None),
            tasks,
            inbox: InboxState::default(),
            run: RunState::default(),
            hub: HubLink::default(),
            background: Background::default(),
            approvals: ApprovalBook::default(),
            api_recent: RefCell::new(ApiRecent::default()),
            search: Default::default(),
            mentions: Default::default(),
            copies: Default::default(),
            images_refused: Default::default(),
        }
    }
}

/// The store behind a lock of [`Inner::store`], or `NotLoaded` before `initialize` opened it.
pub(super) fn loaded(store: &mut Option<ConversationStore>) -> Result<&mut ConversationStore, ProcessorError> {
    store.as_mut().ok_or(ProcessorError::NotLoaded)
}

/// The inbox as the pipeline tracks it: the messages being processed (a re-delivery waits for
/// the same result) and the inbox files an earlier run left (crash or failure: a re-delivery of
/// one continues that file instead of starting over).
#[derive(Default)]
pub(super) struct InboxState {
    /// By message id.
    inflight: RefCell<HashMap<String, SharedResult>>,
    /// By file stem.
    on_disk: RefCell<HashSet<String>>,
}

impl InboxState {
    /// The processing of a message already under way, to share.
    pub(super) fn in_flight(&self, message_id: &str) -> Option<SharedResult> {
        self.inflight.borrow().get(message_id).cloned()
    }

    pub(super) fn is_in_flight(&self, message_id: &str) -> bool {
        self.inflight.borrow().contains_key(message_id)
    }

    pub(super) fn started(&self, message_id: String, result: SharedResult) {
        self.inflight.borrow_mut().insert(message_id, result);
    }

    pub(super) fn finished(&self, message_id: &str) {
        self.inflight.borrow_mut().remove(message_id);
    }

    /// Notes the inbox's files (by stem) found at start-up.
    pub(super) fn found_on_disk(&self, stems: impl IntoIterator<Item = String>) {
        self.on_disk.borrow_mut().extend(stems);
    }

    /// A file for this message was left in the inbox by an earlier run.
    pub(super) fn is_on_disk(&self, message_id: &str) -> bool {
        self.on_disk.borrow().contains(&file_stem(message_id))
    }

    /// The message stays in the inbox (its run failed or could not be recorded).
    pub(super) fn kept_on_disk(&self, message_id: &str) {
        self.on_disk.borrow_mut().insert(file_stem(message_id));
    }

    /// The message's file left the inbox (cleaned up or moved to `failed/`).
    pub(super) fn removed_from_disk(&self, message_id: &str) {
        self.on_disk.borrow_mut().remove(&file_stem(message_id));
    }
}

/// The FIFO gate every message waits at, and the message holding it (for Stop).
#[derive(Default)]
pub(super) struct RunState {
    queue: Rc<FifoQueue>,
    current: RefCell<Option<CurrentRun>>,
}

/// The message in flight, for Stop.
struct CurrentRun {
    message_id: String,
    abort: AbortHandle,
}

impl RunState {
    /// A place in line, taken now.
    pub(super) fn ticket(&self) -> Ticket {
        self.queue.ticket()
    }

    /// Messages waiting behind the one in flight.
    pub(super) fn waiting(&self) -> usize {
        self.queue.waiting()
    }

    /// The id of the message in flight.
    pub(super) fn current_id(&self) -> Option<String> {
        self.current.borrow().as_ref().map(|c| c.message_id.clone())
    }

    /// Aborts the message in flight; returns its id (`None` when idle).
    pub(super) fn stop(&self) -> Option<String> {
        let current = self.current.borrow();
        let run = current.as_ref()?;
        run.abort.abort();
        Some(run.message_id.clone())
    }

    /// Makes a message the one in flight until the guard is dropped, however its run ends.
    pub(super) fn begin(&self, message_id: String, abort: AbortHandle) -> CurrentGuard<'_> {
        *self.current.borrow_mut() = Some(CurrentRun { message_id, abort });
        CurrentGuard { slot: &self.current }
    }
}

/// Clears the message in flight when its run ends, however it ends.
pub(super) struct CurrentGuard<'a> {
    slot: &'a RefCell<Option<CurrentRun>>,
}

impl Drop for CurrentGuard<'_> {
    fn drop(&mut self) {
        self.slot.borrow_mut().take();
    }
}

/// The hub connection: its state machine, and the last hub message answered with a
/// notification (scheduled runs notify the hub as its answer; a message the user stopped is
/// never one).
#[derive(Default)]
pub(super) struct HubLink {
    pub(super) client: RefCell<HubClient>,
    last_notified: RefCell<Option<String>>,
    /// Notifications paced to the hub's display limits.
    pub(super) pacer: RefCell<Pacer>,
    /// The message ids the hub still knows.
    pub(super) memory: RefCell<HubMemory>,
    /// Bumped by every settings change, so a delayed re-registration applies only the last one.
    settings_generation: Cell<u64>,
}

impl HubLink {
    /// A settings change: returns its generation.
    pub(super) fn settings_changed(&self) -> u64 {
        self.settings_generation.set(self.settings_generation.get() + 1);
        self.settings_generation.get()
    }

    /// The newest settings change's generation.
    pub(super) fn settings_generation(&self) -> u64 {
        self.settings_generation.get()
    }

    /// A response about a message, handed to the state machine; returns its actions. An ack or
    /// reject sent on the live connection makes its id one a notification may go under.
    pub(super) fn respond(
        &self,
        message_id: &str,
        kind: ResponseKind,
        frame: String,
        message_at: u64,
    ) -> Vec<HubAction> {
        if kind == ResponseKind::Notification {
            *self.last_notified.borrow_mut() = Some(message_id.to_owned());
        }
        let actions = self.client.borrow_mut().respond(message_id, kind, frame, message_at);
        if kind != ResponseKind::Notification && actions.iter().any(|a| matches!(a, HubAction::Send { .. })) {
            self.memory.borrow_mut().answered(message_id);
        }
        actions
    }

    /// The last hub message answered with a notification, if any this session.
    pub(super) fn last_notified(&self) -> Option<String> {
        self.last_notified.borrow().clone()
    }

    /// The connection's status and its detail.
    pub(super) fn status(&self) -> (HubStatus, Option<String>) {
        self.client.borrow().status()
    }
}

/// The processor's own work between messages: whether the periodic work (cleanup, worker, hub)
/// has started, the background conversations by the time of their next run, and the lock that
/// serialises read-modify-writes of `retrospection.md`.
#[derive(Default)]
pub(super) struct Background {
    started: Cell<bool>,
    timeline: RefCell<Timeline>,
    pub(super) retrospection_file: Mutex<()>,
}

impl Background {
    /// Whether the periodic work has started.
    pub(super) fn started(&self) -> bool {
        self.started.get()
    }

    /// Marks the periodic work started; true only the first time.
    pub(super) fn start_once(&self) -> bool {
        !self.started.replace(true)
    }

    /// Puts a conversation at its next run on the timeline, or takes it off.
    pub(super) fn set_next_run(&self, conversation: &str, next: Option<Millis>) {
        self.timeline.borrow_mut().set(conversation, next);
    }

    /// The conversations due at `now`.
    pub(super) fn due(&self, now: Millis) -> Vec<String> {
        self.timeline.borrow().due(now)
    }
}

/// The pipeline's shared state; cloned into the tasks it runs.
pub(super) struct Pipeline<H: Host> {
    pub(super) inner: Rc<Inner<H>>,
}

impl<H: Host> Clone for Pipeline<H> {
    fn clone(&self) -> Self {
        Pipeline { inner: Rc::clone(&self.inner) }
    }
}
