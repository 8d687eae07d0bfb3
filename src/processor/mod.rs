//! The MessageProcessor of seed 003: save to inbox → ack → model with tools and retry → notify
//! → record history → clean up, one message at a time in arrival order, with a Stop that stops
//! and a restart that finishes what a crash left without recording anything twice.
//!
//! This file holds [`MessageProcessor`], the public handle, and a message's way through the
//! pipeline (arrival, inbox and attempts, the turn, its finish or failure, `failed/`). The
//! handle's methods, in the order a host uses them: `new` (validated settings), `initialize`
//! (loads the history, starts the worker, the periodic cleanup and the hub), `reprocess_pending`
//! (what a previous session left), then `process` for every message and
//! `cancel_current_processing` for Stop; the host reports its hub sockets with `hub_opened`,
//! `hub_frame`, `hub_closed`; the chat view and the agent API have their own calls; `dispose`,
//! or dropping the last clone, stops everything.
//!
//! The other parts are each an `impl Pipeline` (or a piece of its state) in a file of their own:
//! `pipeline.rs` (the state every part is written against: `Pipeline`, `Inner` and its parts),
//! `conversations.rs` (boundary, questions, recording a turn, after-end work, stale questions),
//! `view.rs` (the chat view's calls besides messages), `approvals.rs` (a tool waiting on the
//! user), `worker.rs` (the schedules: timeline, tick, claiming runs, a run's end), `hub.rs`
//! (socket events in, actions out, every frame sent), `api.rs` and `api_recent.rs` (the agent
//! API's endpoints, what they answered lately), `queue.rs` (the FIFO gate), `tasks.rs`
//! (everything it runs, stopped together) and `error.rs` (`ProcessorError`).

mod api;
mod api_recent;
mod approvals;
mod conversations;
mod error;
mod hub;
mod markdown_copy;
mod pipeline;
mod queue;
mod tasks;
mod view;
mod worker;

use std::future::Future;
use std::rc::Rc;

use futures::future::{AbortHandle, Abortable, Either, FutureExt, LocalBoxFuture};
use serde::Serialize;
use serde_json::Value;

use crate::agent::{run_turn, TurnInput, TurnOutcome};
use crate::api::config::{config_document, listeners, Listener};
use crate::api::{ApiRequest, ApiResponse};
use crate::approval::{ApprovalError, ApprovalRequest, Decision};
use crate::conversation::{Conversation, ConversationStore, HistoryLine, StoreError};
use crate::event::{Event, NoticeLevel, Stage};
use crate::host::Host;
use crate::host_types::LogLevel;
use crate::hub::frames::{ack, reject, shorten_to_plain_text};
use crate::hub::{HubStatus, Priority, ResponseKind};
use crate::ids::new_id;
use crate::inbox::{self, InboxEntry, Pending, MAX_ATTEMPTS, MAX_CRASHED_RUNS};
use crate::journal::{Journal, JournalRecord};
use crate::llm::{ErrorKind, LlmError};
use crate::message::{id_of, parse_routed, ProcessResult, RoutedMessage, DIRECT_ID_PREFIX};
use crate::prompt::{message_context, system_prompt};
use crate::secrets::{Masking, Secrets};
use crate::settings::Settings;
use crate::time::format_iso;

use conversations::Prepared;
pub use error::ProcessorError;
use hub::message_time;
use pipeline::{Inner, Pipeline, SharedResult};
pub(crate) use queue::Ticket;
use tasks::TaskSet;
pub use worker::ScheduleChange;
use worker::{target_of, Claim, Target};

pub(crate) use crate::message::INVALID_MESSAGE;
/// Code of a failure to read or write the plugin's data folder.
pub(crate) const STORAGE_ERROR: &str = "storage_error";
/// Code of a message given up on after all its attempts.
pub(crate) const MOVED_TO_FAILED: &str = "moved_to_failed";

/// A page of a conversation for the chat view, which draws the newest messages first and older
/// ones as the user scrolls up, never the whole history at once.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConversationPage {
    /// The page's lines, oldest first (hidden ones included, as `conversation_lines` has them).
    pub lines: Vec<HistoryLine>,
    /// The cursor for the page before this one; absent when this page reaches the start.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<u64>,
}

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

/// How many of the newest turns `/undo` looks through for changes still standing.
const UNDO_LOOKBACK_TURNS: usize = 100;
/// How often the search index is written back while it changes.
const SEARCH_INDEX_SAVE_MS: u64 = 60_000;

/// What a turn asked and changed (`turnReview()`): the chat view redraws its cards from it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TurnReview {
    /// Its approval requests, oldest first (settled ones are kept a week).
    pub approvals: Vec<ApprovalRequest>,
    /// The changes it applied, oldest first, and whether each was undone since.
    pub changes: Vec<crate::undo::AppliedChange>,
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

/// The message pipeline. Cheap to clone; dropping the last clone (or [`dispose`]) stops the
/// message in flight and every background task.
///
/// [`dispose`]: MessageProcessor::dispose
pub struct MessageProcessor<H: Host> {
    /// Every part of the pipeline talks to the host through `Masking`: what leaves has the
    /// configured secrets hidden.
    pipeline: Pipeline<Masking<H>>,
    _lifetime: Rc<Lifetime>,
}

impl<H: Host> Clone for MessageProcessor<H> {
    fn clone(&self) -> Self {
        MessageProcessor { pipeline: self.pipeline.clone(), _lifetime: Rc::clone(&self._lifetime) }
    }
}

impl<H: Host + 'static> MessageProcessor<H> {
    /// A processor over a host, with validated settings.
    pub fn new(host: H, settings: Settings) -> Result<Self, ProcessorError> {
        settings.validate()?;
        let tasks = Rc::new(TaskSet::default());
        let secrets = Rc::new(Secrets::default());
        secrets.set_from(&settings);
        let host = Masking { inner: host, secrets: Rc::clone(&secrets) };
        let inner = Rc::new(Inner::new(host, settings, Rc::clone(&tasks), secrets));
        Ok(MessageProcessor { pipeline: Pipeline { inner }, _lifetime: Rc::new(Lifetime { tasks }) })
    }

    /// The host (tests inspect it).
    pub fn host(&self) -> &H {
        &self.pipeline.inner.host.inner
    }

    /// Hides the configured secrets in a text about to leave the core through a return value.
    fn mask(&self, text: &mut String) {
        self.pipeline.inner.secrets.mask_in_place(text);
    }

    /// The current settings.
    pub fn settings(&self) -> Rc<Settings> {
        self.pipeline.settings()
    }

    /// Replaces the settings; the message in flight finishes with the old ones. A changed hub
    /// URL, name or description reconnects and registers again; turning the hub off closes it.
    pub fn update_settings(&self, settings: Settings) -> Result<(), ProcessorError> {
        settings.validate()?;
        self.pipeline.inner.secrets.set_from(&settings);
        *self.pipeline.inner.settings.borrow_mut() = Rc::new(settings);
        if self.pipeline.inner.background.started() {
            self.pipeline.configure_hub();
        }
        Ok(())
    }

    /// The host's hub socket `socket` opened.
    pub fn hub_opened(&self, socket: u64) {
        self.pipeline.hub_opened(socket);
    }

    /// A text frame arrived on hub socket `socket`.
    pub fn hub_frame(&self, socket: u64, text: &str) {
        self.pipeline.hub_frame(socket, text);
    }

    /// Hub socket `socket` closed, failed to open, or was dropped; `why` is for the status line.
    pub fn hub_closed(&self, socket: u64, why: &str) {
        self.pipeline.hub_closed(socket, why);
    }

    /// Starts building the vault's search index in the background (the hosts call it after
    /// `initialize`; the first `search_files` does otherwise). Progress arrives as
    /// `Event::SearchIndex`; messages are never held up by it.
    pub fn start_search_index(&self) {
        self.pipeline.start_search_index();
    }

    /// A note or folder was created, changed, deleted or renamed (`kind`, for the log): the
    /// search index repairs itself before its next answer.
    pub fn vault_changed(&self, path: &str, kind: &str) {
        let inner = &self.pipeline.inner;
        inner.host.log(LogLevel::Debug, &format!("vault {kind}: {path}"));
        inner.search.changed(Some(path));
        // An edit changes no name the picker offers.
        if kind != "modify" {
            inner.mentions.changed();
        }
    }

    /// The search index's state, notes held and size in memory (bytes).
    pub fn search_index_status(&self) -> (String, usize, usize) {
        let search = &self.pipeline.inner.search;
        let state = match search.phase() {
            crate::tools::indexer::Phase::Idle => "idle".to_owned(),
            crate::tools::indexer::Phase::Building(done, total) => format!("building {done}/{total}"),
            crate::tools::indexer::Phase::Ready => "ready".to_owned(),
            crate::tools::indexer::Phase::Off(why) => format!("off: {why}"),
        };
        (state, search.with(|i| i.len()), search.bytes())
    }

    /// Runs one tool outside a turn, approvals refused (tests compare tools' answers quickly,
    /// without a model round trip and a growing conversation).
    #[cfg(feature = "testing")]
    pub async fn run_tool(&self, name: &str, input: &Value) -> (String, bool) {
        let inner = &self.pipeline.inner;
        let settings = self.settings();
        let message = self.new_message("a tool run by a test");
        let notify = |_: &str, _: Priority| {};
        let approve = |_| async { crate::approval::ApprovalOutcome::Rejected }.boxed_local();
        let start_index = || self.pipeline.start_search_index();
        let ctx = crate::tools::ToolContext {
            host: &inner.host,
            settings: &settings,
            message: &message,
            store: &inner.store,
            notify_hub: &notify,
            approve: &approve,
            integrations: &[],
            tool_use_id: String::new(),
            index: &inner.search,
            start_index: &start_index,
        };
        let out = inner.tools.run(&ctx, name, input).await;
        (out.content, out.is_error)
    }

    /// The hub connection's status and its detail.
    pub fn hub_status(&self) -> (HubStatus, Option<String>) {
        self.pipeline.inner.hub.status()
    }

    /// Loads the history (the index and the current conversation), drops stale questions, notes
    /// which messages a previous session left in the inbox, and starts the periodic cleanup.
    pub async fn initialize(&self) -> Result<(), ProcessorError> {
        self.pipeline.initialize().await
    }

    /// Number of messages waiting behind the one in flight.
    pub fn queued(&self) -> usize {
        self.pipeline.inner.run.waiting()
    }

    /// The id of the message being processed, if any.
    pub fn current_message_id(&self) -> Option<String> {
        self.pipeline.inner.run.current_id()
    }

    /// Stops the message in flight: its request, retry wait or tool is abandoned and it resolves
    /// as cancelled. Returns whether there was one. A no-op when idle.
    pub fn cancel_current_processing(&self) -> bool {
        let inner = &self.pipeline.inner;
        match inner.run.stop() {
            Some(message_id) => {
                inner.host.log(LogLevel::Info, &format!("stopping message {message_id}"));
                true
            }
            None => false,
        }
    }

    /// Takes a message (a `RoutedMessage` as JSON). The ticket in line is taken now, so messages
    /// run in the order of these calls.
    pub fn process(&self, raw: Value) -> impl Future<Output = ProcessResult> + 'static {
        let work = self.pipeline.process(raw);
        let this = self.clone();
        async move {
            let mut result = work.await;
            result.mask_texts(&|text| this.mask(text));
            result
        }
    }

    /// Finishes every message a previous session left in the inbox, oldest first; corrupt files
    /// and messages out of attempts go to `failed/` with the reason.
    pub async fn reprocess_pending(&self) -> Result<ReprocessSummary, ProcessorError> {
        let mut summary = self.pipeline.reprocess_pending().await?;
        summary.results.iter_mut().for_each(|result| result.mask_texts(&|text| self.mask(text)));
        Ok(summary)
    }

    /// Drops pending questions older than `conversationStateTimeoutMinutes`; returns the ids of
    /// the conversations that had one. Runs in `initialize()` and every 15 minutes.
    pub async fn cleanup_stale_states(&self) -> Result<Vec<String>, ProcessorError> {
        self.pipeline.cleanup_stale_states().await
    }

    /// Writes a hidden system line (UC014: the chat view opened); returns the conversation it
    /// went to.
    pub async fn record_system_line(&self, text: &str) -> Result<String, ProcessorError> {
        self.pipeline.record_system_line(text).await
    }

    /// A conversation's lines, oldest first, hidden ones included.
    pub async fn conversation_lines(&self, id: &str) -> Result<Vec<HistoryLine>, ProcessorError> {
        self.pipeline.conversation_lines(id).await
    }

    /// Writes a conversation as a Markdown note — or what its note lacks, when it has one — in
    /// the folder of the Markdown copies; gives the note's path (issue 19).
    pub async fn export_conversation(&self, id: &str) -> Result<String, ProcessorError> {
        self.pipeline.export_markdown(id).await
    }

    /// A page of a conversation: its newest `limit` turns before `before` (a cursor from an
    /// earlier page; the end when `None`), read without parsing the rest of its history.
    pub async fn conversation_page(
        &self,
        id: &str,
        before: Option<u64>,
        limit: usize,
    ) -> Result<ConversationPage, ProcessorError> {
        self.pipeline.conversation_page(id, before, limit).await
    }

    /// What a conversation has cost so far: every turn's usage added up (the chat view's
    /// "This conversation", whichever of its pages are drawn).
    pub async fn conversation_usage(&self, id: &str) -> Result<crate::llm::Usage, ProcessorError> {
        self.pipeline.conversation_usage(id).await
    }

    /// The conversation new messages go to, if one is open.
    pub async fn current_conversation(&self) -> Option<Conversation> {
        self.pipeline.current_conversation().await
    }

    /// Ends the current conversation ("New chat").
    pub async fn new_conversation(&self) -> Result<(), ProcessorError> {
        self.pipeline.new_conversation().await
    }

    /// Makes a past conversation current again.
    pub async fn open_conversation(&self, id: &str) -> Result<Conversation, ProcessorError> {
        self.pipeline.open_conversation(id).await
    }

    /// Checks the model server with small real requests (the settings' "Check connection", the
    /// headless `--check`): a line per step, and the models the server lists.
    pub async fn check_connection(&self) -> crate::llm::check::ConnectionCheck {
        let settings = self.settings();
        let mut report = crate::llm::check::check_connection(&self.pipeline.inner.host, &settings).await;
        report.lines.iter_mut().for_each(|line| self.mask(&mut line.text));
        if let Some(images) = report.lines.iter().find(|l| l.step == "images") {
            let refused = (!images.ok).then(|| (settings.base_url.clone(), settings.model.clone()));
            *self.pipeline.inner.images_refused.borrow_mut() = refused;
        }
        report
    }

    /// Attaches a note, folder, image or PDF of the vault for the next message (the chat's `@`
    /// picker, headless `--attach`): checked, read and copied now, so the chip can say what will
    /// be sent (or why nothing will).
    pub async fn attach_vault(
        &self,
        path: &str,
    ) -> Result<crate::attachment::Attachment, crate::attachment::AttachError> {
        let inner = &self.pipeline.inner;
        let attached = crate::attachment::attach_vault_kept(&inner.host, &self.settings(), &inner.copies, path).await;
        self.pipeline.taken_by_model(attached)
    }

    /// The `@` picker's best `limit` matches for what was typed after the `@`.
    pub async fn mentions(&self, query: &str, limit: usize) -> Vec<crate::attachment::Mention> {
        let inner = &self.pipeline.inner;
        inner.mentions.find(&inner.host, &self.settings(), query, limit).await
    }

    /// Attaches an image or PDF pasted or dropped into the chat.
    pub async fn attach_bytes(
        &self,
        name: &str,
        bytes: &[u8],
    ) -> Result<crate::attachment::Attachment, crate::attachment::AttachError> {
        let inner = &self.pipeline.inner;
        let attached =
            crate::attachment::attach_bytes_kept(&inner.host, &self.settings(), &inner.copies, name, bytes).await;
        self.pipeline.taken_by_model(attached)
    }

    /// The day's and the month's token use and estimated cost (the usage ledger, local time),
    /// for the settings.
    pub async fn usage_totals(&self) -> Result<crate::usage::UsageTotals, crate::HostError> {
        crate::usage::totals(&self.pipeline.inner.host).await
    }

    /// Deletes every conversation, what was set aside from their files, their turns' undo records
    /// and the attachment copies only they needed (a message still waiting or set aside keeps its
    /// own, a chip not sent yet too); returns how many conversations.
    pub async fn clear_history(&self) -> Result<usize, ProcessorError> {
        self.pipeline.clear_history().await
    }

    /// Every conversation, oldest first (a snapshot for lists; reads the archive once).
    pub async fn conversations(&self) -> Result<Vec<Conversation>, ProcessorError> {
        let host = &self.pipeline.inner.host;
        let mut guard = self.pipeline.inner.store.lock().await;
        match guard.as_mut() {
            Some(store) => Ok(store.all(host).await?),
            None => Ok(Vec::new()),
        }
    }

    /// Stops the message in flight and every background task; later messages are refused.
    pub fn dispose(&self) {
        self.pipeline.inner.tasks.abort_all();
    }

    /// The user's answer to an approval request (the chat view's card, or the agent API).
    pub async fn decide_approval(&self, id: &str, decision: Decision) -> Result<ApprovalRequest, ApprovalError> {
        self.pipeline.decide_approval(id, decision, None).await
    }

    /// An approval of a proposed change that accepts only some of its hunks (by number, from 1);
    /// `None` accepts all, as [`Self::decide_approval`] does. Hunks are ignored on a rejection.
    pub async fn decide_approval_hunks(
        &self,
        id: &str,
        decision: Decision,
        hunks: Option<Vec<usize>>,
    ) -> Result<ApprovalRequest, ApprovalError> {
        self.pipeline.decide_approval(id, decision, hunks).await
    }

    /// Reverses every change to the notes a message's turn made (newest first), each note only
    /// when it is as the turn left it; says which were restored and which refused, and why.
    pub async fn undo_turn(&self, message_id: &str) -> crate::vault::diff::UndoReport {
        let host = &self.pipeline.inner.host;
        let report = crate::undo::undo_turn(host, message_id, &self.settings()).await;
        host.emit(&crate::event::Event::TurnUndone { report: Box::new(report.clone()) });
        report
    }

    /// What a turn asked and changed, for the chat view redrawing a reopened conversation: its
    /// approval requests (settled ones for a week) and the changes it applied, undone or not.
    pub async fn turn_review(&self, message_id: &str) -> TurnReview {
        let inner = &self.pipeline.inner;
        TurnReview {
            approvals: inner.approvals.of_message(message_id),
            changes: crate::undo::applied_changes(&inner.host, message_id).await,
        }
    }

    /// The newest turn of the current conversation with a change to the notes not undone yet,
    /// among its last [`UNDO_LOOKBACK_TURNS`]: what the headless `/undo` reverts, also after a
    /// restart.
    pub async fn last_undoable_turn(&self) -> Option<String> {
        let current = self.current_conversation().await?;
        let lines = self.conversation_lines(&current.id).await.ok()?;
        let host = &self.pipeline.inner.host;
        let mut seen: Vec<&str> = Vec::new();
        for line in lines.iter().rev() {
            if seen.contains(&line.message_id.as_str()) {
                continue;
            }
            if seen.len() == UNDO_LOOKBACK_TURNS {
                break;
            }
            seen.push(&line.message_id);
            if crate::undo::applied_changes(host, &line.message_id).await.iter().any(|c| !c.undone) {
                return Some(line.message_id.clone());
            }
        }
        None
    }

    /// Approval requests waiting for an answer, oldest first (the chat view shows their cards).
    pub fn pending_approvals(&self) -> Vec<ApprovalRequest> {
        self.pipeline.pending_approvals()
    }

    /// Pauses, resumes or deletes a conversation's schedule; returns the conversation.
    pub async fn change_schedule(&self, id: &str, change: ScheduleChange) -> Result<Conversation, ProcessorError> {
        self.pipeline.change_schedule(id, change).await
    }

    /// Conversations with a schedule, soonest run first.
    pub async fn scheduled(&self) -> Vec<Conversation> {
        self.pipeline.scheduled().await
    }

    /// Runs the worker's tick now (tests; the worker ticks every 30 s on its own).
    pub async fn worker_tick(&self) {
        self.pipeline.worker_tick().await;
    }

    /// Answers an agent API request (the shim's HTTP server hands every request here).
    pub async fn handle_api(&self, request: ApiRequest) -> ApiResponse {
        self.pipeline.handle_api(request).await
    }

    /// The ports the agent API listens on (none when it is off).
    pub fn api_listeners(&self) -> Vec<Listener> {
        listeners(&self.settings())
    }

    /// The `/config` document, with the token only when `include_token` (for "Download config").
    pub fn api_config_document(&self, include_token: bool) -> Value {
        config_document(&self.settings(), include_token)
    }

    /// A fresh agent API token (64 hex digits) for the user to keep in secret storage.
    pub fn new_api_token(&self) -> String {
        let host = &self.pipeline.inner.host;
        (0..4).map(|_| format!("{:016x}", host.random_u64())).collect()
    }

    /// A message the user typed, with an id minted here (`direct-` and 64 random bits from the
    /// host) and the current time: the views pass it to `process`, and resend it for Retry.
    pub fn new_message(&self, text: &str) -> RoutedMessage {
        let host = &self.pipeline.inner.host;
        RoutedMessage::direct(new_id(host, DIRECT_ID_PREFIX), text.to_owned(), format_iso(host.now_ms()))
    }

    /// Background tasks running (summaries, retrospection, cleanup, messages in flight).
    pub fn running_tasks(&self) -> usize {
        self.pipeline.inner.tasks.running()
    }
}

impl<H: Host + 'static> Pipeline<H> {
    fn settings(&self) -> Rc<Settings> {
        Rc::clone(&self.inner.settings.borrow())
    }

    /// An attached image refused when the chat's model is known not to take images (its last
    /// connection check said so): said on the chip, before anything is sent.
    pub(super) fn taken_by_model(
        &self,
        attached: Result<crate::attachment::Attachment, crate::attachment::AttachError>,
    ) -> Result<crate::attachment::Attachment, crate::attachment::AttachError> {
        let attachment = attached?;
        let settings = self.settings();
        let refused = self.inner.images_refused.borrow();
        let same = refused.as_ref().is_some_and(|(url, model)| *url == settings.base_url && *model == settings.model);
        if same && attachment.kind == crate::attachment::AttachmentKind::Image {
            return Err(crate::attachment::AttachError::ModelTakesNoImages {
                model: settings.model.clone(),
                server: settings.base_url.clone(),
            });
        }
        Ok(attachment)
    }

    /// Builds the search index in the background, once; then writes it back every minute while
    /// it changes.
    fn start_search_index(&self) {
        if self.settings().search_index_max_mb == 0 || !self.inner.search.claim_start() {
            return;
        }
        let this = self.clone();
        self.spawn(async move {
            let settings = this.settings();
            this.inner.search.build(&this.inner.host, &settings).await;
            loop {
                this.inner.host.sleep(SEARCH_INDEX_SAVE_MS).await;
                this.inner.search.save(&this.inner.host).await;
            }
        });
    }

    fn spawn(&self, task: impl Future<Output = ()> + 'static) {
        let task = self.inner.tasks.wrap(task).map(drop);
        self.inner.host.spawn(task.boxed_local());
    }

    async fn initialize(&self) -> Result<(), ProcessorError> {
        let mut store = self.inner.store.lock().await;
        if store.is_none() {
            let mut opened = ConversationStore::open(&self.inner.host).await?;
            for text in opened.take_notices() {
                self.inner.host.emit(&Event::Notice { level: NoticeLevel::Warning, text });
            }
            *store = Some(opened);
            let names = self.inner.host.list_dir(inbox::INBOX_DIR).await.map_err(StoreError::from)?;
            self.inner.inbox.found_on_disk(names.iter().filter_map(|n| n.strip_suffix(".json")).map(str::to_owned));
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

    fn process(&self, raw: Value) -> impl Future<Output = ProcessResult> + 'static {
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
        let existing = self.inner.inbox.in_flight(&message.id);
        if let Some(existing) = existing {
            if message.from_hub() {
                self.respond(&message.id, ResponseKind::Ack, ack(&message.id), message_time(host, &message));
            }
            return Either::Right(existing);
        }
        let ticket = self.inner.run.ticket();
        let this = self.clone();
        let (id, conversation) = (message.id.clone(), message.named_conversation());
        Either::Right(self.track(id, conversation, async move { this.arrive(message, ticket).await }.boxed_local()))
    }

    /// Registers a message's processing so re-deliveries share it and dropping the processor
    /// stops it, and reports its result.
    fn track(
        &self,
        id: String,
        conversation_id: Option<String>,
        work: LocalBoxFuture<'static, ProcessResult>,
    ) -> SharedResult {
        let inner = Rc::clone(&self.inner);
        let key = id.clone();
        let work = self.inner.tasks.wrap(work);
        let shared = async move {
            let result = work.await.unwrap_or_else(|| ProcessResult::cancelled(&key));
            inner.inbox.finished(&key);
            inner.host.emit(&Event::Response { result: result.clone(), conversation_id });
            result
        }
        .boxed_local()
        .shared();
        self.inner.inbox.started(id, shared.clone());
        shared
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
                if let Err(e) = inbox::save(host, &entry).await {
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

    async fn load_entry(&self, message_id: &str) -> Option<InboxEntry> {
        inbox::load(&self.inner.host, message_id).await
    }

    /// Counts a new attempt of a left-over message, or moves it to `failed/` when it has had
    /// all of them, or when its runs took the app down twice. Returns the entry to run, or the
    /// result of a message set aside.
    async fn next_attempt(&self, mut entry: InboxEntry) -> Result<InboxEntry, ProcessResult> {
        let host = &self.inner.host;
        let journal = Journal::new(host, &entry.message.id).load().await.unwrap_or_default();
        let crashed = crate::journal::crashed_runs(&journal, entry.failures);
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

    /// Moves a message out of the inbox for good and tells the user.
    async fn give_up(&self, entry: &InboxEntry, reason: &str) {
        let host = &self.inner.host;
        // Written into failed/ (the vault may be synced) and shown: a server's words may echo a key.
        let reason = &*self.inner.secrets.mask(reason);
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

    async fn reprocess_pending(&self) -> Result<ReprocessSummary, ProcessorError> {
        self.initialize().await?;
        let host = &self.inner.host;
        let pending = inbox::list_pending(host).await.map_err(StoreError::from)?;
        let mut summary = ReprocessSummary::default();
        let mut runs = Vec::new();
        for item in pending {
            match item {
                Pending::Corrupt { file, reason, raw } => {
                    host.log(LogLevel::Warn, &format!("inbox file {file} is unreadable: {reason}"));
                    match inbox::move_to_failed(host, &file, None, Some(&raw), &reason).await {
                        Ok(path) => {
                            host.emit(&Event::Notice {
                                level: NoticeLevel::Warning,
                                text: format!("An unreadable inbox file was set aside in .smarthole/{path}: {reason}"),
                            });
                            summary.moved_to_failed.push(path);
                        }
                        Err(e) => host.log(LogLevel::Error, &format!("could not move {file} to failed/: {e}")),
                    }
                }
                Pending::Oversized { file, reason } => {
                    host.log(LogLevel::Warn, &format!("inbox file {file} is not read: {reason}"));
                    match inbox::move_oversized_to_failed(host, &file, &reason).await {
                        Ok(path) => {
                            host.emit(&Event::Notice {
                                level: NoticeLevel::Warning,
                                text: format!(
                                    "An inbox file too large to read was set aside in .smarthole/{path}: {reason}"
                                ),
                            });
                            summary.moved_to_failed.push(path);
                        }
                        Err(e) => host.log(LogLevel::Error, &format!("could not move {file} to failed/: {e}")),
                    }
                }
                Pending::Entry(entry) => {
                    if self.inner.inbox.is_in_flight(&entry.message.id) {
                        continue;
                    }
                    let ticket = self.inner.run.ticket();
                    let this = self.clone();
                    let (id, conversation) = (entry.message.id.clone(), entry.message.named_conversation());
                    let work = async move { this.resume(entry, ticket, true).await }.boxed_local();
                    runs.push(self.track(id, conversation, work));
                }
            }
        }
        for run in runs {
            summary.results.push(run.await);
        }
        Ok(summary)
    }

    /// Runs a left-over message as a new attempt. A hub message is acked again first: the run
    /// that saved it may have died before its ack left, and the hub, which matches answers by
    /// client name and message id rather than by connection, still waits for one before the
    /// answer (an ack that did leave is repeated; the hub takes it as the same answer).
    async fn resume(self, entry: InboxEntry, ticket: Ticket, ack_again: bool) -> ProcessResult {
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

    /// The pipeline after the inbox, for the message holding the gate.
    async fn run(&self, entry: InboxEntry) -> ProcessResult {
        let host = &self.inner.host;
        let message = entry.message.clone();
        let settings = self.settings();
        let target = target_of(&message);
        if let Target::Conversation(id) = &target {
            match self.claim_run(&message, id).await {
                Ok(Claim::Run) => {}
                Ok(Claim::Skip(why)) => {
                    host.log(LogLevel::Info, &format!("scheduled run {} skipped: {why}", message.id));
                    self.clean_up(&message).await;
                    return ProcessResult::cancelled(&message.id);
                }
                Err(e) => return self.storage_failure(&message, &e.to_string()),
            }
        }
        // Asking the host costs a round trip: only when the user has integrations.
        let integrations = if settings.mcp_servers.is_empty() { Vec::new() } else { host.mcp_servers().await };
        let context = match self.prepare(&message, &target, &settings, &integrations).await {
            Ok(Prepared::Recorded(turn)) => {
                // Recorded by an earlier run that stopped before cleaning up: finish, don't redo.
                host.log(LogLevel::Info, &format!("message {} was already recorded; finishing it", message.id));
                self.run_ended(&message, Ok(&turn.response)).await;
                self.clean_up(&message).await;
                let mut result = ProcessResult::success(&message.id, turn.response, turn.tools_used, turn.waiting);
                result.usage = turn.usage;
                return result;
            }
            Ok(Prepared::Fresh(context)) => context,
            Err(e) => return self.storage_failure(&message, &e.cause_text()),
        };
        // A scheduled run is work nobody waits on: the background model, or the job's own.
        let settings = match (&target, &context.prompt.schedule) {
            (Target::Conversation(_), schedule) => {
                Rc::new(settings.for_background(schedule.as_ref().and_then(|s| s.model.as_deref())))
            }
            (Target::Current, _) => settings,
        };
        let resume = if entry.attempts > 1 {
            Journal::new(host, &message.id).load().await.unwrap_or_default()
        } else {
            Vec::new()
        };
        let system = system_prompt(&settings, &context.prompt);
        let ttl = crate::schedule::cache_ttl(&message, context.prompt.schedule.as_ref(), host.now_ms());
        let notify_hub = |text: &str, priority| {
            self.notify_hub(&settings, &message.id, &message.text, text, priority, message_time(host, &message));
        };
        let approve = |ask| self.ask_approval(&message, ask).boxed_local();
        let start_index = || self.start_search_index();
        let input = TurnInput {
            system: &system,
            history: &context.history,
            context: message_context(&message, &context.prompt, host.now_ms()),
            ttl,
            tools: &self.inner.tools,
            message: &message,
            store: &self.inner.store,
            notify_hub: &notify_hub,
            approve: &approve,
            integrations: &integrations,
            index: &self.inner.search,
            start_index: &start_index,
            copies: &self.inner.copies,
        };
        let (abort, registration) = AbortHandle::new_pair();
        let guard = self.inner.run.begin(message.id.clone(), abort);
        // The run's start, journaled beside its first request and durable before its answer is
        // read: if handling the answer takes the app down, the next start counts it.
        let journal = Journal::new(host, &message.id);
        let started = journal.record(&JournalRecord::Started).boxed_local();
        let turn = Abortable::new(run_turn(host, &settings, input, resume, started), registration).await;
        drop(guard);
        match turn {
            Err(_) => self.finish_cancelled(&message).await,
            Ok(Err(error)) if error.kind == ErrorKind::Aborted => self.finish_cancelled(&message).await,
            Ok(Err(error)) => self.fail(entry, error, &settings.model).await,
            Ok(Ok(outcome)) => self.finish(&message, outcome, &settings.model).await,
        }
    }

    /// A finished turn of `model`: notify, record, update the conversation, clean up.
    async fn finish(&self, message: &RoutedMessage, mut outcome: TurnOutcome, model: &str) -> ProcessResult {
        let host = &self.inner.host;
        let settings = self.settings();
        let text = outcome.text();
        outcome.usage = crate::usage::priced(outcome.usage, model, &settings.model_prices);
        if message.from_hub() && !(outcome.question_sent_to_hub && text.trim().is_empty()) {
            let mut body = if text.trim().is_empty() { "Done.".to_owned() } else { text.clone() };
            if let Some(notice) = &outcome.notice {
                body = format!("{body} ({notice})");
            }
            let priority = if outcome.waiting() { Priority::High } else { Priority::Normal };
            self.notify_hub(&settings, &message.id, &message.text, &body, priority, message_time(host, message));
        }
        let mut result = ProcessResult::success(&message.id, text, outcome.tools_used.clone(), outcome.waiting());
        result.notice = outcome.notice.clone();
        result.usage = (outcome.usage.model_calls > 0).then(|| outcome.usage.clone());
        match self.record(message, &outcome).await {
            Ok(()) => {
                host.emit(&Event::stage(message, Stage::HistoryRecorded));
                self.run_ended(message, Ok(result.response.as_deref().unwrap_or(""))).await;
                self.clean_up(message).await;
            }
            Err(e) => {
                // The answer stands, but it is not in history: the inbox keeps the message so
                // nothing is lost, and the user is told.
                let e = e.cause_text();
                host.log(LogLevel::Error, &format!("could not record message {}: {e}", message.id));
                self.inner.inbox.kept_on_disk(&message.id);
                host.emit(&Event::Notice {
                    level: NoticeLevel::Error,
                    text: format!(
                        "The answer could not be saved to the conversation history ({e}). Check that the vault folder is writable."
                    ),
                });
            }
        }
        result
    }

    async fn finish_cancelled(&self, message: &RoutedMessage) -> ProcessResult {
        self.inner.host.log(LogLevel::Info, &format!("message {} stopped by the user", message.id));
        self.run_ended(message, Ok("stopped by the user")).await;
        self.clean_up(message).await;
        ProcessResult::cancelled(&message.id)
    }

    /// A failed turn of `model`: the user is told, the message stays in the inbox for a later attempt, or
    /// moves to `failed/` when it has had all of them.
    async fn fail(&self, mut entry: InboxEntry, error: LlmError, model: &str) -> ProcessResult {
        let host = &self.inner.host;
        let settings = self.settings();
        let message = entry.message.clone();
        let user_message = error.user_message(model);
        host.log(LogLevel::Warn, &format!("message {} failed: {error}", message.id));
        // One that waits to be tried again tells the hub it waits (`retry_later`), not the error.
        if message.from_hub() && !waits_to_retry(&entry, &error) {
            let body = format!("Error: {user_message}");
            self.notify_hub(&settings, &message.id, &message.text, &body, Priority::High, message_time(host, &message));
        }
        entry.last_error = Some(self.inner.secrets.mask(&error.to_string()).into_owned());
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
        let this = self.clone();
        let id = message.id.clone();
        self.spawn(async move {
            this.inner.host.sleep(delay).await;
            // A Retry click or a re-delivery may have run it already, or be running it now.
            if this.inner.inbox.is_in_flight(&id) {
                return;
            }
            let Some(entry) = this.load_entry(&id).await else { return };
            let ticket = this.inner.run.ticket();
            let runner = this.clone();
            let conversation = entry.message.named_conversation();
            let work = async move { runner.resume(entry, ticket, false).await }.boxed_local();
            this.track(id, conversation, work).await;
        });
    }

    fn storage_failure(&self, message: &RoutedMessage, why: &str) -> ProcessResult {
        self.inner.host.log(LogLevel::Error, &format!("history unavailable for {}: {why}", message.id));
        ProcessResult::failure(&message.id, STORAGE_ERROR, format!("Could not read the conversation history ({why})."))
    }

    /// Removes a finished message from the inbox.
    async fn clean_up(&self, message: &RoutedMessage) {
        let host = &self.inner.host;
        let message_id = &message.id;
        match inbox::remove(host, message_id).await {
            Ok(()) => host.emit(&Event::stage(message, Stage::InboxCleaned)),
            Err(e) => host.log(LogLevel::Warn, &format!("could not remove {message_id} from the inbox: {e}")),
        }
        self.inner.inbox.removed_from_disk(message_id);
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
