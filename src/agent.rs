//! One turn of the agent: model ↔ tools until the model is done, with the rules that keep it
//! safe — every `tool_use` answered by exactly one `tool_result` in the next user message; no
//! tool of an answer cut by `max_tokens` or refused is run; a capped number of model calls; a
//! failed model call retried (1 s, 2 s, 4 s) without repeating tools that already ran; every
//! step journaled so a restart resumes instead of repeating.

use serde_json::Value;

use crate::conversation::context::push_merged;
use crate::conversation::{QuestionType, Schedule};
use crate::event::{Event, Stage};
use crate::host::Host;
use crate::host_types::LogLevel;
use crate::journal::{Journal, JournalRecord};
use crate::llm::request::CacheTtl;
use crate::llm::{
    ApiMessage, ContentBlock, ErrorKind, LlmError, MessagesJson, ModelCall, ModelResponse, Role, StopReason,
    SystemPart, Usage,
};
use crate::llm_client::client;
use crate::message::RoutedMessage;
use crate::schedule::StatePatch;
use crate::settings::{ApiFormat, Settings};
use crate::tools::{ToolContext, ToolEffect, ToolRegistry, TurnServices};
use crate::usage::CallPurpose;
use futures::future::LocalBoxFuture;

/// Longest tool output shown in a `tool_finished` event.
const EVENT_OUTPUT_CHARS: usize = 300;

/// What a turn starts from.
pub(crate) struct TurnInput<'a> {
    pub system: &'a [SystemPart],
    /// The earlier conversation, serialised.
    pub history: &'a MessagesJson,
    /// The message context that opens the user's message (`prompt::message_context`); a resumed
    /// turn uses the one its journal recorded instead.
    pub context: String,
    /// The prompt-cache lifetime its requests ask for.
    pub ttl: CacheTtl,
    pub tools: &'a ToolRegistry,
    /// Attachments' copies already read and checked.
    pub copies: &'a crate::attachment::Copies,
    /// What its tools are lent: the message it answers, the conversations, the hub, approvals,
    /// integrations and the search index.
    pub services: TurnServices<'a>,
}

/// What a finished turn produced.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct TurnOutcome {
    /// The messages the turn added after the user's: assistant answers and tool results.
    pub messages: Vec<ApiMessage>,
    pub tools_used: Vec<String>,
    /// The question the agent asked and waits on.
    pub question: Option<AskedQuestion>,
    /// The question already went to the hub.
    pub question_sent_to_hub: bool,
    pub end_conversation: Option<String>,
    /// The schedule the agent created (the last one wins).
    pub schedule: Option<Schedule>,
    /// State changes: a schedule's initial state and `state_update` calls, merged in order.
    pub state: StatePatch,
    /// The user's message did not answer the pending question, which stays open.
    pub keep_question: bool,
    /// Something the user must know about how the turn ended (a limit hit, a refusal).
    pub notice: Option<String>,
    /// Model calls answered so far (merged messages would undercount them).
    model_calls: u32,
    /// The message context the turn's requests sent, recorded with the user's message.
    pub context: String,
    /// Whether the context is in the journal already.
    context_journaled: bool,
    /// What the turn's model calls consumed, summed (the context filled is the newest call's).
    pub usage: Usage,
}

/// A question asked in a turn.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AskedQuestion {
    pub question_type: QuestionType,
    pub prompt: String,
    pub options: Vec<String>,
}

impl TurnOutcome {
    /// The agent asked a question and waits for the reply.
    pub(crate) fn waiting(&self) -> bool {
        self.question.is_some()
    }

    /// The assistant's text, as streamed to the user.
    pub(crate) fn text(&self) -> String {
        let parts: Vec<String> = self
            .messages
            .iter()
            .filter(|m| m.role == Role::Assistant)
            .map(ApiMessage::text)
            .filter(|t| !t.trim().is_empty())
            .collect();
        parts.join("\n\n")
    }

    fn push(&mut self, message: ApiMessage) {
        push_merged(&mut self.messages, message);
    }

    /// Applies a tool's effect to the turn.
    fn apply(&mut self, effect: &ToolEffect) {
        match effect {
            ToolEffect::None => {}
            ToolEffect::Question { question_type, prompt, options, sent_to_hub } => {
                self.question = Some(AskedQuestion {
                    question_type: *question_type,
                    prompt: prompt.clone(),
                    options: options.clone(),
                });
                self.question_sent_to_hub |= sent_to_hub;
            }
            ToolEffect::EndConversation { reason } => self.end_conversation = Some(reason.clone()),
            ToolEffect::Schedule { schedule, state } => {
                self.schedule = Some((**schedule).clone());
                self.state.merge(state);
            }
            ToolEffect::StateUpdate { patch } => self.state.merge(patch),
            ToolEffect::KeepQuestion => self.keep_question = true,
        }
    }
}

/// A tool step left unfinished by an earlier run.
struct OpenStep {
    /// Results recorded, by tool_use id.
    done: Vec<(String, ContentBlock, ToolEffect)>,
    started: Vec<String>,
}

/// The result given for a tool call that started in an earlier run but left no result: its
/// outcome is unknown, so it is reported, never run again.
fn interrupted(id: &str, name: &str) -> ContentBlock {
    ContentBlock::ToolResult {
        tool_use_id: id.to_owned(),
        content: format!(
            "The {name} call was interrupted (the app stopped while it ran); its outcome is unknown. Check its effect before trying again."
        ),
        is_error: true,
    }
}

/// The tool calls of the last message of the turn so far.
fn pending_calls(outcome: &TurnOutcome) -> Vec<(String, String, Value)> {
    outcome
        .messages
        .last()
        .map(|m| m.tool_uses().map(|(id, name, input)| (id.to_owned(), name.to_owned(), input.clone())).collect())
        .unwrap_or_default()
}

/// Rebuilds the turn so far from the journal of an earlier run. Returns the last tool step if
/// it was left open.
fn replay(records: Vec<JournalRecord>) -> (TurnOutcome, Option<OpenStep>) {
    let mut outcome = TurnOutcome::default();
    let mut open: Option<OpenStep> = None;
    for record in records {
        match record {
            JournalRecord::Started => {}
            JournalRecord::Context { content } => {
                outcome.context = content;
                outcome.context_journaled = true;
            }
            JournalRecord::Assistant { content, usage } => {
                if let Some(usage) = usage {
                    outcome.usage.add(&usage);
                }
                if let Some(step) = open.take() {
                    // The model was called again, so every tool of that step had finished.
                    let results = pending_calls(&outcome)
                        .into_iter()
                        .map(|(id, name, _)| match step.done.iter().find(|(d, _, _)| *d == id) {
                            Some((_, block, effect)) => {
                                outcome.apply(effect);
                                block.clone()
                            }
                            None => interrupted(&id, &name),
                        })
                        .collect();
                    outcome.push(ApiMessage { role: Role::User, content: results });
                }
                outcome.model_calls += 1;
                let message = ApiMessage { role: Role::Assistant, content };
                outcome.tools_used.extend(message.tool_uses().map(|(_, name, _)| name.to_owned()));
                let has_tools = message.tool_uses().next().is_some();
                outcome.push(message);
                if has_tools {
                    open = Some(OpenStep { done: Vec::new(), started: Vec::new() });
                }
            }
            JournalRecord::ToolStarted { tool_use_id } => {
                if let Some(step) = &mut open {
                    step.started.push(tool_use_id);
                }
            }
            JournalRecord::ToolDone { tool_use_id, content, is_error, effect } => {
                if let Some(step) = &mut open {
                    let block = ContentBlock::ToolResult { tool_use_id: tool_use_id.clone(), content, is_error };
                    step.done.push((tool_use_id, block, effect));
                }
            }
        }
    }
    (outcome, open)
}

/// Runs one turn. `resume` holds the journal of an earlier, unfinished run of the same message;
/// `started` is the write noting this run's start, made beside the first request and finished
/// before its answer is read.
pub(crate) async fn run_turn<'a, H: Host>(
    host: &'a H,
    settings: &'a Settings,
    input: TurnInput<'a>,
    resume: Vec<JournalRecord>,
    started: LocalBoxFuture<'a, ()>,
) -> Result<TurnOutcome, LlmError> {
    let mut started = Some(started);
    let journal = Journal::new(host, &input.services.message.id);
    let tool_ctx = ToolContext::new(host, settings, input.services);
    let tools_json = input.tools.request_json(input.services.integrations);
    let (mut outcome, open) = replay(resume);
    if !outcome.context_journaled {
        outcome.context = input.context.clone();
    }
    let message = input.services.message;
    // The whole request against the API's limit before anything is sent: what to drop is known
    // now, by name, not after a refused round trip.
    if settings.api_format == ApiFormat::Anthropic {
        let earlier = crate::attachment::history_attachments(input.history);
        let other = input.history.len() + tools_json.len() + outcome.context.len() + message.text.len();
        if let Some(advice) = crate::attachment::over_limit(other as u64, &message.attachments, &earlier) {
            let error = LlmError::new(ErrorKind::TooLarge, "the attachments pass the request limit");
            return Err(LlmError { advice: Some(advice), ..error });
        }
    }
    let user_message = ApiMessage {
        role: Role::User,
        content: std::iter::once(ContentBlock::text(outcome.context.clone()))
            .chain(crate::attachment::user_content(&message.text, &message.attachments))
            .collect(),
    };
    // Attachments (this message's and the history's) become blocks from their copies, once a
    // turn: a tool loop sends the same bytes every call.
    let user_message = crate::attachment::resolve_message(host, input.copies, &user_message).await;
    let resolved_history = crate::attachment::resolve_history(host, input.copies, input.history).await;
    let history = resolved_history.as_ref().unwrap_or(input.history);
    if let Some(step) = open {
        finish_open_step(host, &journal, &tool_ctx, input.tools, &mut outcome, step).await;
    }
    loop {
        if outcome.waiting() {
            break;
        }
        if outcome.model_calls >= settings.max_iterations {
            outcome.notice = Some(format!(
                "I stopped after {} model calls, the limit for one message, before finishing. Reply \"continue\" to let me go on.",
                settings.max_iterations
            ));
            break;
        }
        let mut messages = vec![user_message.clone()];
        for m in &outcome.messages {
            push_merged(&mut messages, m.clone());
        }
        let call = ModelCall { system: input.system, history, messages: &messages, tools: &tools_json, ttl: input.ttl };
        let mut response = call_with_retry(host, settings, call, message, &mut started).await?;
        // Into the ledger before the journal: a crash between the two calls the model again,
        // which is a new cost, so nothing is counted twice.
        crate::usage::record_call(host, (&settings.model, &settings.model_prices), CallPurpose::Turn, &response.usage)
            .await;
        outcome.model_calls += 1;
        response.usage.model_calls = 1;
        response.usage.context_tokens = response.usage.total_input() + response.usage.output_tokens;
        outcome.usage.add(&response.usage);
        if !step(host, &journal, &tool_ctx, input.tools, settings, &mut outcome, response).await {
            break;
        }
    }
    Ok(outcome)
}

/// Handles one model answer; returns whether the loop goes on.
#[allow(clippy::too_many_arguments)]
async fn step<H: Host>(
    host: &H,
    journal: &Journal<'_, H>,
    ctx: &ToolContext<'_, H>,
    tools: &ToolRegistry,
    settings: &Settings,
    outcome: &mut TurnOutcome,
    response: ModelResponse,
) -> bool {
    let has_tools = response.content.iter().any(|b| matches!(b, ContentBlock::ToolUse { .. }));
    let stopped_short =
        matches!(response.stop_reason, StopReason::MaxTokens | StopReason::Refusal | StopReason::AnswerTooLong);
    if stopped_short || !response.truncated_tools.is_empty() {
        // Whatever tool calls this answer holds, none of them run: their input may be cut, or
        // the model declined. Keep the text only, so history stays valid.
        let text: Vec<ContentBlock> =
            response.content.into_iter().filter(|b| matches!(b, ContentBlock::Text { .. })).collect();
        let skipped: Vec<String> = response.truncated_tools.iter().map(|t| t.name.clone()).collect();
        if !text.is_empty() {
            outcome.push(ApiMessage { role: Role::Assistant, content: text });
        }
        outcome.notice = Some(match response.stop_reason {
            StopReason::Refusal => "The model declined to continue with this request.".to_owned(),
            StopReason::AnswerTooLong => format!(
                "The answer passed {} MB and was cut there{}.",
                client::MAX_ANSWER_BYTES / (1024 * 1024),
                if has_tools || !skipped.is_empty() { "; the tool call it was making was not run" } else { "" }
            ),
            _ if has_tools || !skipped.is_empty() => format!(
                "The answer reached the max tokens limit ({}) and was cut off; the tool call it was making was not run. \
Raise \"max tokens\" in settings or ask for a smaller step.",
                settings.max_tokens
            ),
            _ => format!("The answer reached the max tokens limit ({}) and was cut off.", settings.max_tokens),
        });
        return false;
    }
    let usage = response.usage;
    let message = ApiMessage { role: Role::Assistant, content: response.content };
    if !has_tools {
        let pause = response.stop_reason == StopReason::PauseTurn;
        if !message.content.is_empty() {
            if pause {
                journal_context(journal, outcome).await;
                journal
                    .record(&JournalRecord::Assistant { content: message.content.clone(), usage: Some(usage) })
                    .await;
            }
            outcome.push(message);
        }
        return pause;
    }
    journal_context(journal, outcome).await;
    journal.record(&JournalRecord::Assistant { content: message.content.clone(), usage: Some(usage) }).await;
    outcome.tools_used.extend(message.tool_uses().map(|(_, name, _)| name.to_owned()));
    outcome.push(message);
    let mut results = Vec::new();
    for (id, name, input) in pending_calls(outcome) {
        results.push(run_one_tool(host, journal, ctx, tools, outcome, &id, &name, &input).await);
    }
    outcome.push(ApiMessage { role: Role::User, content: results });
    !outcome.waiting()
}

/// Writes the turn's message context to the journal ahead of its first step, once.
async fn journal_context<H: Host>(journal: &Journal<'_, H>, outcome: &mut TurnOutcome) {
    if !outcome.context_journaled {
        journal.record(&JournalRecord::Context { content: outcome.context.clone() }).await;
        outcome.context_journaled = true;
    }
}

/// Runs one tool call, journaled and reported; after a question, the rest of the batch waits.
#[allow(clippy::too_many_arguments)]
async fn run_one_tool<H: Host>(
    host: &H,
    journal: &Journal<'_, H>,
    ctx: &ToolContext<'_, H>,
    tools: &ToolRegistry,
    outcome: &mut TurnOutcome,
    id: &str,
    name: &str,
    input: &Value,
) -> ContentBlock {
    if outcome.waiting() {
        return ContentBlock::ToolResult {
            tool_use_id: id.to_owned(),
            content: "Not run: you asked the user a question in this turn; wait for the answer.".to_owned(),
            is_error: true,
        };
    }
    let message_id = ctx.services.message.id.clone();
    let conversation_id = ctx.services.message.named_conversation();
    host.emit(&Event::ToolStarted {
        message_id: message_id.clone(),
        conversation_id: conversation_id.clone(),
        tool_use_id: id.to_owned(),
        name: name.to_owned(),
        input: input.clone(),
    });
    journal.record(&JournalRecord::ToolStarted { tool_use_id: id.to_owned() }).await;
    let output = tools.run(&ToolContext { tool_use_id: id.to_owned(), ..*ctx }, name, input).await;
    journal
        .record(&JournalRecord::ToolDone {
            tool_use_id: id.to_owned(),
            content: output.content.clone(),
            is_error: output.is_error,
            effect: output.effect.clone(),
        })
        .await;
    host.emit(&Event::ToolFinished {
        message_id,
        conversation_id,
        tool_use_id: id.to_owned(),
        name: name.to_owned(),
        is_error: output.is_error,
        output: output.content.chars().take(EVENT_OUTPUT_CHARS).collect(),
    });
    outcome.apply(&output.effect);
    ContentBlock::ToolResult { tool_use_id: id.to_owned(), content: output.content, is_error: output.is_error }
}

/// Completes a tool step an earlier run left open: tools that finished keep their recorded
/// result, tools that never started run now, and a tool that started without a result is
/// reported as interrupted — never run twice.
async fn finish_open_step<H: Host>(
    host: &H,
    journal: &Journal<'_, H>,
    ctx: &ToolContext<'_, H>,
    tools: &ToolRegistry,
    outcome: &mut TurnOutcome,
    open: OpenStep,
) {
    let mut results = Vec::new();
    for (id, name, input) in pending_calls(outcome) {
        if let Some((_, block, effect)) = open.done.iter().find(|(done, _, _)| *done == id) {
            outcome.apply(effect);
            results.push(block.clone());
        } else if open.started.contains(&id) {
            host.log(LogLevel::Warn, &format!("tool {name} ({id}) was interrupted by a restart; not running it again"));
            results.push(interrupted(&id, &name));
        } else {
            results.push(run_one_tool(host, journal, ctx, tools, outcome, &id, &name, &input).await);
        }
    }
    outcome.push(ApiMessage { role: Role::User, content: results });
}

/// One model call with the retry policy; streamed text and retries go to the UI. `ready`, when
/// given, is finished before the answer is read.
async fn call_with_retry<H: Host>(
    host: &H,
    settings: &Settings,
    call: ModelCall<'_>,
    message: &RoutedMessage,
    ready: &mut Option<LocalBoxFuture<'_, ()>>,
) -> Result<ModelResponse, LlmError> {
    // Read from the message once per call, not once per streamed piece.
    let conversation_id = message.named_conversation();
    let mut on_text = |text: &str| {
        host.emit(&Event::TextDelta {
            message_id: message.id.clone(),
            conversation_id: conversation_id.clone(),
            text: text.to_owned(),
        })
    };
    let mut on_attempt = |attempt: client::Attempt<'_>| match attempt {
        client::Attempt::Request => host.emit(&Event::stage(message, Stage::ModelRequest)),
        client::Attempt::Retry { attempt, delay_ms, error } => host.emit(&Event::retrying(
            message,
            attempt,
            delay_ms,
            error.kind.code(),
            error.user_message(&settings.model),
        )),
        client::Attempt::Waiting { waited_ms, limit_ms } => host.emit(&Event::Waiting {
            message_id: message.id.clone(),
            conversation_id: conversation_id.clone(),
            text: format!(
                "Waiting for {} to begin answering ({} s so far; gives up at {} s)…",
                client::server_name(settings),
                waited_ms / 1000,
                limit_ms / 1000
            ),
        }),
    };
    client::call_with_retry(host, settings, call, &mut on_text, &mut on_attempt, ready).await
}
