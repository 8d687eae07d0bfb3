//! `send_message`: the agent talks to the user mid-task, or asks a question and waits.

use serde::Deserialize;
use serde_json::{json, Value};

use super::{parse_input, ToolContext, ToolEffect, ToolOutput};
use crate::conversation::QuestionType;
use crate::event::Event;
use crate::host::Host;
use crate::hub::frames::{notification, summarize, NOTIFICATION_BODY_CHARS};
use crate::hub::Priority;
use crate::llm::ToolDef;

pub const NAME: &str = "send_message";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Input {
    message: String,
    #[serde(default)]
    is_question: bool,
}

pub fn definition() -> ToolDef {
    ToolDef {
        name: NAME.to_owned(),
        description: "Send a message to the user right now, while you keep working (progress on a long task), \
or ask the user a question. With is_question=true your turn ends after this call and the user's reply \
arrives as the next message."
            .to_owned(),
        input_schema: json!({
            "type": "object",
            "properties": {
                "message": {"type": "string", "description": "The text to show the user (Markdown)."},
                "is_question": {"type": "boolean", "description": "True when you need the user's answer before going on."}
            },
            "required": ["message"]
        }),
    }
}

pub fn run<H: Host>(ctx: &ToolContext<'_, H>, input: &Value) -> ToolOutput {
    let input: Input = match parse_input(NAME, input) {
        Ok(i) => i,
        Err(e) => return e,
    };
    if input.message.trim().is_empty() {
        return ToolOutput::error("Invalid input for send_message: message is empty.");
    }
    ctx.host.emit(&Event::AgentMessage {
        message_id: ctx.message.id.clone(),
        content: input.message.clone(),
        is_question: input.is_question,
        question_type: input.is_question.then_some(QuestionType::Input),
        options: Vec::new(),
    });
    let to_hub = ctx.message.from_hub();
    if to_hub {
        let priority = if input.is_question { Priority::High } else { Priority::Normal };
        let body = summarize(&input.message, NOTIFICATION_BODY_CHARS);
        (ctx.notify_hub)(notification(&ctx.message.id, &ctx.settings.notification_title, &body, priority));
    }
    if input.is_question {
        ToolOutput {
            content: "Question delivered. End your turn now; the user's reply will arrive as the next message."
                .to_owned(),
            is_error: false,
            effect: ToolEffect::Question {
                question_type: QuestionType::Input,
                prompt: input.message,
                options: Vec::new(),
                sent_to_hub: to_hub,
            },
        }
    } else {
        ToolOutput::ok("Message delivered to the user.")
    }
}
