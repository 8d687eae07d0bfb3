//! The tools the agent can call: their definitions for the model, input validation, and
//! execution. Each tool answers with text the model can act on; a bad input is an `is_error`
//! result that says what was wrong, never a failure of the turn.
//!
//! This file is the registry (definitions offered, a call dispatched by name). What a call gets
//! and gives is `call.rs` (`ToolContext` with the turn's `TurnServices`, `ToolOutput`,
//! `ToolEffect`); inputs are checked against their schema by `args.rs`; every call's 10 s budget
//! is `budget.rs`. The note tools: `notes.rs` (definitions, dispatch, the tools that only read),
//! `note_changes.rs` (write, edit, create a folder, delete, move), `note_paths.rs` (their first
//! steps), `review.rs` (review-first changes: approval, the atomic apply, the undo record),
//! `find.rs` (`search_files`), `list.rs` (`list_files`), `scope.rs` (a folder's notes for a
//! search), `indexer.rs` (the search index's life). The conversation tools: `send_message.rs`,
//! `needs_input.rs`, `end_conversation.rs`, `get_conversation.rs`, `schedule.rs`
//! (`create_schedule`, `state_update`, `keep_question_open`); `integrations.rs` (MCP tools).

pub(crate) mod args;
pub(crate) mod budget;
mod call;
pub(crate) mod edit_in_place;
pub(crate) mod edit_stream;
mod end_conversation;
mod find;
pub(crate) mod find_meaning;
mod find_scan;
mod get_conversation;
pub(crate) mod index_listing;
pub(crate) mod indexer;
mod integrations;
mod list;
pub(crate) mod meaning;
mod needs_input;
mod note_changes;
mod note_paths;
mod notes;
mod review;
mod schedule;
mod scope;
mod send_message;

use std::cell::OnceCell;

use serde_json::Value;

use crate::host::Host;
use crate::llm::request::tools_json;
use crate::llm::ToolDef;
use crate::mcp::{self, McpServer};
pub(crate) use call::{ToolContext, ToolEffect, ToolOutput, TurnServices};

/// The built-in tools. An enum rather than trait objects: the set is known, dispatch is a match,
/// and each tool stays an ordinary async function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BuiltinTool {
    SendMessage,
    EndConversation,
    GetConversation,
    NeedsInput,
    KeepQuestionOpen,
    CreateSchedule,
    StateUpdate,
}

impl BuiltinTool {
    /// Every built-in tool, in the order offered to the model.
    pub(crate) const ALL: [BuiltinTool; 7] = [
        BuiltinTool::SendMessage,
        BuiltinTool::NeedsInput,
        BuiltinTool::KeepQuestionOpen,
        BuiltinTool::EndConversation,
        BuiltinTool::GetConversation,
        BuiltinTool::CreateSchedule,
        BuiltinTool::StateUpdate,
    ];

    /// The name the model calls it by.
    pub(crate) fn name(self) -> &'static str {
        match self {
            BuiltinTool::SendMessage => send_message::NAME,
            BuiltinTool::EndConversation => end_conversation::NAME,
            BuiltinTool::GetConversation => get_conversation::NAME,
            BuiltinTool::NeedsInput => needs_input::NAME,
            BuiltinTool::KeepQuestionOpen => schedule::KEEP_QUESTION_OPEN,
            BuiltinTool::CreateSchedule => schedule::CREATE_SCHEDULE,
            BuiltinTool::StateUpdate => schedule::STATE_UPDATE,
        }
    }

    /// A call of it in the user's words, for its chip in the chat view.
    pub(crate) fn words(self) -> &'static str {
        match self {
            BuiltinTool::SendMessage => "Send you an update",
            BuiltinTool::EndConversation => "End the conversation",
            BuiltinTool::GetConversation => "Read a past conversation",
            BuiltinTool::NeedsInput => "Ask you",
            BuiltinTool::KeepQuestionOpen => "Keep the question open",
            BuiltinTool::CreateSchedule => "Schedule a task",
            BuiltinTool::StateUpdate => "Update the task's notes",
        }
    }

    /// Its definition for the model.
    pub(crate) fn definition(self) -> ToolDef {
        match self {
            BuiltinTool::SendMessage => send_message::definition(),
            BuiltinTool::EndConversation => end_conversation::definition(),
            BuiltinTool::GetConversation => get_conversation::definition(),
            BuiltinTool::NeedsInput => needs_input::definition(),
            BuiltinTool::KeepQuestionOpen => schedule::keep_definition(),
            BuiltinTool::CreateSchedule => schedule::create_definition(),
            BuiltinTool::StateUpdate => schedule::state_definition(),
        }
    }
}

/// A tool call in the user's words, the one place they are written: the `tool_started` event
/// carries them and the chat view's replay of a history asks for them (`toolWords`). A note
/// tool's name its input's path ("Delete Notes/Old.md"), an integration's tool and server
/// (`mcp.rs`), a built-in tool's action; an unknown name as it is.
pub(crate) fn words(name: &str, input: &Value) -> String {
    if let Some(words) = notes::words(name, input).or_else(|| mcp::tool_words(name)) {
        return words;
    }
    BuiltinTool::ALL.iter().find(|t| t.name() == name).map_or_else(|| name.to_owned(), |t| t.words().to_owned())
}

/// The tools offered in a turn: the conversation tools, the note tools, then the connected
/// integrations' tools.
#[derive(Debug, Clone)]
pub struct ToolRegistry {
    tools: Vec<BuiltinTool>,
    /// The definitions and their request JSON, built at first use: the registry is made with
    /// the processor at every start, before Send is enabled, and the first request may come
    /// much later (issue 37).
    built: OnceCell<Definitions>,
}

/// The built-in tools' definitions, and the same as the request carries them, serialised once.
#[derive(Debug, Clone)]
struct Definitions {
    definitions: Vec<ToolDef>,
    request_json: String,
}

impl Default for ToolRegistry {
    fn default() -> Self {
        ToolRegistry { tools: BuiltinTool::ALL.to_vec(), built: OnceCell::new() }
    }
}

impl ToolRegistry {
    /// No tools: a request that must be answered in words (an edit in place).
    pub(crate) fn none() -> Self {
        let none = Definitions { definitions: Vec::new(), request_json: String::new() };
        ToolRegistry { tools: Vec::new(), built: OnceCell::from(none) }
    }

    fn built(&self) -> &Definitions {
        self.built.get_or_init(|| {
            let definitions: Vec<ToolDef> =
                self.tools.iter().map(|t| t.definition()).chain(notes::definitions()).collect();
            let request_json = tools_json(&definitions);
            Definitions { definitions, request_json }
        })
    }

    /// The request's `tools` array: the built-in ones (serialised once) and, when integrations
    /// are connected, theirs.
    pub fn request_json(&self, integrations: &[McpServer]) -> String {
        let built = self.built();
        let extra = mcp::definitions(integrations);
        if extra.is_empty() {
            return built.request_json.clone();
        }
        tools_json(&[built.definitions.as_slice(), extra.as_slice()].concat())
    }

    /// The definitions of the tools named in `names`, in the registry's order (what the
    /// `smarthole` MCP server offers an ACP agent).
    pub(crate) fn definitions_of(&self, names: &[&str]) -> Vec<ToolDef> {
        self.built().definitions.iter().filter(|d| names.contains(&d.name.as_str())).cloned().collect()
    }

    /// Runs a tool call by name; an unknown name is an error result.
    pub async fn run<H: Host>(&self, ctx: &ToolContext<'_, H>, name: &str, input: &Value) -> ToolOutput {
        if notes::has(name) {
            return notes::run(ctx, name, input).await;
        }
        if name.starts_with(mcp::TOOL_PREFIX) {
            return integrations::call(ctx, name, input).await;
        }
        let Some(tool) = self.tools.iter().copied().find(|t| t.name() == name) else {
            let known: Vec<&str> = self.tools.iter().map(|t| t.name()).chain(notes::names()).collect();
            return ToolOutput::error(format!("Unknown tool \"{name}\". Available tools: {}.", known.join(", ")));
        };
        match tool {
            BuiltinTool::SendMessage => send_message::run(ctx, input),
            BuiltinTool::EndConversation => end_conversation::run(input),
            BuiltinTool::GetConversation => get_conversation::run(ctx.host, ctx.services.store, input).await,
            BuiltinTool::NeedsInput => needs_input::run(ctx, input),
            BuiltinTool::KeepQuestionOpen => schedule::keep_question(),
            BuiltinTool::CreateSchedule => schedule::create(ctx, input).await,
            BuiltinTool::StateUpdate => schedule::state_update(input),
        }
    }
}
