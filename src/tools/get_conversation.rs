//! `get_conversation`: the agent looks back — a list of recent conversations, or one of them
//! read as a transcript.

use futures::lock::Mutex;
use serde_json::Value;

use super::args::Args;
use super::call::{tool_def, ToolOutput};
use crate::conversation::transcript::render_transcript;
use crate::conversation::Conversation;
use crate::host::Host;
use crate::llm::ToolDef;
use crate::store::ConversationStore;

pub(super) const NAME: &str = "get_conversation";
/// Longest transcript returned.
const TRANSCRIPT_CHARS: usize = 12_000;

/// What the tool accepts (also what its input is checked against).
const SCHEMA: &str = r#"{"type":"object","properties":{"conversation_id":{"type":"string","description":"The id of the conversation to read (from the list)."},"limit":{"type":"integer","minimum":1,"maximum":50,"description":"How many conversations to list (default 10)."}}}"#;

pub(super) fn definition() -> ToolDef {
    tool_def(
        NAME,
        "Look back at earlier conversations with the user. Without conversation_id: a list of the most \
recent ones (id, title, status, dates, summary). With conversation_id: that conversation's messages.",
        SCHEMA,
    )
}

fn describe(c: &Conversation, current: bool) -> String {
    let mut line = format!(
        "- {} · {} · {}{} · started {}",
        c.id,
        c.title.as_deref().unwrap_or("(untitled)"),
        serde_json::to_value(c.status).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default(),
        if current { " (current)" } else { "" },
        c.created_at
    );
    if let Some(ended) = &c.ended_at {
        line.push_str(&format!(" · ended {ended}"));
    }
    if let Some(summary) = &c.summary {
        line.push_str(&format!("\n  {summary}"));
    }
    line
}

pub(super) async fn run<H: Host>(host: &H, store: &Mutex<Option<ConversationStore>>, input: &Value) -> ToolOutput {
    let args = match Args::parse(NAME, SCHEMA, input) {
        Ok(args) => args,
        Err(e) => return e,
    };
    let mut guard = store.lock().await;
    let Some(store) = guard.as_mut() else { return ToolOutput::error("The conversation history is not loaded yet.") };
    match args.str("conversation_id") {
        None => {
            let limit = args.number("limit").unwrap_or(10).clamp(1, 50);
            let current = store.current().map(|c| c.id.clone());
            let all = match store.all(host).await {
                Ok(all) => all,
                Err(e) => return ToolOutput::error(format!("Could not list the conversations: {e}")),
            };
            let mut all: Vec<&Conversation> = all.iter().collect();
            crate::lean::sort_by(&mut all, |a, b| b.created_at.cmp(&a.created_at));
            if all.is_empty() {
                return ToolOutput::ok("There are no conversations yet.");
            }
            let listed: Vec<String> =
                all.iter().take(limit).map(|c| describe(c, current.as_deref() == Some(c.id.as_str()))).collect();
            ToolOutput::ok(format!(
                "{} of {} conversations, newest first:\n{}",
                listed.len(),
                all.len(),
                listed.join("\n")
            ))
        }
        Some(id) => {
            let Ok(Some(conversation)) = store.find(host, id).await else {
                return ToolOutput::error(format!(
                    "There is no conversation with id \"{id}\". Call get_conversation without conversation_id to list them."
                ));
            };
            let head = describe(&conversation, store.current().is_some_and(|c| c.id == id));
            match store.read_lines(host, id).await {
                Ok(lines) if lines.is_empty() => ToolOutput::ok(format!("{head}\n(no messages)")),
                Ok(lines) => ToolOutput::ok(format!("{head}\n\n{}", render_transcript(&lines, TRANSCRIPT_CHARS))),
                Err(e) => ToolOutput::error(format!("Could not read conversation {id}: {e}")),
            }
        }
    }
}
