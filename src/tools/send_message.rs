//! `send_message`: the agent talks to the user mid-task, or asks a question and waits.

use serde_json::Value;

use super::args::Args;
use super::call::{tool_def, ToolContext, ToolEffect, ToolOutput};
use crate::conversation::QuestionType;
use crate::event::Event;
use crate::host::Host;
use crate::hub::Priority;
use crate::llm::ToolDef;

pub(super) const NAME: &str = "send_message";

/// What the tool accepts (also what its input is checked against).
const SCHEMA: &str = r#"{"type":"object","properties":{"message":{"type":"string","description":"The text to show the user (Markdown)."},"is_question":{"type":"boolean","description":"True when you need the user's answer before going on."}},"required":["message"]}"#;

pub(super) fn definition() -> ToolDef {
    tool_def(
        NAME,
        "Send a message to the user right now, while you keep working (progress on a long task), \
or ask the user a question. With is_question=true your turn ends after this call and the user's reply \
arrives as the next message.",
        SCHEMA,
    )
}

pub(super) fn run<H: Host>(ctx: &ToolContext<'_, H>, input: &Value) -> ToolOutput {
    let args = match Args::parse(NAME, SCHEMA, input) {
        Ok(args) => args,
        Err(e) => return e,
    };
    let message = args.string("message");
    let is_question = args.flag("is_question");
    if message.trim().is_empty() {
        return ToolOutput::error("Invalid input for send_message: message is empty.");
    }
    ctx.host.emit(&Event::AgentMessage {
        message_id: ctx.services.message.id.clone(),
        conversation_id: ctx.services.message.named_conversation(),
        content: message.clone(),
        is_question,
        question_type: is_question.then_some(QuestionType::Input),
        options: Vec::new(),
    });
    let to_hub = ctx.services.message.from_hub();
    if to_hub {
        let priority = if is_question { Priority::High } else { Priority::Normal };
        (ctx.services.notify_hub)(&message, priority);
    }
    if is_question {
        ToolOutput {
            content: "Question delivered. End your turn now; the user's reply will arrive as the next message."
                .to_owned(),
            is_error: false,
            effect: ToolEffect::Question {
                question_type: QuestionType::Input,
                prompt: message,
                options: Vec::new(),
                sent_to_hub: to_hub,
            },
        }
    } else {
        ToolOutput::ok("Message delivered to the user.")
    }
}
