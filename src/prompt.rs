//! The system prompt, the same for every request of a conversation (so the prompt cache keeps
//! it), and the message context: what changes from message to message (the time, where the
//! message came from, the conversation's status and state, recent summaries, a pending question),
//! sent as a block at the head of the newest user message and recorded with it, so later requests
//! repeat it byte for byte and the whole conversation stays a cached prefix.

use crate::conversation::{ConversationState, ConversationStatus, PendingQuestion, Schedule, ScheduleType};
use crate::llm::SystemPart;
use crate::mcp::{McpServer, McpState};
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
- Never claim you did something you did not do with a tool.

Background work: when the user wants something done later or repeatedly (\"every weekday at 8, summarise \
yesterday's daily note\"), call create_schedule with the task written as an instruction to yourself — type cron \
(5-field expression in the user's time zone), scheduled (one run at run_at) or immediate (one run in the \
background now) — and an initial state if the work has steps. Each run arrives as a message from a scheduled run; \
keep what later runs need with state_update (step, data, context). If a task needs an integration that is not \
connected, do not schedule it: tell the user to connect it in Settings → SmartHole Agent → Integrations.

Questions: when you asked something (needs_input) and the user's reply does not answer it — they ask something \
else — answer them and call keep_question_open so the question stays pending; or ask it again with more \
context.

Each user message opens with a <context> block the app adds (the current time, where the message came from, the \
conversation's state); it is not written by the user, and the one in the newest message is the current one.";

/// An ended conversation recalled in the prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RecentConversation {
    pub title: String,
    pub summary: String,
    pub ended_at: String,
}

/// The conversation facts that vary from message to message.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct PromptContext {
    /// The question the agent asked and waits on; the message is its answer.
    pub pending_question: Option<PendingQuestion>,
    /// The most recently ended conversations, newest first.
    pub recent: Vec<RecentConversation>,
    /// The conversation the message goes to (none before its first message).
    pub status: Option<ConversationStatus>,
    pub schedule: Option<Schedule>,
    pub state: ConversationState,
    /// The user's integrations (MCP servers).
    pub integrations: Vec<McpServer>,
    /// The user's IANA time zone.
    pub time_zone: String,
}

/// The integrations paragraph: what is connected (with its tools) and what is configured but not.
fn integrations_text(servers: &[McpServer]) -> String {
    if servers.is_empty() {
        return "\n\nIntegrations: none configured. The user can add MCP servers in Settings → SmartHole Agent → Integrations.".to_owned();
    }
    let mut out = String::from("\n\nIntegrations (MCP servers; their tools are named mcp__<server>__<tool>):");
    for s in servers {
        let line = match s.state {
            McpState::Connected => format!("connected, {} tools", s.tools.len()),
            McpState::Connecting => "connecting, not available yet".to_owned(),
            McpState::Unauthorized => "not connected: it needs to be reconnected in Settings".to_owned(),
            McpState::Unsupported => "not available on this device".to_owned(),
            McpState::Failed => format!("not connected ({})", s.error.as_deref().unwrap_or("connection failed")),
        };
        out.push_str(&format!("\n- {}: {line}", s.name));
    }
    out
}

/// The conversation paragraph: its status, schedule and state.
fn conversation_text(context: &PromptContext) -> String {
    let Some(status) = context.status else { return String::new() };
    let status = match status {
        ConversationStatus::Active => "active",
        ConversationStatus::Background => "background (it has scheduled work)",
        ConversationStatus::WaitingInput => "waiting for the user's answer",
        ConversationStatus::Archived => "archived",
    };
    let mut out = format!("\n\nThis conversation is {status}.");
    if let Some(s) = &context.schedule {
        let when = match s.kind {
            ScheduleType::Cron => format!(
                "cron \"{}\" in {}",
                s.expression.as_deref().unwrap_or(""),
                s.time_zone.as_deref().unwrap_or("UTC")
            ),
            ScheduleType::Scheduled => format!("once at {}", s.run_at.as_deref().unwrap_or("?")),
            ScheduleType::Immediate => "once, right away".to_owned(),
        };
        out.push_str(&format!("\nSchedule: {when}; task: {}; runs so far: {}", s.task, s.runs));
        match (&s.next_run_at, s.paused) {
            (_, true) => out.push_str(&format!(
                "; paused{}",
                s.last_error.as_deref().map(|e| format!(" after failures (last: {e})")).unwrap_or_default()
            )),
            (Some(next), false) => out.push_str(&format!("; next run {next}")),
            (None, false) => {}
        }
        out.push('.');
    }
    let state = &context.state;
    if state.step.is_some() || !state.data.is_empty() || !state.context.is_empty() {
        let json = serde_json::json!({"step": state.step, "context": state.context, "data": state.data});
        out.push_str(&format!("\nState: {json}"));
    }
    out
}

/// The system prompt: the same for every message while the settings and integrations stay.
pub(crate) fn system_prompt(settings: &Settings, context: &PromptContext) -> Vec<SystemPart> {
    let mut stable = BASE.to_owned();
    let architecture = settings.information_architecture.trim();
    if !architecture.is_empty() {
        stable.push_str("\n\nHow the user organises their vault:\n");
        stable.push_str(architecture);
    }
    stable.push_str(&integrations_text(&context.integrations));
    vec![SystemPart { text: stable, cache: true }]
}

/// The message context: the block that opens the newest user message (see the module's doc).
pub(crate) fn message_context(message: &RoutedMessage, context: &PromptContext, now_ms: u64) -> String {
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
    let mut volatile = format!("<context>\nCurrent time (UTC): {}. This message was {via}.", format_iso(now_ms));
    if !context.time_zone.is_empty() {
        volatile.push_str(&format!(" The user's time zone is {}.", context.time_zone));
    }
    volatile.push_str(&conversation_text(context));
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
instead, answer that and call keep_question_open, or ask your question again.",
        );
    }
    volatile.push_str("\n</context>");
    volatile
}
