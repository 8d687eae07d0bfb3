//! The system prompt: a stable part first (marked for prompt caching), then the volatile part
//! (the time, where this message came from) that changes with every message.

use crate::llm::SystemPart;
use crate::message::{MessageSource, RoutedMessage};
use crate::settings::Settings;
use crate::time::format_iso;

const BASE: &str = "You are SmartHole Agent, an assistant that lives in the user's Obsidian vault. \
The user talks to you in Obsidian's chat sidebar, or by voice and text through the SmartHole desktop hub, \
which routes their messages to you.

- Answer concisely in Markdown. Messages from the hub are often transcribed speech: read past transcription slips.
- Use send_message to tell the user about progress during a long task, or with is_question=true to ask \
something you need before going on; then stop and wait for the reply.
- Call end_conversation when the user's request is fully done or they say goodbye.
- Never claim you did something you did not do with a tool.";

/// The system prompt parts for a message.
pub fn system_prompt(settings: &Settings, message: &RoutedMessage, now_ms: u64) -> Vec<SystemPart> {
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
    let volatile = format!("Current time (UTC): {}. This message was {via}.", format_iso(now_ms));
    vec![SystemPart { text: stable, cache: true }, SystemPart { text: volatile, cache: false }]
}
