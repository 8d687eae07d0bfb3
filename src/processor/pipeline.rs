//! The pipeline's shared state: [`Pipeline`], the handle every part of the processor is written
//! against (`impl Pipeline` in `mod.rs`, `worker.rs`, `conversations.rs`, `hub.rs`, …), and the
//! state behind it. Its own module so that those parts depend on it, not on each other or on
//! `processor/mod.rs`.

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use futures::future::{AbortHandle, LocalBoxFuture, Shared};
use futures::lock::Mutex;

use super::api_recent::ApiRecent;
use super::error::ProcessorError;
use super::queue::FifoQueue;
use super::tasks::TaskSet;
use crate::approval::ApprovalBook;
use crate::conversation::ConversationStore;
use crate::host::Host;
use crate::hub::HubClient;
use crate::message::ProcessResult;
use crate::schedule::Timeline;
use crate::settings::Settings;
use crate::tools::ToolRegistry;

/// The message in flight, for Stop.
pub(super) struct CurrentRun {
    pub(super) message_id: String,
    pub(super) abort: AbortHandle,
}

/// A message's processing, shared by every delivery of it that waits for the result.
pub(super) type SharedResult = Shared<LocalBoxFuture<'static, ProcessResult>>;

/// Everything the pipeline keeps: the host, the settings, the queue, the store, the hub link and
/// the books of what is in flight.
pub(super) struct Inner<H: Host> {
    pub(super) host: H,
    pub(super) settings: RefCell<Rc<Settings>>,
    pub(super) tools: ToolRegistry,
    pub(super) queue: Rc<FifoQueue>,
    /// `None` until the store is first opened.
    pub(super) store: Mutex<Option<ConversationStore>>,
    pub(super) current: RefCell<Option<CurrentRun>>,
    /// Messages being processed, by id: a re-delivery waits for the same result.
    pub(super) inflight: RefCell<HashMap<String, SharedResult>>,
    /// Inbox files (by file stem) left by an earlier run (crash or failure): a re-delivery of one
    /// of them continues that file instead of starting over.
    pub(super) on_disk: RefCell<HashSet<String>>,
    pub(super) tasks: Rc<TaskSet>,
    /// Serialises read-modify-writes of `retrospection.md`.
    pub(super) retrospection_file: Mutex<()>,
    pub(super) maintenance_started: Cell<bool>,
    pub(super) hub: RefCell<HubClient>,
    pub(super) approvals: ApprovalBook,
    /// Background conversations by the time of their next run.
    pub(super) timeline: RefCell<Timeline>,
    /// The last hub message answered with a notification (scheduled runs notify the hub as its
    /// answer; a message the user stopped is never one).
    pub(super) last_hub_message: RefCell<Option<String>>,
    /// Messages and at-once verifications of the agent API, for polling.
    pub(super) api_recent: RefCell<ApiRecent>,
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

/// The store behind a lock of [`Inner::store`], or `NotLoaded` before `initialize` opened it.
pub(super) fn loaded(store: &mut Option<ConversationStore>) -> Result<&mut ConversationStore, ProcessorError> {
    store.as_mut().ok_or(ProcessorError::NotLoaded)
}
