//! A conversation as readable text, for the model to summarise, reflect on, or read back
//! (`get_conversation`): newest part kept when it is too long.

use super::line::{HistoryLine, LineRole};
use crate::llm::ContentBlock;

/// Longest tool input or result quoted in a transcript.
const TOOL_TEXT_CHARS: usize = 200;

fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_owned()
    } else {
        text.chars().take(max).collect::<String>() + "…"
    }
}

/// The visible lines as `User:` / `Assistant:` text with tool calls in brackets, keeping the
/// newest `max_chars` characters (whole lines) and saying when earlier ones were left out.
pub(crate) fn render_transcript(lines: &[HistoryLine], max_chars: usize) -> String {
    let mut rendered: Vec<String> = Vec::new();
    for line in lines.iter().filter(|l| l.visible) {
        let who = match line.role {
            LineRole::User => "User",
            LineRole::Assistant => "Assistant",
            LineRole::System => continue,
        };
        for block in &line.content {
            let text = match block {
                ContentBlock::Text { text } if !text.trim().is_empty() => format!("{who}: {}", text.trim()),
                ContentBlock::Text { .. } => continue,
                ContentBlock::Image { .. } => format!("[{who} sent an image]"),
                ContentBlock::Document { title, .. } => {
                    format!("[{who} sent the PDF {}]", title.as_deref().unwrap_or("(untitled)"))
                }
                ContentBlock::Attachment { attachment } => {
                    format!("[{who} attached {}]", attachment.path)
                }
                ContentBlock::ToolUse { name, input, .. } => {
                    format!("[{who} called {name} {}]", clip(&input.to_string(), TOOL_TEXT_CHARS))
                }
                ContentBlock::ToolResult { content, is_error, .. } => {
                    format!(
                        "[{} {}]",
                        if *is_error { "tool error:" } else { "tool result:" },
                        clip(content, TOOL_TEXT_CHARS)
                    )
                }
            };
            rendered.push(text);
        }
    }
    let mut kept = Vec::new();
    let mut used = 0;
    for text in rendered.iter().rev() {
        let len = text.chars().count() + 1;
        if used + len > max_chars && !kept.is_empty() {
            break;
        }
        used += len;
        kept.push(clip(text, max_chars));
    }
    kept.reverse();
    let mut out = String::new();
    if kept.len() < rendered.len() {
        out.push_str(&format!("(the first {} messages are left out)\n", rendered.len() - kept.len()));
    }
    out.push_str(&kept.join("\n"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::MessageSource;
    use serde_json::json;

    fn line(role: LineRole, content: Vec<ContentBlock>, visible: bool) -> HistoryLine {
        HistoryLine {
            id: "x".into(),
            message_id: "m".into(),
            role,
            content,
            source: MessageSource::Direct,
            visible,
            ts: String::new(),
            turn: None,
            context: None,
        }
    }

    #[test]
    fn transcript_reads_naturally_and_keeps_the_newest_part() {
        let lines = vec![
            line(LineRole::System, vec![ContentBlock::text("chat opened")], false),
            line(LineRole::User, vec![ContentBlock::text("add milk")], true),
            line(
                LineRole::Assistant,
                vec![ContentBlock::ToolUse {
                    id: "t".into(),
                    name: "send_message".into(),
                    input: json!({"message": "ok"}),
                }],
                true,
            ),
            line(
                LineRole::User,
                vec![ContentBlock::ToolResult {
                    tool_use_id: "t".into(),
                    content: "delivered".into(),
                    is_error: false,
                }],
                true,
            ),
            line(LineRole::Assistant, vec![ContentBlock::text("Added.")], true),
        ];
        let all = render_transcript(&lines, 10_000);
        assert_eq!(
            all,
            "User: add milk\n[Assistant called send_message {\"message\":\"ok\"}]\n[tool result: delivered]\nAssistant: Added."
        );
        let short = render_transcript(&lines, 20);
        assert_eq!(short, "(the first 3 messages are left out)\nAssistant: Added.");
    }
}
