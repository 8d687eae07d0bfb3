//! The system prompt: a stable part first (marked for prompt caching), then the volatile part
//! (the time, where this message came from) that changes with every message.

use crate::conversation::PendingQuestion;
use crate::llm::SystemPart;
use crate::message::{MessageSource, RoutedMessage};
use crate::settings::Settings;
use crate::time::format_iso;

const BASE: &str = "You are SmartHole Agent, an assistant that lives in the user's Obsidian vault. \
The user talks to you in Obsidian's chat sidebar, or by voice and text through the SmartHole desktop hub, \
which routes their messages to you.

- Answer concisely in Markdown. Messages from the hub are often transcribed speech: read past transcription slips.
- Use send_message to tell the user about progress during a long task. To ask something you need before \
going on, use needs_input (a confirmation, a choice or free input; shown as a card) or send_message with \
is_question=true; then stop and wait for the reply.
- Call end_conversation when the user's request is fully done or they say goodbye.
- get_conversation lists earlier conversations or reads one, when the user refers to something from before.
- Never claim you did something you did not do with a tool.";

/// An ended conversation recalled in the prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecentConversation {
    pub title: String,
    pub summary: String,
    pub ended_at: String,
}

/// The conversation facts that vary from message to message.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PromptContext {
    /// The question the agent asked and waits on; the message is its answer.
    pub pending_question: Option<PendingQuestion>,
    /// The most recently ended conversations, newest first.
    pub recent: Vec<RecentConversation>,
}

/// The system prompt parts for a message.
pub fn system_prompt(
    settings: &Settings,
    message: &RoutedMessage,
    context: &PromptContext,
    now_ms: u64,
) -> Vec<SystemPart> {
    let mut stable = BASE.to_owned();
    let architecture = settings.information_architecture.trim();
    if !architecture.is_empty() {
        stable.push_str("\n\nHow the user organises their vault:\n");
        stable.push_str(architecture);
    }
    let via = match message.source {
        MessageSource::Websocket => {
            let voice =
                message.metadata.as_ref().and_then(|m| m.get("inputMethod")).and_then(|v| v.as_str()) == Some("voice");
            if voice {
                "spoken to the SmartHole hub (voice transcription)"
            } else {
                "typed to the SmartHole hub"
            }
        }
        MessageSource::Direct => "typed in the Obsidian chat view",
        MessageSource::Worker => "a scheduled background run",
        MessageSource::System => "the plugin itself",
        MessageSource::Api => "an external agent through the local agent API",
    };
    let mut volatile = format!("Current time (UTC): {}. This message was {via}.", format_iso(now_ms));
    if !context.recent.is_empty() {
        volatile.push_str("\n\nRecent conversations with the user (most recent first; get_conversation reads them):");
        for c in &context.recent {
            volatile.push_str(&format!("\n- {} (ended {}): {}", c.title, c.ended_at, c.summary));
        }
    }
    if let Some(q) = &context.pending_question {
        volatile.push_str(&format!("\n\nYou asked the user earlier ({}): \"{}\"", q.created_at, q.prompt));
        if !q.options.is_empty() {
            volatile.push_str(&format!(" — options: {}", q.options.join(" | ")));
        }
        volatile.push_str(
            ". The message below is their reply: continue the task with it. If they ask about something else \
instead, answer that and ask your question again (send_message with is_question=true).",
        );
    }
    vec![SystemPart { text: stable, cache: true }, SystemPart { text: volatile, cache: false }]
}
