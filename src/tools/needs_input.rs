//! `needs_input` (seed 000): the agent asks a structured question — a confirmation, a choice
//! among options, or free input — and waits. The chat view shows it as a card with buttons.

use serde_json::Value;

use super::args::Args;
use super::call::{tool_def, ToolContext, ToolEffect, ToolOutput};
use crate::conversation::QuestionType;
use crate::event::Event;
use crate::host::Host;
use crate::hub::Priority;
use crate::llm::ToolDef;

pub(super) const NAME: &str = "needs_input";
/// Most options a choice may offer.
const MAX_OPTIONS: usize = 10;

/// What the tool accepts (also what its input is checked against).
const SCHEMA: &str = r#"{"type":"object","properties":{"type":{"type":"string","enum":["confirmation","choice","input"]},"prompt":{"type":"string","description":"The question (Markdown)."},"options":{"type":"array","items":{"type":"string"},"description":"The choices (for type choice)."}},"required":["type","prompt"]}"#;

pub(super) fn definition() -> ToolDef {
    tool_def(
        NAME,
        "Ask the user a question you need answered before going on, shown as a card: type \
\"confirmation\" (yes or no, before anything that cannot be undone), \"choice\" (2 to 10 options), or \"input\" \
(free text). Your turn ends after this call; the answer arrives as the next message.",
        SCHEMA,
    )
}

/// Checks the question and fills in the options a confirmation has.
fn options_for(kind: QuestionType, options: Vec<String>) -> Result<Vec<String>, String> {
    let options: Vec<String> = options.into_iter().map(|o| o.trim().to_owned()).collect();
    match kind {
        QuestionType::Confirmation if options.is_empty() => Ok(vec!["Yes".to_owned(), "No".to_owned()]),
        QuestionType::Confirmation if options.len() == 2 && options.iter().all(|o| !o.is_empty()) => Ok(options),
        QuestionType::Confirmation => Err("a confirmation has no options, or exactly two".to_owned()),
        QuestionType::Input if options.is_empty() => Ok(options),
        QuestionType::Input => Err("an input question takes no options".to_owned()),
        QuestionType::Choice => {
            if !(2..=MAX_OPTIONS).contains(&options.len()) {
                return Err(format!("a choice needs 2 to {MAX_OPTIONS} options (got {})", options.len()));
            }
            if options.iter().any(String::is_empty) {
                return Err("an option is empty".to_owned());
            }
            let mut seen = options.clone();
            crate::lean::sort_by(&mut seen, |a, b| a.cmp(b));
            seen.dedup();
            if seen.len() != options.len() {
                return Err("two options are the same".to_owned());
            }
            Ok(options)
        }
    }
}

pub(super) fn run<H: Host>(ctx: &ToolContext<'_, H>, input: &Value) -> ToolOutput {
    let args = match Args::parse(NAME, SCHEMA, input) {
        Ok(args) => args,
        Err(e) => return e,
    };
    let kind = match args.str("type") {
        Some("confirmation") => QuestionType::Confirmation,
        Some("choice") => QuestionType::Choice,
        _ => QuestionType::Input,
    };
    let prompt = args.string("prompt");
    if prompt.trim().is_empty() {
        return ToolOutput::error("Invalid input for needs_input: prompt is empty.");
    }
    let options = match options_for(kind, args.strings("options")) {
        Ok(o) => o,
        Err(why) => return ToolOutput::error(format!("Invalid input for needs_input: {why}.")),
    };
    ToolOutput {
        content: "Question shown to the user. End your turn now; their answer will arrive as the next message."
            .to_owned(),
        is_error: false,
        effect: ask(ctx, kind, prompt, options),
    }
}

/// Shows a question: a card in the chat view and, for a message from the hub, a notification.
/// Returns the effect that makes the turn wait for the answer.
pub(super) fn ask<H: Host>(
    ctx: &ToolContext<'_, H>,
    kind: QuestionType,
    prompt: String,
    options: Vec<String>,
) -> ToolEffect {
    ctx.host.emit(&Event::AgentMessage {
        message_id: ctx.services.message.id.clone(),
        conversation_id: ctx.services.message.named_conversation(),
        content: prompt.clone(),
        is_question: true,
        question_type: Some(kind),
        options: options.clone(),
    });
    let to_hub = ctx.services.message.from_hub();
    if to_hub {
        let mut body = prompt.clone();
        if !options.is_empty() {
            body = format!("{body} ({})", options.join(" / "));
        }
        (ctx.services.notify_hub)(&body, Priority::High);
    }
    ToolEffect::Question { question_type: kind, prompt, options, sent_to_hub: to_hub }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_checked_per_type() {
        assert_eq!(options_for(QuestionType::Confirmation, vec![]), Ok(vec!["Yes".into(), "No".into()]));
        assert_eq!(
            options_for(QuestionType::Confirmation, vec!["Do it".into(), "Skip".into()]),
            Ok(vec!["Do it".into(), "Skip".into()])
        );
        assert!(options_for(QuestionType::Confirmation, vec!["a".into()]).is_err());
        assert!(options_for(QuestionType::Input, vec!["x".into()]).is_err());
        assert_eq!(
            options_for(QuestionType::Choice, vec![" work ".into(), "home".into()]),
            Ok(vec!["work".into(), "home".into()])
        );
        assert!(options_for(QuestionType::Choice, vec!["only".into()]).is_err());
        assert!(options_for(QuestionType::Choice, vec!["a".into(), "a".into()]).is_err());
        assert!(options_for(QuestionType::Choice, vec!["a".into(), " ".into()]).is_err());
        assert!(options_for(QuestionType::Choice, (0..11).map(|i| i.to_string()).collect()).is_err());
    }
}
