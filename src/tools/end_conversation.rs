//! `end_conversation`: the agent closes the current conversation once the task is done; the
//! next message starts a fresh one.

use serde::Deserialize;
use serde_json::{json, Value};

use super::{parse_input, ToolEffect, ToolOutput};
use crate::llm::ToolDef;

pub const NAME: &str = "end_conversation";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Input {
    #[serde(default)]
    reason: Option<String>,
}

pub fn definition() -> ToolDef {
    ToolDef {
        name: NAME.to_owned(),
        description: "End the current conversation when the user's task is complete or they say goodbye. \
The next message starts a new conversation without this one's history."
            .to_owned(),
        input_schema: json!({
            "type": "object",
            "properties": {"reason": {"type": "string", "description": "Why the conversation is over, in a few words."}}
        }),
    }
}

pub fn run(input: &Value) -> ToolOutput {
    let input: Input = match parse_input(NAME, input) {
        Ok(i) => i,
        Err(e) => return e,
    };
    let reason = input
        .reason
        .map(|r| r.trim().to_owned())
        .filter(|r| !r.is_empty())
        .unwrap_or_else(|| "task complete".to_owned());
    ToolOutput {
        content: "The conversation will end after this turn. Say a short goodbye if appropriate.".to_owned(),
        is_error: false,
        effect: ToolEffect::EndConversation { reason },
    }
}
