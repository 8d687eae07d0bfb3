//! A prompt turn's progress, from the session's updates: the answer's text (streamed to the
//! chat as tokens, recorded as the turn's answer), tool calls (chips in words), the plan (a
//! checklist) and the usage (the cost line). Plain: [`TurnProgress::apply`] says what to show.

use serde_json::{json, Value};

use super::messages::{PlanEntry, SessionUpdate, ToolCallFields};
use super::permission::SMARTHOLE_TOOL_PREFIX;

/// The most answer text kept from one turn; past it the rest is dropped and the user told.
pub(crate) const MAX_ANSWER_BYTES: usize = 4 * 1024 * 1024;

/// How much of a tool's output a chip shows.
const TOOL_OUTPUT_CHARS: usize = 2_000;

/// Something the chat shows.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Shown {
    Text(String),
    ToolStarted { id: String, name: String, input: Value },
    ToolFinished { id: String, name: String, is_error: bool, output: String },
    Plan(Vec<PlanEntry>),
}

/// The context window and cost an agent reported last.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct AgentUsage {
    pub used: u64,
    pub size: u64,
    /// In US dollars, when the agent gave a cost in USD.
    pub cost_usd: Option<f64>,
}

/// What a prompt turn has produced so far.
#[derive(Debug, Default)]
pub(crate) struct TurnProgress {
    pub text: String,
    /// Tool calls seen: id, name shown, finished.
    tools: Vec<(String, String, bool)>,
    /// Names of the tools used, in order, once each.
    pub tools_used: Vec<String>,
    pub usage: Option<AgentUsage>,
    /// The answer outgrew [`MAX_ANSWER_BYTES`].
    pub cut: bool,
}

impl TurnProgress {
    /// Applies one update; returns what to show.
    pub(crate) fn apply(&mut self, update: SessionUpdate) -> Vec<Shown> {
        match update {
            SessionUpdate::AgentMessageChunk(text) => {
                let Some(text) = text.filter(|t| !t.is_empty()) else {
                    return Vec::new();
                };
                if self.text.len() + text.len() > MAX_ANSWER_BYTES {
                    self.cut = true;
                    return Vec::new();
                }
                self.text.push_str(&text);
                vec![Shown::Text(text)]
            }
            SessionUpdate::ToolCall(call) => self.tool(call, true),
            SessionUpdate::ToolCallUpdate(call) => self.tool(call, false),
            SessionUpdate::Plan(entries) => vec![Shown::Plan(entries)],
            SessionUpdate::UsageUpdate { used, size, cost } => {
                let cost_usd = cost.filter(|c| c.currency.eq_ignore_ascii_case("USD")).map(|c| c.amount);
                self.usage = Some(AgentUsage { used, size, cost_usd });
                Vec::new()
            }
            SessionUpdate::AgentThoughtChunk
            | SessionUpdate::UserMessageChunk
            | SessionUpdate::AvailableCommandsUpdate
            | SessionUpdate::Other => Vec::new(),
        }
    }

    fn tool(&mut self, call: ToolCallFields, new: bool) -> Vec<Shown> {
        let mut shown = Vec::new();
        let known = self.tools.iter().position(|(id, _, _)| *id == call.tool_call_id);
        let index = match known {
            Some(index) => index,
            None if new || call.title.is_some() || call.status.is_some() => {
                let (name, input) = chip(&call);
                if !self.tools_used.contains(&name) {
                    self.tools_used.push(name.clone());
                }
                shown.push(Shown::ToolStarted { id: call.tool_call_id.clone(), name: name.clone(), input });
                self.tools.push((call.tool_call_id.clone(), name, false));
                self.tools.len() - 1
            }
            None => return shown,
        };
        let status = call.status.as_deref().unwrap_or_default();
        let (id, name, finished) = &mut self.tools[index];
        if !*finished && matches!(status, "completed" | "failed") {
            *finished = true;
            shown.push(Shown::ToolFinished {
                id: id.clone(),
                name: name.clone(),
                is_error: status == "failed",
                output: output_text(&call),
            });
        }
        shown
    }
}

/// A tool call's chip: the plugin's own tools by their names (the chat words them), any other
/// by the agent's title, with its input.
fn chip(call: &ToolCallFields) -> (String, Value) {
    let title = call.title.clone().unwrap_or_default();
    let input = call.raw_input.clone().unwrap_or_else(|| json!({}));
    match title.strip_prefix(SMARTHOLE_TOOL_PREFIX) {
        Some(tool) => (tool.to_owned(), input),
        None if !title.trim().is_empty() => (title, input),
        None => (call.kind.clone().unwrap_or_else(|| "tool".to_owned()), input),
    }
}

/// A finished tool's output as text: its content's text blocks, else its raw output.
fn output_text(call: &ToolCallFields) -> String {
    let texts: Vec<&str> =
        call.content.iter().filter_map(|c| c.pointer("/content/text").and_then(Value::as_str)).collect();
    let text = if texts.is_empty() {
        call.raw_output.as_ref().map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned)).unwrap_or_default()
    } else {
        texts.join("\n")
    };
    match text.char_indices().nth(TOOL_OUTPUT_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text,
    }
}
