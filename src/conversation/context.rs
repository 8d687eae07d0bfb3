//! What the model sees of the conversation: the newest whole turns that fit the token budget,
//! as real `messages` (tool calls and results kept, never split from each other). Each stored
//! message is serialised and its tokens estimated once, when it is loaded or recorded, so the
//! context for a call costs a copy of what is sent, whatever the history size.

use std::rc::Rc;

use super::line::Turn;
use crate::llm::messages_json::content_json;
use crate::llm::{ApiMessage, MessagesJson, Role};

/// The history sent is trimmed in steps of this fraction of the budget: when the conversation
/// outgrows the budget, the oldest turns go until a quarter of it is free, and the same turns
/// are sent again until that quarter has filled up. Trimming a turn at a time would change the
/// start of the conversation with every request, and with it the whole cached prefix.
const TRIM_STEPS_PER_BUDGET: usize = 4;

/// A rough token count of serialised content: about four bytes of JSON per token.
pub(crate) fn estimate_tokens(json_len: usize) -> usize {
    json_len / 4 + 4
}

/// A visible message, ready to send.
#[derive(Debug, Clone)]
struct CachedMessage {
    role: Role,
    content: String,
}

/// The history last sent, kept to be extended rather than built again: a conversation's requests
/// start at the same turn until it grows by a trimming step, so a call only appends what was
/// recorded since (issue 37: building 2,000 messages anew was a quarter of a millisecond a call).
#[derive(Debug, Clone)]
struct SentHistory {
    /// Its first message, counted from the conversation's start (forgetting never moves it).
    start: usize,
    /// The messages it holds end here, counted the same way.
    end: usize,
    /// A user message was reached (the history opens with one).
    opened: bool,
    /// Shared with the request that took it: extending it copies only while that request holds
    /// it (a copy of 230 KB at 1,000 turns was a fifth of the core's own time per request).
    json: Rc<MessagesJson>,
}

/// The active conversation's messages in sendable form.
#[derive(Debug, Clone, Default)]
pub(crate) struct ContextCache {
    messages: Vec<CachedMessage>,
    /// Tokens of `messages[..i]`, one entry per message plus a leading 0.
    tokens_before: Vec<usize>,
    /// Index of the first message of each turn.
    turn_starts: Vec<usize>,
    /// Tokens of the turns forgotten: `tokens_before` counts from there, the trimming steps from
    /// the conversation's start (so forgetting never moves them).
    forgotten_tokens: usize,
    /// Messages forgotten: `messages[i]` is the conversation's message `forgotten_messages + i`.
    forgotten_messages: usize,
    sent: std::cell::RefCell<Option<SentHistory>>,
}

impl ContextCache {
    /// An empty conversation.
    pub(crate) fn new() -> Self {
        ContextCache { tokens_before: vec![0], ..Default::default() }
    }

    /// Adds a recorded turn's visible messages.
    pub(crate) fn push_turn(&mut self, turn: &Turn) {
        self.turn_starts.push(self.messages.len());
        for message in turn.lines.iter().filter_map(|l| l.api_message()) {
            let content = content_json(&message.content);
            if content.is_empty() {
                continue;
            }
            // An attachment's line holds its reference; what it sends is counted apart.
            let attached: usize = message
                .content
                .iter()
                .map(|b| match b {
                    crate::llm::ContentBlock::Attachment { attachment } => attachment.estimated_tokens(),
                    _ => 0,
                })
                .sum();
            let total = self.total_tokens() + estimate_tokens(content.len()) + attached;
            self.messages.push(CachedMessage { role: message.role, content });
            self.tokens_before.push(total);
        }
    }

    /// Forgets old turns that can no longer be sent: those beyond `keep_tokens` from the end.
    /// Done only once at least half the cached messages can go, so a long conversation costs
    /// memory in proportion to the budget, not to its length, at O(1) amortised per turn.
    pub(crate) fn forget_beyond(&mut self, keep_tokens: usize) {
        let total = self.total_tokens();
        let first_turn = self.turn_starts.partition_point(|&start| total - self.tokens_before[start] > keep_tokens);
        let Some(&start) = self.turn_starts.get(first_turn) else { return };
        if start == 0 || start * 2 < self.messages.len() {
            return;
        }
        let base = self.tokens_before[start];
        self.forgotten_tokens += base;
        self.forgotten_messages += start;
        self.messages.drain(..start);
        self.tokens_before.drain(..start);
        for tokens in &mut self.tokens_before {
            *tokens -= base;
        }
        self.turn_starts.drain(..first_turn);
        for turn_start in &mut self.turn_starts {
            *turn_start -= start;
        }
    }

    /// Messages held (tests watch the cache stay bounded).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.messages.len()
    }

    fn total_tokens(&self) -> usize {
        self.tokens_before.last().copied().unwrap_or(0)
    }

    /// The newest whole turns within `budget` tokens, oldest first, opening with a user message.
    /// Old turns go in steps (see [`TRIM_STEPS_PER_BUDGET`]): the history starts at the first turn
    /// at or after the first multiple of `budget / 4` tokens (counted from the conversation's
    /// start) that leaves at most `budget` after it — the same turn from request to request
    /// until the conversation has grown by another step.
    pub(crate) fn history(&self, budget: usize) -> Rc<MessagesJson> {
        let total = self.forgotten_tokens + self.total_tokens();
        let step = (budget / TRIM_STEPS_PER_BUDGET).max(1);
        let cut = total.saturating_sub(budget).div_ceil(step) * step;
        let forgotten = self.forgotten_tokens;
        let first_turn = self.turn_starts.partition_point(|&start| forgotten + self.tokens_before[start] < cut);
        let Some(&start) = self.turn_starts.get(first_turn) else { return Rc::default() };
        let (start, end) = (self.forgotten_messages + start, self.forgotten_messages + self.messages.len());
        let mut kept = self.sent.borrow_mut();
        let sent = match kept.take() {
            Some(sent) if sent.start == start && sent.end <= end => sent,
            _ => SentHistory { start, end: start, opened: false, json: Rc::default() },
        };
        let sent = kept.insert(sent);
        let new = &self.messages[sent.end - self.forgotten_messages..];
        if !new.is_empty() {
            let json = Rc::make_mut(&mut sent.json);
            for message in new {
                // The API wants the conversation to open with the user.
                sent.opened |= message.role == Role::User;
                if sent.opened {
                    json.push_content(message.role, &message.content);
                }
            }
        }
        sent.end = end;
        Rc::clone(&sent.json)
    }
}

/// Appends a message, folding it into the previous one when both have the same role (tool
/// results stay first).
pub(crate) fn push_merged(out: &mut Vec<ApiMessage>, message: ApiMessage) {
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
    use serde_json::{json, Value};

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
            context: None,
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

    fn sent(cache: &ContextCache, budget: usize) -> Value {
        let mut out = String::new();
        cache.history(budget).write_with(&[], &mut out);
        serde_json::from_str(&out).unwrap()
    }

    #[test]
    fn the_history_kept_from_the_last_request_is_what_a_fresh_build_gives() {
        let mut cache = ContextCache::new();
        for i in 0..120 {
            cache.push_turn(&tool_turn(&format!("m{i}")));
            if i % 17 == 0 {
                cache.forget_beyond(400);
            }
            for budget in [300, 300, 1_000, 300] {
                let fresh = ContextCache { sent: Default::default(), ..cache.clone() };
                assert_eq!(cache.history(budget), fresh.history(budget), "turn {i}, budget {budget}");
            }
        }
    }

    #[test]
    fn hidden_lines_are_never_sent_and_same_roles_merge() {
        let mut cache = ContextCache::new();
        cache.push_turn(&Turn {
            lines: vec![l("h", LineRole::System, vec![ContentBlock::text("chat opened")], false, true)],
        });
        cache.push_turn(&tool_turn("a"));
        cache.push_turn(&tool_turn("b"));
        let msgs = sent(&cache, 100_000);
        let roles: Vec<&str> = msgs.as_array().unwrap().iter().map(|m| m["role"].as_str().unwrap()).collect();
        assert_eq!(roles, ["user", "assistant", "user", "assistant", "user"]);
        // a's tool result and b's question share one user message, result first.
        assert_eq!(msgs[2]["content"][0]["type"], "tool_result");
        assert_eq!(msgs[2]["content"][1], json!({"type": "text", "text": "b?"}));
        assert!(!msgs.to_string().contains("chat opened"));
    }

    #[test]
    fn a_long_conversation_keeps_what_can_still_be_sent_and_no_more() {
        let mut cache = ContextCache::new();
        let mut reference = ContextCache::new();
        let budget = 200;
        for i in 0..2_000 {
            let turn = tool_turn(&i.to_string());
            cache.push_turn(&turn);
            reference.push_turn(&turn);
            cache.forget_beyond(2 * budget);
            assert_eq!(sent(&cache, budget), sent(&reference, budget), "after turn {i}");
        }
        assert!(cache.len() < 100, "{} messages held for a {budget}-token budget", cache.len());
        assert_eq!(reference.len(), 6_000);
    }

    #[test]
    fn trimming_drops_whole_old_turns_only_in_steps_that_keep_the_start_in_place() {
        // Turns of one size T (two-digit names), a budget of 12 T: steps of 3 T.
        let mut cache = ContextCache::new();
        cache.push_turn(&tool_turn("00"));
        let t = cache.total_tokens();
        let budget = 12 * t;
        let mut starts = vec![0];
        for i in 1..50 {
            cache.push_turn(&tool_turn(&format!("{i:02}")));
            let msgs = sent(&cache, budget);
            let blocks: Vec<&Value> =
                msgs.as_array().unwrap().iter().flat_map(|m| m["content"].as_array().unwrap()).collect();
            let uses = blocks.iter().filter(|b| b["type"] == "tool_use").count();
            let results = blocks.iter().filter(|b| b["type"] == "tool_result").count();
            let first: usize = msgs[0]["content"][0]["text"].as_str().unwrap().trim_end_matches('?').parse().unwrap();
            // Whole turns only, every tool call with its result, opening with the user.
            assert_eq!((uses, results), (i + 1 - first, i + 1 - first), "after turn {i}");
            // Within the budget, and never more than a step below it.
            let expected = if i < 12 { i + 1..=i + 1 } else { 9..=12 };
            assert!(expected.contains(&(i + 1 - first)), "after turn {i}: {} turns sent", i + 1 - first);
            starts.push(first);
        }
        // The start moves three turns at a time, never one: a request repeats the previous
        // one's prefix until the conversation has grown by a step.
        for pair in starts.windows(2) {
            assert!(pair[1] == pair[0] || pair[1] == pair[0] + 3, "{starts:?}");
        }
        // 13 changes of the start in 50 turns, where trimming a turn at a time makes 38.
        assert_eq!(starts.windows(2).filter(|p| p[0] != p[1]).count(), 13, "{starts:?}");
        assert_eq!(sent(&cache, 0), json!([]));
    }
}
