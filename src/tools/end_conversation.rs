//! `end_conversation`: the agent closes the current conversation once the task is done; the
//! next message starts a fresh one.

use serde_json::Value;

use super::args::Args;
use super::call::{tool_def, ToolEffect, ToolOutput};
use crate::llm::ToolDef;

pub(super) const NAME: &str = "end_conversation";

/// What the tool accepts (also what its input is checked against).
const SCHEMA: &str = r#"{"type":"object","properties":{"reason":{"type":"string","description":"Why the conversation is over, in a few words."}}}"#;

pub(super) fn definition() -> ToolDef {
    tool_def(
        NAME,
        "End the current conversation when the user's task is complete or they say goodbye. \
The next message starts a new conversation without this one's history.",
        SCHEMA,
    )
}

pub(super) fn run(input: &Value) -> ToolOutput {
    let args = match Args::parse(NAME, SCHEMA, input) {
        Ok(args) => args,
        Err(e) => return e,
    };
    let reason = args
        .str("reason")
        .map(|r| r.trim().to_owned())
        .filter(|r| !r.is_empty())
        .unwrap_or_else(|| "task complete".to_owned());
    ToolOutput {
        content: "The conversation will end after this turn. Say a short goodbye if appropriate.".to_owned(),
        is_error: false,
        effect: ToolEffect::EndConversation { reason },
    }
}
