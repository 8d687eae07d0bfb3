//! A title and a two-to-three-sentence summary for an ended conversation: one tool-less prompt
//! in the background, answered by whoever the [`BackgroundWriter`] is (the built-in model's
//! provider, [`background_text`]; or the user's own agent in a side session). The recent
//! summaries go into later system prompts.

use serde_json::Value;

use crate::host::Host;
use crate::llm::{ApiMessage, LlmError, MessagesJson, ModelCall, SystemPart};
use crate::llm_client::client::call_with_retry;
use crate::settings::Settings;
use crate::usage::CallPurpose;

/// The summary call's instructions (tests recognise the call by them).
pub(crate) const INSTRUCTIONS: &str =
    "You title and summarise conversations between a user and the assistant that works on \
their notes. Reply with one JSON object and nothing else: {\"title\": \"at most six words\", \"summary\": \"two or \
three sentences: what the user wanted and what was done or decided\"}.";

/// Longest title kept, in characters.
const TITLE_CHARS: usize = 80;
/// Longest summary kept, in characters.
const SUMMARY_CHARS: usize = 600;

/// A conversation's title and summary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Summary {
    pub title: Option<String>,
    pub summary: String,
}

fn clean(text: &str, max: usize) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let trimmed = one_line.trim_matches(|c: char| c == '"' || c == '*' || c == '#' || c.is_whitespace());
    if trimmed.chars().count() <= max {
        trimmed.to_owned()
    } else {
        trimmed.chars().take(max - 1).collect::<String>() + "…"
    }
}

/// Reads the model's answer: the JSON object it was asked for, or — from a model that ignored
/// the format — its text as the summary, with no title.
pub(crate) fn parse_summary(answer: &str) -> Option<Summary> {
    let json =
        answer.find('{').zip(answer.rfind('}')).and_then(|(a, b)| serde_json::from_str::<Value>(&answer[a..=b]).ok());
    if let Some(v) = json {
        let summary = v.get("summary").and_then(Value::as_str).map(|s| clean(s, SUMMARY_CHARS)).unwrap_or_default();
        let title = v.get("title").and_then(Value::as_str).map(|t| clean(t, TITLE_CHARS)).filter(|t| !t.is_empty());
        if title.is_some() || !summary.is_empty() {
            return Some(Summary { title, summary });
        }
    }
    let text = clean(answer, SUMMARY_CHARS);
    (!text.is_empty()).then_some(Summary { title: None, summary: text })
}

/// Settings for a quiet background call: the background model, whole answers, short.
pub(crate) fn background_settings(settings: &Settings, max_tokens: u32) -> Settings {
    Settings {
        streaming: false,
        max_tokens: max_tokens.min(settings.max_tokens.max(64)),
        ..settings.for_background(None)
    }
}

/// Who answers a quiet background prompt (summaries, retrospection): the built-in model's
/// provider, or the user's own agent when it is the chosen one, so a user with only that agent
/// gets titles, summaries and retrospections too.
pub(crate) trait BackgroundWriter {
    /// One prompt outside any conversation (`instructions`, then `prompt`); gives the answer's
    /// text. `max_tokens` bounds a model call's answer; `purpose` names it in the usage ledger.
    async fn text(
        &self,
        purpose: CallPurpose,
        max_tokens: u32,
        instructions: &str,
        prompt: String,
    ) -> Result<String, LlmError>;
}

/// Asks for a title and summary of a transcript.
pub(crate) async fn summarize(writer: &impl BackgroundWriter, transcript: &str) -> Result<Option<Summary>, LlmError> {
    let prompt = format!("The conversation:\n\n{transcript}");
    let text = writer.text(CallPurpose::Summary, 400, INSTRUCTIONS, prompt).await?;
    Ok(parse_summary(&text))
}

/// One quiet model call outside any conversation (summaries, retrospection): whole answer,
/// short, no tools, nothing marked for the cache; gives its text.
pub(crate) async fn background_text<H: Host>(
    host: &H,
    settings: &Settings,
    purpose: CallPurpose,
    max_tokens: u32,
    instructions: &str,
    prompt: String,
) -> Result<String, LlmError> {
    let settings = background_settings(settings, max_tokens);
    let system = [SystemPart { text: instructions.to_owned(), cache: false }];
    let messages = [ApiMessage::user_text(prompt)];
    let history = MessagesJson::new();
    let call = ModelCall {
        system: &system,
        history: &history,
        messages: &messages,
        tools: "",
        ttl: crate::llm::request::CacheTtl::Off,
    };
    let response = call_with_retry(host, &settings, call, &mut |_| {}, &mut |_| {}, &mut None).await?;
    crate::usage::record_call(host, (&settings.model, &settings.model_prices), purpose, &response.usage).await;
    Ok(ApiMessage { role: crate::llm::Role::Assistant, content: response.content }.text())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_json_answer_is_read_and_cleaned() {
        let s = parse_summary("Sure! {\"title\": \"  Milk on the **list** \", \"summary\": \"The user asked to add milk.\\nIt was added.\"}").unwrap();
        assert_eq!(s.title.as_deref(), Some("Milk on the **list"));
        assert_eq!(s.summary, "The user asked to add milk. It was added.");
    }

    #[test]
    fn a_model_that_ignores_the_format_still_gives_a_summary() {
        assert_eq!(
            parse_summary("We talked about milk."),
            Some(Summary { title: None, summary: "We talked about milk.".into() })
        );
        assert_eq!(parse_summary("   "), None);
        let long = parse_summary(&format!("{{\"title\": \"{}\", \"summary\": \"s\"}}", "t".repeat(200))).unwrap();
        assert_eq!(long.title.unwrap().chars().count(), TITLE_CHARS);
    }
}
