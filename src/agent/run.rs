//! The turn's loop: the request weighed against the API's limit, the history's attachments
//! resolved, then model ↔ tools until the model is done or the calls run out, each model call
//! retried by the client's policy with streamed text and retries reported.

use crate::conversation::context::push_merged;
use crate::event::{Event, Stage};
use crate::host::Host;
use crate::journal::{Journal, JournalRecord};
use crate::llm::{ApiMessage, ContentBlock, ErrorKind, LlmError, ModelCall, ModelResponse, Role};
use crate::llm_client::client;
use crate::settings::{ApiFormat, Settings};
use crate::tools::{ToolContext, TurnServices};
use crate::usage::CallPurpose;
use futures::future::LocalBoxFuture;

use super::outcome::{TurnInput, TurnOutcome};
use super::replay::{finish_open_step, replay};
use super::tool_step::step;

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
        let mut response = call_with_retry(host, settings, call, &tool_ctx.services, &mut started).await?;
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

/// One model call with the retry policy; streamed text and retries go to the UI. `ready`, when
/// given, is finished before the answer is read.
async fn call_with_retry<H: Host>(
    host: &H,
    settings: &Settings,
    call: ModelCall<'_>,
    services: &TurnServices<'_>,
    ready: &mut Option<LocalBoxFuture<'_, ()>>,
) -> Result<ModelResponse, LlmError> {
    let message = services.message;
    // Read from the message once per call, not once per streamed piece.
    let conversation_id = message.named_conversation();
    let mut on_text = |text: &str| {
        host.emit(&Event::TextDelta {
            message_id: message.id.clone(),
            conversation_id: conversation_id.clone(),
            text: text.to_owned(),
        });
        services.edits.push(host, &message.id, text);
    };
    let mut on_attempt = |attempt: client::Attempt<'_>| match attempt {
        client::Attempt::Request => {
            // A call starts (or starts over): an edit in place's answer so far is void.
            services.edits.restart(&message.id);
            host.emit(&Event::stage(message, Stage::ModelRequest))
        }
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
