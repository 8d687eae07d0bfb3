//! A turn answered by the user's own agent over ACP, in place of the built-in agent's tool loop
//! (`run.rs` chooses): the agent started and its handshake done (`initialize`, 30 s at most),
//! the conversation's session reused, loaded or made (with the recent history as text when a
//! new session continues a conversation), the message prompted, the session's updates shown as
//! the built-in agent's are (tokens, tool chips, the plan, usage), permission requests answered
//! (`acp::permission`), then the pipeline's finish. Stop is `session/cancel` (the view is idle
//! at once: the turn is dropped); the agent's end mid-turn fails the turn like a failed model
//! call (the message kept and tried again, never recorded twice).

use std::rc::Rc;

use futures::channel::mpsc::{self, UnboundedReceiver};
use futures::future::{select, AbortHandle, Abortable, Either};
use futures::{stream, StreamExt};
use serde_json::json;

use super::agent_calls::{EarlierCalls, RunCalls};
use super::agent_stop::CancelOnDrop;
use super::agent_tools::{Incoming, ServedTools};
use super::agent_usage;
use super::conversations::TurnContext;
use super::handle::MessageProcessor;
use crate::acp::client::Delivery;
use crate::acp::error::AcpError;
use crate::acp::launch::AgentKind;
use crate::acp::messages::{self, PermissionRequest};
use crate::acp::permission::{self, PermissionChoice};
use crate::acp::progress::{Shown, TurnProgress};
use crate::acp::session;
use crate::agent::TurnOutcome;
use crate::approval::{ApprovalAsk, ApprovalOutcome};
use crate::event::{Event, Stage};
use crate::host::Host;
use crate::inbox::InboxEntry;
use crate::journal::{Journal, JournalRecord};
use crate::llm::{ApiMessage, ContentBlock, ErrorKind, LlmError, Role, Usage};
use crate::message::{ProcessResult, RoutedMessage};
use crate::prompt::message_context;
use crate::settings::Settings;

/// The longest wait for the agent's answer to `initialize`, `session/new` or `session/load`.
pub(crate) const AGENT_SETUP_MS: u64 = 30_000;

impl<H: Host + 'static> MessageProcessor<H> {
    /// The run of a message by an ACP agent, from the prepared context to its result.
    pub(super) async fn run_acp(
        &self,
        entry: InboxEntry,
        context: &TurnContext,
        settings: &Rc<Settings>,
        kind: AgentKind,
        folder: String,
    ) -> ProcessResult {
        let message = entry.message.clone();
        let (abort, registration) = AbortHandle::new_pair();
        let guard = self.inner.run.begin(message.id.clone(), abort);
        let earlier = self.earlier_records(&message, entry.attempts).await;
        self.counted_costs_from(&earlier);
        let calls = RunCalls::new(EarlierCalls::from_records(&earlier), entry.attempts);
        let turn =
            Abortable::new(self.acp_turn(&message, context, settings, (kind, &folder), calls), registration).await;
        drop(guard);
        match turn {
            Err(_) => self.finish_cancelled(&message).await,
            Ok(Err(error)) => self.fail(entry, agent_failure(&error), kind.label()).await,
            Ok(Ok(outcome)) => self.finish(&message, outcome, kind.name()).await,
        }
    }

    async fn acp_turn(
        &self,
        message: &RoutedMessage,
        context: &TurnContext,
        settings: &Settings,
        (kind, folder): (AgentKind, &str),
        mut run_calls: RunCalls,
    ) -> Result<TurnOutcome, AcpError> {
        let host = &self.inner.host;
        let (sender, mut rx) = mpsc::unbounded();
        let _listening = self.inner.acp.listen(sender);
        self.agent_ready(message, settings, kind, folder, &mut rx).await?;
        let history = history_text(context);
        let (session, with_history) =
            self.acp_session(context, kind, folder, settings, !history.is_empty(), &mut rx).await?;
        self.inner.acp.client.borrow_mut().session_live(&session);
        if session::session_of(kind, context.session.as_deref()).as_deref() == Some(session.as_str()) {
            self.counted_cost_kept(&session, context.session_cost);
        }
        self.cancelled_prompt_ended(&session, &mut rx).await?;
        let context_text = message_context(message, &context.prompt, host.now_ms());
        let said = match run_calls.earlier.note() {
            Some(note) => format!("{context_text}\n\n{note}\n\n{}", message.text),
            None => format!("{context_text}\n\n{}", message.text),
        };
        let text = session::prompt_text(if with_history { &history } else { &[] }, &said);
        // The run's start, durable before the prompt goes out: a run that takes the app down
        // counts toward setting the message aside, as the built-in agent's does.
        Journal::new(host, &message.id).record(&JournalRecord::Started).await;
        host.emit(&Event::stage(message, Stage::ModelRequest));
        self.inner.acp.client.borrow_mut().begin_prompt();
        let prompt = self.acp_request("session/prompt", &session::prompt_params(&session, &text));
        let mut cancel =
            CancelOnDrop { processor: self, prompt: Some((prompt, session.clone())), kind, reported: None };
        let mut progress = TurnProgress::default();
        let (call_tx, calls) = mpsc::unbounded();
        let _serving = self.inner.acp.serve_tools(call_tx);
        let mut served = ServedTools::default();
        let mut incoming = stream::select(rx.by_ref().map(Incoming::Agent), calls.map(Incoming::Tool));
        let mut tokens = None;
        let ended = loop {
            let delivery = match incoming.next().await {
                Some(Incoming::Agent(delivery)) => delivery,
                Some(Incoming::Tool(call)) => {
                    let id = served.call_id(&call.name);
                    let asked = run_calls.asked;
                    let output =
                        self.served_call(message, settings, &mut run_calls, (&call.name, &call.input), id).await;
                    served.effects.push(output.effect.clone());
                    let _ = call.reply.send(output);
                    if run_calls.asked && !asked {
                        // A question ends the turn, as for the built-in agent: the agent stops now.
                        self.acp_cancel(&session);
                    }
                    continue;
                }
                None => break Err(AcpError::Unavailable("the agent's connection closed".into())),
            };
            match delivery {
                Delivery::Update(update) if update.session_id == session => {
                    for shown in progress.apply(update.update) {
                        served.started(&shown);
                        self.show(message, shown);
                    }
                    cancel.reported.clone_from(&progress.usage);
                }
                Delivery::Permission { id, request } => {
                    self.acp_permission(message, settings, folder, id, *request).await
                }
                Delivery::Reply { id, outcome } if id == prompt => {
                    cancel.prompt = None;
                    break match outcome {
                        Ok(value) => {
                            tokens = agent_usage::prompt_tokens(&value);
                            Ok(messages::stop_reason(&value).unwrap_or_else(|_| "end_turn".to_owned()))
                        }
                        Err(error) => Err(AcpError::Refused {
                            agent: kind.label().to_owned(),
                            method: "session/prompt".into(),
                            message: error.message,
                        }),
                    };
                }
                Delivery::Failed(error) => {
                    cancel.prompt = None;
                    self.count_stopped_turn(None);
                    break Err(error);
                }
                // An earlier stopped prompt's last reports and answer.
                other @ (Delivery::Update(_) | Delivery::Reply { .. } | Delivery::Ready) => {
                    self.stopped_turn_heard(&other)
                }
            }
        };
        let turn = (message.id.as_str(), session.as_str(), kind.label());
        self.ledger_agent_turn(turn, tokens, progress.usage.as_ref(), ended.is_ok()).await;
        let stop_reason = ended?;
        let mut outcome = outcome_of(progress, &stop_reason, kind, &session, context_text);
        outcome.agent_session_cost = self.counted_cost(&session);
        run_calls.earlier.effects().chain(&served.effects).for_each(|effect| outcome.apply(effect));
        for name in run_calls.earlier.names() {
            if !outcome.tools_used.iter().any(|used| used == name) {
                outcome.tools_used.push(name.to_owned());
            }
        }
        if run_calls.asked && stop_reason == "cancelled" {
            // Cancelled by us, for the question: the turn ended as it should.
            outcome.notice = None;
        }
        // Given the note tools and never connected (Gemini CLI in a folder it does not trust).
        if let Some(text) = self.inner.acp.server_reach.borrow_mut().notice_at_turn_end(kind, folder) {
            outcome.notice = Some(match outcome.notice.take() {
                Some(earlier) => format!("{earlier}. {text}"),
                None => text,
            });
        }
        Ok(outcome)
    }

    /// Starts the agent if it is not running as these settings say ("Starting Claude Code…" on
    /// the answer until it begins) — or joins a start under way (a background prompt's,
    /// `acp_bring_up`) — and waits for its handshake.
    async fn agent_ready(
        &self,
        message: &RoutedMessage,
        settings: &Settings,
        kind: AgentKind,
        folder: &str,
        rx: &mut UnboundedReceiver<Delivery>,
    ) -> Result<(), AcpError> {
        let launch = self.acp_launch(settings, kind, folder)?;
        // No agent without its note tools: the listener must be open (and the process running
        // was given this port, else it starts anew).
        let port = self.tools_port(kind).await?;
        if self.acp_ready_as(kind, &launch, port) {
            return Ok(());
        }
        let (message_id, conversation_id, text) =
            (message.id.clone(), message.named_conversation(), format!("Starting {}…", kind.label()));
        self.inner.host.emit(&Event::Waiting { message_id, conversation_id, text });
        if self.acp_bring_up(kind, launch, port).await? {
            return Ok(());
        }
        self.acp_wait(rx, "initialize", |delivery| matches!(delivery, Delivery::Ready).then_some(())).await
    }

    /// Waits up to [`AGENT_SETUP_MS`] for the delivery `want` accepts; a failure ends the wait,
    /// a permission request meanwhile is refused, silence stops the agent with an error naming
    /// `method`.
    pub(super) async fn acp_wait<T>(
        &self,
        rx: &mut UnboundedReceiver<Delivery>,
        method: &str,
        mut want: impl FnMut(&Delivery) -> Option<T>,
    ) -> Result<T, AcpError> {
        let mut timer = Box::pin(self.inner.host.sleep(AGENT_SETUP_MS));
        loop {
            match select(rx.next(), timer.as_mut()).await {
                Either::Left((Some(delivery), _)) => {
                    // A stopped prompt's last reports and answer may come meanwhile.
                    self.stopped_turn_heard(&delivery);
                    if let Some(found) = want(&delivery) {
                        return Ok(found);
                    }
                    match delivery {
                        Delivery::Failed(error) => return Err(error),
                        Delivery::Permission { id, request } => {
                            let actions =
                                self.inner.acp.client.borrow_mut().answer(&id, &permission::rejected(&request));
                            self.acp_apply(actions, Vec::new());
                        }
                        _ => {}
                    }
                }
                Either::Left((None, _)) => return Err(AcpError::Unavailable("the agent's connection closed".into())),
                Either::Right(_) => {
                    let (actions, error) = self.inner.acp.client.borrow_mut().silent(method, AGENT_SETUP_MS / 1000);
                    self.acp_apply(actions, Vec::new());
                    return Err(error);
                }
            }
        }
    }

    /// Answers a permission request: by the plugin for its own tools and (by default) the
    /// agent's; with the advanced setting on, by the user on an approval card (5 minutes, then
    /// rejected).
    async fn acp_permission(
        &self,
        message: &RoutedMessage,
        settings: &Settings,
        folder: &str,
        id: serde_json::Value,
        request: PermissionRequest,
    ) {
        let answer = match permission::decide(&request, settings.agent_own_tools) {
            PermissionChoice::Answer(answer) => answer,
            PermissionChoice::AskUser => {
                let call = &request.tool_call;
                let change = permission::proposed_change(&request, folder);
                let ask = ApprovalAsk {
                    action: format!("agent_{}", call.kind.as_deref().unwrap_or("tool")),
                    summary: call.title.clone().unwrap_or_else(|| "The agent wants to use one of its own tools".into()),
                    details: call.raw_input.clone().unwrap_or_else(|| json!({})),
                    whole_only: change.as_ref().map(|_| permission::whole_change_reason(settings.agent.label())),
                    change: change.clone(),
                    tool_use_id: Some(call.tool_call_id.clone()),
                };
                match self.ask_approval(message, ask).await {
                    ApprovalOutcome::Approved(hunks) if permission::grants_whole(change.as_ref(), hunks.as_deref()) => {
                        permission::approved(&request)
                    }
                    _ => permission::rejected(&request),
                }
            }
        };
        let actions = self.inner.acp.client.borrow_mut().answer(&id, &answer);
        self.acp_apply(actions, Vec::new());
    }

    /// Shows a turn's progress as the built-in agent's is shown.
    fn show(&self, message: &RoutedMessage, shown: Shown) {
        let message_id = message.id.clone();
        let conversation_id = message.named_conversation();
        let event = match shown {
            Shown::Text(text) => {
                self.inner.edits.push(&self.inner.host, &message_id, &text);
                Event::TextDelta { message_id, conversation_id, text }
            }
            Shown::ToolStarted { id, name, input } => {
                // A `smarthole` tool in its own words; the agent's own tool by the title it gave.
                let words = crate::tools::words(&name, &input);
                Event::ToolStarted { message_id, conversation_id, tool_use_id: id, name, input, words }
            }
            Shown::ToolFinished { id, name, is_error, output } => {
                Event::ToolFinished { message_id, conversation_id, tool_use_id: id, name, is_error, output }
            }
            Shown::Plan(entries) => Event::Plan { message_id, conversation_id, entries },
        };
        self.inner.host.emit(&event);
    }
}

/// The answer to request `id`, as `acp_wait` looks for it.
pub(super) fn reply_to(id: u64, delivery: &Delivery) -> Option<Result<serde_json::Value, crate::acp::codec::RpcError>> {
    match delivery {
        Delivery::Reply { id: got, outcome } if *got == id => Some(outcome.clone()),
        _ => None,
    }
}

/// The conversation's history as (from the user, text) pairs, for a new session continuing it.
fn history_text(context: &TurnContext) -> Vec<(bool, String)> {
    let mut json = String::new();
    context.history.write_with(&[], &mut json);
    let messages: Vec<ApiMessage> = serde_json::from_str(&json).unwrap_or_default();
    messages.iter().map(|m| (m.role == Role::User, m.text())).filter(|(_, text)| !text.trim().is_empty()).collect()
}

/// A finished prompt as the pipeline records it.
fn outcome_of(
    progress: TurnProgress,
    stop_reason: &str,
    kind: AgentKind,
    session: &str,
    context: String,
) -> TurnOutcome {
    let mut outcome = TurnOutcome::default();
    if !progress.text.is_empty() {
        outcome.messages.push(ApiMessage { role: Role::Assistant, content: vec![ContentBlock::text(progress.text)] });
    }
    outcome.tools_used = progress.tools_used;
    outcome.context = context;
    outcome.notice = match stop_reason {
        "max_tokens" => Some(format!("{} stopped: it reached its output limit", kind.label())),
        "max_turn_requests" => Some(format!("{} stopped: it reached its limit of steps", kind.label())),
        "refusal" => Some(format!("{} refused to continue", kind.label())),
        "cancelled" => Some(format!("{} cancelled the turn", kind.label())),
        _ if progress.cut => Some("the answer was too long and was cut".to_owned()),
        _ => None,
    };
    if let Some(usage) = progress.usage {
        outcome.usage = Usage {
            model_calls: 1,
            context_tokens: usage.used,
            context_window: usage.size,
            cost_usd: usage.cost_usd,
            model: kind.name().to_owned(),
            ..Usage::default()
        };
    }
    outcome.agent_session = Some(session::stored_session(kind, session));
    outcome
}

/// An agent's failure as the pipeline's failure of a turn: a passing one is tried again as a
/// failed model call is; one the user must fix waits in the inbox for the next start.
fn agent_failure(error: &AcpError) -> LlmError {
    LlmError {
        advice: Some(error.to_string()),
        should_retry: Some(error.passing()),
        ..LlmError::new(ErrorKind::Agent, error.to_string())
    }
}
