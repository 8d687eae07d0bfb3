//! The run after the inbox, for the message holding the gate: a scheduled run claimed, the
//! conversation's context prepared (or an earlier recording found), the turn with its tools —
//! abortable by Stop —, then the finish: the hub notified, the turn recorded, the inbox cleaned.
//! A failed turn goes to `failure.rs`.

use std::rc::Rc;

use futures::future::{AbortHandle, Abortable, FutureExt, LocalBoxFuture};

use super::conversations::Prepared;
use super::handle::MessageProcessor;
use super::hub::message_time;
use super::worker::{target_of, Claim};
use crate::agent::{run_turn, TurnInput, TurnOutcome};
use crate::approval::{ApprovalAsk, ApprovalOutcome};
use crate::event::{Event, NoticeLevel, Stage};
use crate::host::Host;
use crate::host_types::LogLevel;
use crate::hub::Priority;
use crate::inbox::{self, InboxEntry};
use crate::journal::{Journal, JournalRecord};
use crate::llm::ErrorKind;
use crate::llm::MessagesJson;
use crate::mcp::McpServer;
use crate::message::{ProcessResult, RoutedMessage};
use crate::prompt::{message_context, system_prompt};
use crate::store::Target;
use crate::tools::{ToolRegistry, TurnServices};

impl<H: Host + 'static> MessageProcessor<H> {
    /// Stops the message in flight: its request, retry wait or tool is abandoned and it resolves
    /// as cancelled. Returns whether there was one. A no-op when idle. (`stop` in chat_view.rs
    /// answers with what is left in flight.)
    pub fn cancel_current_processing(&self) -> bool {
        self.stop().stopped.is_some()
    }

    /// Runs one tool outside a turn, approvals refused (tests compare tools' answers quickly,
    /// without a model round trip and a growing conversation).
    #[cfg(feature = "testing")]
    pub async fn run_tool(&self, name: &str, input: &serde_json::Value) -> (String, bool) {
        let settings = self.settings();
        let message = self.new_message("a tool run by a test");
        let notify = |_: &str, _: Priority| {};
        let approve = |_| async { ApprovalOutcome::Rejected }.boxed_local();
        let start_index = || self.start_search_index();
        let services = self.turn_services(&message, &notify, &approve, &[], &start_index);
        let ctx = crate::tools::ToolContext::new(&self.inner.host, &settings, services);
        let out = self.inner.tools.run(&ctx, name, input).await;
        (out.content, out.is_error)
    }

    /// What the processor lends a turn's tools: the message, the conversations, the hub and
    /// approvals as the callbacks given, the integrations, the search index.
    pub(super) fn turn_services<'a>(
        &'a self,
        message: &'a RoutedMessage,
        notify_hub: &'a dyn Fn(&str, Priority),
        approve: &'a dyn Fn(ApprovalAsk) -> LocalBoxFuture<'a, ApprovalOutcome>,
        integrations: &'a [McpServer],
        start_index: &'a dyn Fn(),
    ) -> TurnServices<'a> {
        TurnServices {
            message,
            store: &self.inner.store,
            notify_hub,
            approve,
            integrations,
            index: &self.inner.search,
            meaning: &self.inner.meaning,
            start_index,
            edits: &self.inner.edits,
        }
    }

    /// The pipeline after the inbox, for the message holding the gate.
    pub(super) async fn run(&self, entry: InboxEntry) -> ProcessResult {
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
        let integrations = if settings.mcp_servers.is_empty() {
            Vec::new()
        } else {
            host.mcp_servers(crate::mcp::CONNECT_WAIT_MS).await
        };
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
                let mut background = settings.for_background(schedule.as_ref().and_then(|s| s.model.as_deref()));
                // A job runs on the agent it names; the built-in one unless it names another.
                if let Some(schedule) = schedule {
                    background.agent = schedule.agent.unwrap_or_default();
                }
                Rc::new(background)
            }
            (Target::Current, _) => settings,
        };
        self.inner.edits.begin(&message.id, message.edit.as_deref());
        if let Some((kind, folder)) = self.acp_agent(&settings) {
            return self.run_acp(entry, &context, &settings, kind, folder).await;
        }
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
        // An edit in place is a request of its own: the passage and what to do, no tools, no
        // earlier turns (it is recorded in the conversation like any message).
        let (no_tools, no_history) = (ToolRegistry::none(), MessagesJson::default());
        let edit = message.edit.is_some();
        let input = TurnInput {
            system: &system,
            history: if edit { &no_history } else { &context.history },
            context: message_context(&message, &context.prompt, host.now_ms()),
            ttl,
            tools: if edit { &no_tools } else { &self.inner.tools },
            copies: &self.inner.attachments.copies,
            services: self.turn_services(
                &message,
                &notify_hub,
                &approve,
                if edit { &[] } else { &integrations },
                &start_index,
            ),
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
    pub(super) async fn finish(&self, message: &RoutedMessage, mut outcome: TurnOutcome, model: &str) -> ProcessResult {
        let host = &self.inner.host;
        let settings = self.settings();
        self.inner.edits.end();
        if let Some(target) = message.edit.as_deref().filter(|_| !outcome.waiting()) {
            self.propose_edit(message, target, &mut outcome).await;
        }
        let text = outcome.text();
        if outcome.agent_session.is_none() {
            outcome.usage = crate::usage::priced(outcome.usage, model, &settings.model_prices);
        }
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

    /// A run the user stopped: nothing recorded, the message leaves the inbox.
    pub(super) async fn finish_cancelled(&self, message: &RoutedMessage) -> ProcessResult {
        self.inner.edits.end();
        self.inner.host.log(LogLevel::Info, &format!("message {} stopped by the user", message.id));
        self.run_ended(message, Ok("stopped by the user")).await;
        self.clean_up(message).await;
        ProcessResult::cancelled(&message.id)
    }

    /// A run whose history could not be read or written.
    fn storage_failure(&self, message: &RoutedMessage, why: &str) -> ProcessResult {
        self.inner.host.log(LogLevel::Error, &format!("history unavailable for {}: {why}", message.id));
        let text = format!("Could not read the conversation history ({why}).");
        ProcessResult::failure(&message.id, super::failure::STORAGE_ERROR, text)
    }

    /// Removes a finished message from the inbox.
    pub(super) async fn clean_up(&self, message: &RoutedMessage) {
        let host = &self.inner.host;
        let message_id = &message.id;
        match inbox::remove(host, message_id).await {
            Ok(()) => host.emit(&Event::stage(message, Stage::InboxCleaned)),
            Err(e) => host.log(LogLevel::Warn, &format!("could not remove {message_id} from the inbox: {e}")),
        }
        self.inner.inbox.removed_from_disk(message_id);
    }
}
