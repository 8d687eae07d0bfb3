//! What the model sees of the conversation: the newest whole turns that fit the token budget,
//! as real `messages` (tool calls and results kept, never split), consecutive same-role messages
//! merged.

use super::line::Turn;
use crate::llm::{ApiMessage, Role};

/// A rough token count: about four bytes of JSON per token.
pub fn estimate_tokens(messages: &[ApiMessage]) -> usize {
    messages.iter().map(|m| serde_json::to_string(m).map(|s| s.len()).unwrap_or(0) / 4 + 4).sum()
}

/// The visible messages of a turn.
fn turn_messages(turn: &Turn) -> Vec<ApiMessage> {
    turn.lines.iter().filter_map(|l| l.api_message()).collect()
}

/// History for the model: whole turns, newest first until the budget is spent, then in order.
pub fn history_messages(turns: &[Turn], budget_tokens: usize) -> Vec<ApiMessage> {
    let mut chosen: Vec<Vec<ApiMessage>> = Vec::new();
    let mut used = 0;
    for turn in turns.iter().rev() {
        let messages = turn_messages(turn);
        if messages.is_empty() {
            continue;
        }
        let cost = estimate_tokens(&messages);
        if used + cost > budget_tokens {
            break;
        }
        used += cost;
        chosen.push(messages);
    }
    let mut out: Vec<ApiMessage> = Vec::new();
    for messages in chosen.into_iter().rev() {
        for m in messages {
            push_merged(&mut out, m);
        }
    }
    // The API wants the conversation to open with the user.
    while out.first().is_some_and(|m| m.role != Role::User) {
        out.remove(0);
    }
    out
}

/// Appends a message, folding it into the previous one when both have the same role (a
/// question's tool result followed by the user's answer, for instance). Tool results stay first.
pub fn push_merged(out: &mut Vec<ApiMessage>, message: ApiMessage) {
    match out.last_mut() {
        Some(last) if last.role == message.role => last.content.extend(message.content),
        _ => out.push(message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conversation::line::{HistoryLine, LineRole, TurnEnd};
    use crate::llm::ContentBlock;
    use crate::message::MessageSource;
    use serde_json::json;

    fn l(msg: &str, role: LineRole, content: Vec<ContentBlock>, visible: bool, end: bool) -> HistoryLine {
        HistoryLine {
            id: format!("{msg}#x"),
            message_id: msg.into(),
            role,
            content,
            source: MessageSource::Direct,
            visible,
            ts: String::new(),
            turn: end.then(TurnEnd::default),
        }
    }

    fn tool_turn(msg: &str) -> Turn {
        Turn {
            lines: vec![
                l(msg, LineRole::User, vec![ContentBlock::text(format!("{msg}?"))], true, false),
                l(
                    msg,
                    LineRole::Assistant,
                    vec![ContentBlock::ToolUse {
                        id: format!("t{msg}"),
                        name: "send_message".into(),
                        input: json!({}),
                    }],
                    true,
                    false,
                ),
                l(
                    msg,
                    LineRole::User,
                    vec![ContentBlock::ToolResult {
                        tool_use_id: format!("t{msg}"),
                        content: "ok".into(),
                        is_error: false,
                    }],
                    true,
                    true,
                ),
            ],
        }
    }

    #[test]
    fn hidden_lines_are_never_sent_and_same_roles_merge() {
        let hidden =
            Turn { lines: vec![l("h", LineRole::System, vec![ContentBlock::text("chat opened")], false, true)] };
        let turns = vec![hidden, tool_turn("a"), tool_turn("b")];
        let msgs = history_messages(&turns, 100_000);
        assert_eq!(
            msgs.iter().map(|m| m.role).collect::<Vec<_>>(),
            [Role::User, Role::Assistant, Role::User, Role::Assistant, Role::User]
        );
        // a's tool result and b's question share one user message, result first.
        assert!(matches!(msgs[2].content[0], ContentBlock::ToolResult { .. }));
        assert_eq!(msgs[2].content[1], ContentBlock::text("b?"));
        assert!(!serde_json::to_string(&msgs).unwrap().contains("chat opened"));
    }

    #[test]
    fn trimming_drops_whole_old_turns_only() {
        let turns: Vec<Turn> = (0..50).map(|i| tool_turn(&i.to_string())).collect();
        let last_three: usize = turns[47..].iter().map(|t| estimate_tokens(&turn_messages(t))).sum();
        let msgs = history_messages(&turns, last_three + 1);
        let uses = msgs.iter().flat_map(|m| &m.content).filter(|b| matches!(b, ContentBlock::ToolUse { .. })).count();
        let results =
            msgs.iter().flat_map(|m| &m.content).filter(|b| matches!(b, ContentBlock::ToolResult { .. })).count();
        assert_eq!((uses, results), (3, 3));
        assert_eq!(msgs[0].content[0], ContentBlock::text("47?"));
        assert!(history_messages(&turns, 0).is_empty());
    }
}
