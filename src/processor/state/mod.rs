//! The processor's state, [`Inner`], kept in owned parts, each with the methods that touch only
//! it: [`Config`] (the settings and the secrets hidden from what leaves), the conversation store
//! (behind a lock; [`loaded`] reads it), [`InboxState`] (what is in flight, what the inbox
//! holds), [`RunState`] (the FIFO gate of `queue.rs` and the message holding it), [`HubLink`]
//! (the hub's state machine, pacer and memory), [`Background`] (the periodic work, the
//! schedules' timeline), the approval book, [`ApiRecent`] (what the agent API answered lately),
//! the search index, [`AttachmentState`] (the `@` picker's listing, checked copies, a model that
//! refuses images) and the [`TaskSet`] of everything the processor runs. The processor's parts
//! (`processor/*.rs`) are written against it; the parts here depend on none of them.

mod acp;
mod api_recent;
mod attachments;
mod background;
mod hub;
mod inbox;
mod queue;
mod run;
mod tasks;
mod tools_listener;

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

use futures::lock::Mutex;

use super::error::ProcessorError;
use crate::approval::ApprovalBook;
use crate::host::Host;
use crate::platform::PlatformFacts;
use crate::secrets::Secrets;
use crate::settings::{Settings, SettingsError};
use crate::store::ConversationStore;
use crate::tools::indexer::SearchIndex;
use crate::tools::meaning::Meaning;
use crate::tools::ToolRegistry;

pub(crate) use acp::{AcpLink, ListenerState, ServedCall, StoppedSpend, ToolsListener};
pub(crate) use api_recent::{ApiRecent, ApiRun};
pub(crate) use attachments::AttachmentState;
pub(crate) use background::Background;
pub(crate) use hub::HubLink;
pub(crate) use inbox::{InboxState, SharedResult};
pub(crate) use queue::Ticket;
pub(crate) use run::RunState;
pub(crate) use tasks::TaskSet;

/// Everything the processor keeps, in owned parts.
pub(crate) struct Inner<H: Host> {
    pub(crate) host: H,
    pub(crate) config: Config,
    pub(crate) tools: ToolRegistry,
    /// `None` until the store is first opened ([`loaded`] reads it).
    pub(crate) store: Mutex<Option<ConversationStore>>,
    /// Everything the processor runs, stopped together.
    pub(crate) tasks: Rc<TaskSet>,
    pub(crate) inbox: InboxState,
    pub(crate) run: RunState,
    pub(crate) hub: HubLink,
    pub(crate) background: Background,
    pub(crate) approvals: ApprovalBook,
    /// Messages and at-once verifications of the agent API, for polling.
    pub(crate) api_recent: ApiRecent,
    /// The vault's search index.
    pub(crate) search: SearchIndex,
    /// The vault's meaning index (search by meaning), built from the search index's listing.
    pub(crate) meaning: Meaning,
    pub(crate) attachments: AttachmentState,
    /// The user's own agent over ACP (its process lives across turns).
    pub(crate) acp: AcpLink,
    /// The edit in place being answered, followed to draw its proposal as it streams.
    pub(crate) edits: crate::tools::edit_stream::EditStreams,
}

impl<H: Host> Inner<H> {
    /// The state of a new processor.
    pub(crate) fn new(host: H, config: Config, tasks: Rc<TaskSet>) -> Self {
        Inner {
            host,
            config,
            tools: ToolRegistry::default(),
            store: Mutex::new(None),
            tasks,
            inbox: InboxState::default(),
            run: RunState::default(),
            hub: HubLink::default(),
            background: Background::default(),
            approvals: ApprovalBook::default(),
            api_recent: ApiRecent::default(),
            search: SearchIndex::default(),
            meaning: Meaning::default(),
            attachments: AttachmentState::default(),
            acp: AcpLink::default(),
            edits: Default::default(),
        }
    }
}

/// The store behind a lock of [`Inner::store`], or `NotLoaded` before `initialize` opened it.
pub(crate) fn loaded(store: &mut Option<ConversationStore>) -> Result<&mut ConversationStore, ProcessorError> {
    store.as_mut().ok_or(ProcessorError::NotLoaded)
}

/// The settings in force and the secrets they hold. `secrets` is shared with the `Masking` host,
/// which hides them in every log line, event and frame; the processor hides them itself in what
/// leaves another way (return values, the inbox's failure notes).
pub(crate) struct Config {
    settings: RefCell<Rc<Settings>>,
    secrets: Rc<Secrets>,
    /// What the host reported it can do (`platform.rs`).
    platform: Cell<PlatformFacts>,
}

impl Config {
    /// Validated settings, with their secrets noted in `secrets`.
    pub(crate) fn new(settings: Settings, secrets: Rc<Secrets>) -> Result<Self, SettingsError> {
        settings.validate()?;
        secrets.set_from(&settings);
        Ok(Config { settings: RefCell::new(Rc::new(settings)), secrets, platform: Cell::default() })
    }

    /// What the host reported it can do.
    pub(crate) fn platform(&self) -> PlatformFacts {
        self.platform.get()
    }

    /// Notes what the host reported it can do.
    pub(crate) fn set_platform(&self, facts: PlatformFacts) {
        self.platform.set(facts);
    }

    /// The settings in force (a message in flight keeps the ones it started with).
    pub(crate) fn settings(&self) -> Rc<Settings> {
        Rc::clone(&self.settings.borrow())
    }

    /// Replaces the settings once they are valid.
    pub(crate) fn replace(&self, settings: Settings) -> Result<(), SettingsError> {
        settings.validate()?;
        self.secrets.set_from(&settings);
        *self.settings.borrow_mut() = Rc::new(settings);
        Ok(())
    }

    /// A text with the configured secrets hidden.
    pub(crate) fn mask<'a>(&self, text: &'a str) -> Cow<'a, str> {
        self.secrets.mask(text)
    }

    /// Hides the configured secrets in a text about to leave through a return value.
    pub(crate) fn mask_in_place(&self, text: &mut String) {
        self.secrets.mask_in_place(text);
    }

    /// The secrets themselves, for a result kept to be answered later (a future that must not
    /// hold the processor).
    pub(crate) fn secrets(&self) -> Rc<Secrets> {
        Rc::clone(&self.secrets)
    }
}
