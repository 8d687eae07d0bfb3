//! One model answer handled: its text kept, its tool calls run one by one — each journaled and
//! reported, none of an answer cut by `max_tokens` or refused —, their results sent back.

use serde_json::Value;

use crate::event::Event;
use crate::host::Host;
use crate::journal::{Journal, JournalRecord};
use crate::llm::{ApiMessage, ContentBlock, ModelResponse, Role, StopReason};
use crate::llm_client::client;
use crate::settings::Settings;
use crate::tools::{ToolContext, ToolRegistry};

use super::outcome::{pending_calls, TurnOutcome};

/// Longest tool output shown in a `tool_finished` event.
const EVENT_OUTPUT_CHARS: usize = 300;

/// Handles one model answer; returns whether the loop goes on.
#[allow(clippy::too_many_arguments)]
pub(super) async fn step<H: Host>(
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
pub(super) async fn run_one_tool<H: Host>(
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
        words: crate::tools::words(name, input),
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
