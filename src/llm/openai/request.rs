//! A Chat Completions request for the same call the Messages API would get: the Anthropic-shaped
//! messages translated (an assistant message's tool calls as `tool_calls`, a user message's tool
//! results as `tool` messages first, then its text; images as `image_url` parts), the tool
//! definitions as functions.

use serde_json::{json, Value};

use crate::llm::request::ModelCall;

/// One Anthropic-shaped message as Chat Completions messages: an assistant message carries its
/// text and `tool_calls`; a user message's tool results become `tool` messages, first, then its
/// text as one user message.
pub(super) fn translate_message(message: &Value, out: &mut Vec<Value>) {
    let role = message.get("role").and_then(Value::as_str).unwrap_or("user");
    let blocks = message.get("content").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
    let mut text = Vec::new();
    let mut calls = Vec::new();
    let mut images = Vec::new();
    let mut notes = Vec::new();
    for block in blocks {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => text.push(block.get("text").and_then(Value::as_str).unwrap_or("")),
            // The format's own image part: the same bytes as a data URL.
            Some("image") => {
                let source = block.get("source");
                let field = |name| source.and_then(|s| s.get(name)).and_then(Value::as_str).unwrap_or("");
                let url = format!("data:{};base64,{}", field("media_type"), field("data"));
                images.push(json!({"type": "image_url", "image_url": {"url": url}}));
            }
            // The format has no PDF part (attaching one is refused while it is chosen); one from
            // an earlier turn under the Messages format is named, never dropped in silence.
            Some("document") => {
                let title = block.get("title").and_then(Value::as_str).unwrap_or("a PDF");
                notes.push(format!("[{title} was attached here, but this server's format (Chat Completions) cannot take PDFs, so it was not sent.]"));
            }
            Some("tool_use") => calls.push(json!({
                "id": block.get("id").cloned().unwrap_or(Value::Null),
                "type": "function",
                "function": {
                    "name": block.get("name").cloned().unwrap_or(Value::Null),
                    "arguments": block.get("input").map(Value::to_string).unwrap_or_else(|| "{}".to_owned()),
                },
            })),
            Some("tool_result") => {
                let content = block.get("content").and_then(Value::as_str).unwrap_or("");
                let is_error = block.get("is_error").and_then(Value::as_bool).unwrap_or(false);
                out.push(json!({
                    "role": "tool",
                    "tool_call_id": block.get("tool_use_id").cloned().unwrap_or(Value::Null),
                    "content": if is_error { format!("Error: {content}") } else { content.to_owned() },
                }));
            }
            _ => {}
        }
    }
    text.extend(notes.iter().map(String::as_str));
    let text = text.join("\n\n");
    if role == "assistant" {
        let mut m =
            json!({"role": "assistant", "content": if text.is_empty() { Value::Null } else { Value::String(text) }});
        if !calls.is_empty() {
            m["tool_calls"] = Value::Array(calls);
        }
        out.push(m);
    } else if !images.is_empty() {
        let mut parts = vec![json!({"type": "text", "text": text})];
        parts.extend(images);
        out.push(json!({"role": "user", "content": parts}));
    } else if !text.is_empty() {
        out.push(json!({"role": "user", "content": text}));
    }
}

/// The Anthropic tool definitions (`[{name, description, input_schema}]`) as functions.
fn translate_tools(tools: &str) -> Option<Value> {
    let tools: Vec<Value> = serde_json::from_str(tools).ok()?;
    let functions: Vec<Value> = tools
        .iter()
        .map(|t| {
            json!({"type": "function", "function": {
                "name": t.get("name").cloned().unwrap_or(Value::Null),
                "description": t.get("description").cloned().unwrap_or(Value::Null),
                "parameters": t.get("input_schema").cloned().unwrap_or_else(|| json!({"type": "object"})),
            }})
        })
        .collect();
    (!functions.is_empty()).then_some(Value::Array(functions))
}

/// The JSON body of a Chat Completions request for the same call the Messages API would get.
pub(crate) fn request_body(model: &str, max_tokens: u32, call: ModelCall<'_>, stream: bool) -> String {
    let mut messages = Vec::new();
    let system: Vec<&str> = call.system.iter().map(|p| p.text.as_str()).collect();
    if !system.is_empty() {
        messages.push(json!({"role": "system", "content": system.join("\n\n")}));
    }
    let mut anthropic = String::new();
    call.history.write_with(call.messages, &mut anthropic);
    if let Ok(Value::Array(list)) = serde_json::from_str::<Value>(&anthropic) {
        for message in &list {
            translate_message(message, &mut messages);
        }
    }
    let mut body = json!({"model": model, "max_tokens": max_tokens, "messages": messages});
    if let Some(tools) = (!call.tools.is_empty()).then(|| translate_tools(call.tools)).flatten() {
        body["tools"] = tools;
    }
    if stream {
        body["stream"] = Value::Bool(true);
        body["stream_options"] = json!({"include_usage": true});
    }
    body.to_string()
}
