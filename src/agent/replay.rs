//! Resuming a turn from the journal of an earlier, unfinished run: the turn so far rebuilt, and
//! a tool step it left open completed — tools that finished keep their recorded result, tools
//! that never started run now, a tool that started without a result is reported as interrupted.

use crate::host::Host;
use crate::host_types::LogLevel;
use crate::journal::{Journal, JournalRecord};
use crate::llm::{ApiMessage, ContentBlock, Role};
use crate::tools::{ToolContext, ToolEffect, ToolRegistry};

use super::outcome::{pending_calls, TurnOutcome};
use super::tool_step::run_one_tool;

/// A tool step left unfinished by an earlier run.
pub(super) struct OpenStep {
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

/// Rebuilds the turn so far from the journal of an earlier run. Returns the last tool step if
/// it was left open.
pub(super) fn replay(records: Vec<JournalRecord>) -> (TurnOutcome, Option<OpenStep>) {
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
            // An ACP agent's steps (the agent setting changed between runs): its own replay's.
            JournalRecord::AgentToolStarted { .. }
            | JournalRecord::AgentToolDone { .. }
            | JournalRecord::AgentCost { .. } => {}
        }
    }
    (outcome, open)
}

/// Completes a tool step an earlier run left open: tools that finished keep their recorded
/// result, tools that never started run now, and a tool that started without a result is
/// reported as interrupted — never run twice.
pub(super) async fn finish_open_step<H: Host>(
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
