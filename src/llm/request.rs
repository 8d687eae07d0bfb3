//! One Messages API request: what a model call needs ([`ModelCall`]) and the JSON body built from
//! it, with the prompt-cache marks. Apart from the wire types (`types`) so that the serialised
//! history (`messages_json`) can use those types without the request depending back on it.

use serde_json::{json, Value};

use super::messages_json::MessagesJson;
use super::types::{ApiMessage, SystemPart, ToolDef};

/// Everything one model call needs besides the settings.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ModelCall<'a> {
    pub system: &'a [SystemPart],
    /// The earlier conversation, already serialised.
    pub history: &'a MessagesJson,
    /// This turn's messages: the user's, then what the turn added.
    pub messages: &'a [ApiMessage],
    /// The tools as a JSON array ([`tools_json`]), `""` for none.
    pub tools: &'a str,
}

/// The tools of a request as JSON text, the last marked as the end of the cached prefix. Built
/// once per tool set, not per call.
pub(crate) fn tools_json(tools: &[ToolDef]) -> String {
    let mut array = serde_json::to_value(tools).unwrap_or(Value::Array(Vec::new()));
    if let Some(last) = array.as_array_mut().and_then(|t| t.last_mut()) {
        last["cache_control"] = json!({"type": "ephemeral"});
    }
    if tools.is_empty() {
        String::new()
    } else {
        array.to_string()
    }
}

/// The JSON body of a Messages API request. Prompt caching marks the last tool and the last
/// stable system part (tools → system is the cache order). The conversation is copied from its
/// serialised form, not serialised again.
pub(crate) fn request_body(model: &str, max_tokens: u32, call: ModelCall<'_>, stream: bool) -> String {
    let mut body = json!({ "model": model, "max_tokens": max_tokens });
    if !call.system.is_empty() {
        let system: Vec<Value> = call
            .system
            .iter()
            .map(|part| {
                let mut block = json!({"type": "text", "text": part.text});
                if part.cache {
                    block["cache_control"] = json!({"type": "ephemeral"});
                }
                block
            })
            .collect();
        body["system"] = Value::Array(system);
    }
    if stream {
        body["stream"] = Value::Bool(true);
    }
    let head = body.to_string();
    let mut out = String::with_capacity(head.len() + call.tools.len() + call.history.len() + 1024);
    out.push_str(&head[..head.len() - 1]);
    if !call.tools.is_empty() {
        out.push_str(",\"tools\":");
        out.push_str(call.tools);
    }
    out.push_str(",\"messages\":");
    call.history.write_with(call.messages, &mut out);
    out.push('}');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_marks_cache_breakpoints_and_omits_empty_parts() {
        let msgs = [ApiMessage::user_text("hi")];
        let system =
            [SystemPart { text: "stable".into(), cache: true }, SystemPart { text: "now".into(), cache: false }];
        let tools = tools_json(&[ToolDef {
            name: "a".into(),
            description: "d".into(),
            input_schema: json!({"type": "object"}),
        }]);
        let history = MessagesJson::new();
        let call = ModelCall { system: &system, history: &history, messages: &msgs, tools: &tools };
        let body: Value = serde_json::from_str(&request_body("m", 10, call, true)).unwrap();
        assert_eq!(body["system"][0]["cache_control"]["type"], "ephemeral");
        assert!(body["system"][1].get("cache_control").is_none());
        assert_eq!(body["tools"][0]["cache_control"]["type"], "ephemeral");
        assert_eq!(body["stream"], true);
        let call = ModelCall { system: &[], history: &history, messages: &msgs, tools: "" };
        let bare: Value = serde_json::from_str(&request_body("m", 10, call, false)).unwrap();
        assert!(bare.get("system").is_none() && bare.get("tools").is_none() && bare.get("stream").is_none());
        assert_eq!(bare["messages"][0]["content"][0], json!({"type": "text", "text": "hi"}));
    }
}
