//! One Messages API request: what a model call needs ([`ModelCall`]) and the JSON body built from
//! it, with the prompt-cache marks. Apart from the wire types (`types`) so that the serialised
//! history (`messages_json`) can use those types without the request depending back on it.

use serde_json::{json, Value};

use super::messages_json::MessagesJson;
use super::types::{ApiMessage, Role, SystemPart, ToolDef};

/// How long a prompt-cache entry lives after its last use. Five minutes is the API's default; an
/// hour costs more to write (2x fresh input instead of 1.25x) and pays off only for a
/// conversation whose next request comes 5 to 60 minutes later (see `schedule_cache_ttl`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum CacheTtl {
    #[default]
    FiveMinutes,
    OneHour,
    /// No breakpoint at all: a one-off request (a summary) would pay for a write never read.
    Off,
}

impl CacheTtl {
    /// The `cache_control` member a block gets, with its leading comma.
    fn member(self) -> &'static str {
        match self {
            CacheTtl::FiveMinutes => ",\"cache_control\":{\"type\":\"ephemeral\"}",
            CacheTtl::OneHour => ",\"cache_control\":{\"type\":\"ephemeral\",\"ttl\":\"1h\"}",
            CacheTtl::Off => "",
        }
    }
}

/// Everything one model call needs besides the settings.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ModelCall<'a> {
    /// The system prompt: the same for every request of a conversation (what changes per message
    /// travels in the newest user message instead), so it stays in the cached prefix.
    pub system: &'a [SystemPart],
    /// The earlier conversation, already serialised.
    pub history: &'a MessagesJson,
    /// This turn's messages: the user's, then what the turn added.
    pub messages: &'a [ApiMessage],
    /// The tools as a JSON array ([`tools_json`]), `""` for none.
    pub tools: &'a str,
    /// The lifetime asked for every cache breakpoint of the request.
    pub ttl: CacheTtl,
}

/// The tools of a request as JSON text, without cache marks (the request adds them). Built once
/// per tool set, not per call.
pub(crate) fn tools_json(tools: &[ToolDef]) -> String {
    if tools.is_empty() {
        return String::new();
    }
    serde_json::to_string(tools).unwrap_or_default()
}

/// Inserts a `cache_control` member before the closing `}` at each offset (any order).
fn mark_blocks(json: &mut String, mut at: Vec<usize>, ttl: CacheTtl) {
    crate::lean::sort_by(&mut at, Ord::cmp);
    at.dedup();
    for offset in at.into_iter().rev() {
        if json.as_bytes().get(offset) == Some(&b'}') {
            json.insert_str(offset, ttl.member());
        }
    }
}

/// Where the rolling breakpoints go in a request's messages, given each message's end: the last
/// block of the newest message (a tool result counts), so the request writes everything it sends;
/// and the last block of the newest user message before that one, which is where the previous
/// request of the conversation ended — the entry it wrote is read whatever came between (a batch
/// of tool calls longer than the API's 20-block lookback, a paused answer).
pub(crate) fn rolling_breakpoints(ends: &[(usize, Role)]) -> Vec<usize> {
    let Some((&(last, _), before)) = ends.split_last() else { return Vec::new() };
    let mut at = vec![last];
    if let Some(&(previous, _)) = before.iter().rev().find(|(_, role)| *role == Role::User) {
        at.push(previous);
    }
    at
}

/// The JSON body of a Messages API request, with at most four prompt-cache breakpoints in the
/// API's cache order (tools → system → messages): the last tool, the last system part marked
/// `cache`, and the two rolling ones of [`rolling_breakpoints`]. The conversation is copied from
/// its serialised form, not serialised again.
pub(crate) fn request_body(model: &str, max_tokens: u32, call: ModelCall<'_>, stream: bool) -> String {
    let mut body = json!({ "model": model, "max_tokens": max_tokens });
    if stream {
        body["stream"] = Value::Bool(true);
    }
    let head = body.to_string();
    let mut out = String::with_capacity(head.len() + call.tools.len() + call.history.len() + 1024);
    out.push_str(&head[..head.len() - 1]);
    if !call.system.is_empty() {
        out.push_str(",\"system\":[");
        let cached = call.system.iter().rposition(|p| p.cache);
        for (n, part) in call.system.iter().enumerate() {
            if n > 0 {
                out.push(',');
            }
            out.push_str("{\"type\":\"text\",\"text\":");
            out.push_str(&Value::String(part.text.clone()).to_string());
            if cached == Some(n) {
                out.push_str(call.ttl.member());
            }
            out.push('}');
        }
        out.push(']');
    }
    if !call.tools.is_empty() {
        out.push_str(",\"tools\":");
        out.push_str(call.tools);
        // The last tool's closing brace sits right before the array's `]`.
        let last_tool = out.len() - 2;
        mark_blocks(&mut out, vec![last_tool], call.ttl);
    }
    out.push_str(",\"messages\":");
    let ends = call.history.write_with(call.messages, &mut out);
    mark_blocks(&mut out, rolling_breakpoints(&ends), call.ttl);
    out.push('}');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::ContentBlock;

    fn marks(body: &Value) -> Vec<String> {
        let mut found = Vec::new();
        for (i, t) in body["tools"].as_array().into_iter().flatten().enumerate() {
            if t.get("cache_control").is_some() {
                found.push(format!("tools/{i}"));
            }
        }
        for (i, b) in body["system"].as_array().into_iter().flatten().enumerate() {
            if b.get("cache_control").is_some() {
                found.push(format!("system/{i}"));
            }
        }
        for (m, msg) in body["messages"].as_array().into_iter().flatten().enumerate() {
            for (i, b) in msg["content"].as_array().into_iter().flatten().enumerate() {
                if b.get("cache_control").is_some() {
                    found.push(format!("messages/{m}/{i}"));
                }
            }
        }
        found
    }

    fn tool_defs() -> String {
        tools_json(&[
            ToolDef { name: "a".into(), description: "d".into(), input_schema: json!({"type": "object"}) },
            ToolDef { name: "b".into(), description: "} tricky {".into(), input_schema: json!({"type": "object"}) },
        ])
    }

    #[test]
    fn request_marks_cache_breakpoints_and_omits_empty_parts() {
        let msgs = [ApiMessage::user_text("hi")];
        let system = [SystemPart { text: "stable } {".into(), cache: true }];
        let tools = tool_defs();
        let history = MessagesJson::new();
        let call =
            ModelCall { system: &system, history: &history, messages: &msgs, tools: &tools, ttl: CacheTtl::default() };
        let body: Value = serde_json::from_str(&request_body("m", 10, call, true)).unwrap();
        assert_eq!(body["system"][0]["cache_control"], json!({"type": "ephemeral"}));
        assert_eq!(body["system"][0]["text"], "stable } {");
        assert_eq!(body["tools"][1]["cache_control"]["type"], "ephemeral");
        assert_eq!(body["tools"][1]["description"], "} tricky {");
        assert_eq!(marks(&body), ["tools/1", "system/0", "messages/0/0"]);
        assert_eq!(body["stream"], true);
        let call = ModelCall { system: &[], history: &history, messages: &msgs, tools: "", ttl: CacheTtl::OneHour };
        let bare: Value = serde_json::from_str(&request_body("m", 10, call, false)).unwrap();
        assert!(bare.get("system").is_none() && bare.get("tools").is_none() && bare.get("stream").is_none());
        assert_eq!(
            bare["messages"][0]["content"][0],
            json!({"type": "text", "text": "hi", "cache_control": {"type": "ephemeral", "ttl": "1h"}})
        );
    }

    #[test]
    fn rolling_breakpoints_mark_the_newest_block_and_where_the_previous_request_ended() {
        let mut history = MessagesJson::new();
        for i in 0..5 {
            history.push(&ApiMessage::user_text(format!("q{i}")));
            history.push(&ApiMessage { role: Role::Assistant, content: vec![ContentBlock::text(format!("a{i}"))] });
        }
        let system = [SystemPart { text: "s".into(), cache: true }];
        let tools = tool_defs();
        // A turn in its tool loop: user, assistant asking for 30 tools, 30 results.
        let uses: Vec<ContentBlock> = (0..30)
            .map(|i| ContentBlock::ToolUse { id: format!("t{i}"), name: "a".into(), input: json!({}) })
            .collect();
        let results: Vec<ContentBlock> = (0..30)
            .map(|i| ContentBlock::ToolResult { tool_use_id: format!("t{i}"), content: "r".into(), is_error: false })
            .collect();
        let msgs = [
            ApiMessage { role: Role::User, content: vec![ContentBlock::text("ctx"), ContentBlock::text("q5")] },
            ApiMessage { role: Role::Assistant, content: uses },
            ApiMessage { role: Role::User, content: results },
        ];
        let call =
            ModelCall { system: &system, history: &history, messages: &msgs, tools: &tools, ttl: CacheTtl::default() };
        let text = request_body("m", 10, call, true);
        let body: Value = serde_json::from_str(&text).unwrap();
        // Four marks at most: the last tool, the system, the last result, and q5 (where the
        // first call of this turn ended, 60 blocks back: beyond the API's lookback).
        assert_eq!(marks(&body), ["tools/1", "system/0", "messages/10/1", "messages/12/29"]);
        assert_eq!(text.matches("cache_control").count(), 4);
        // The first call of the turn: only the newest block and the previous turn's question.
        let call = ModelCall {
            system: &system,
            history: &history,
            messages: &msgs[..1],
            tools: &tools,
            ttl: CacheTtl::default(),
        };
        let body: Value = serde_json::from_str(&request_body("m", 10, call, true)).unwrap();
        assert_eq!(marks(&body), ["tools/1", "system/0", "messages/8/0", "messages/10/1"]);
    }
}
