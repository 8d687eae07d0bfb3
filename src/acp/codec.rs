//! JSON-RPC 2.0 over newline-delimited text, bounded: [`LineBuffer`] cuts the agent's output into
//! lines (one over [`MAX_LINE_BYTES`] is an error, never an unbounded buffer), [`Inbound`] is
//! one line read (a response, a request or a notification), and the `encode_*` functions write
//! our lines (each ends with `\n`).

use serde_json::{json, Value};

/// The longest line an agent may send (a tool call's whole diff fits comfortably).
pub(crate) const MAX_LINE_BYTES: usize = 8 * 1024 * 1024;

/// JSON-RPC's "method not found".
pub(crate) const METHOD_NOT_FOUND: i64 = -32601;
/// JSON-RPC's "invalid params".
pub(crate) const INVALID_PARAMS: i64 = -32602;
/// ACP's "authentication required" (session/new and session/prompt answer it).
pub(crate) const AUTH_REQUIRED: i64 = -32000;

/// Output cut into whole lines as it arrives, in any split.
#[derive(Debug, Default)]
pub(crate) struct LineBuffer {
    partial: String,
}

/// A line longer than [`MAX_LINE_BYTES`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LineTooLong(pub usize);

impl LineBuffer {
    /// Adds a chunk; returns the lines it completed (without `\n` or `\r\n`, blank ones skipped).
    pub(crate) fn push(&mut self, chunk: &str) -> Result<Vec<String>, LineTooLong> {
        let mut lines = Vec::new();
        let mut rest = chunk;
        while let Some(at) = rest.find('\n') {
            let (head, tail) = rest.split_at(at);
            if self.partial.len() + head.len() > MAX_LINE_BYTES {
                return Err(LineTooLong(self.partial.len() + head.len()));
            }
            let mut line = std::mem::take(&mut self.partial);
            line.push_str(head);
            if line.ends_with('\r') {
                line.pop();
            }
            if !line.trim().is_empty() {
                lines.push(line);
            }
            rest = &tail[1..];
        }
        if self.partial.len() + rest.len() > MAX_LINE_BYTES {
            return Err(LineTooLong(self.partial.len() + rest.len()));
        }
        self.partial.push_str(rest);
        Ok(lines)
    }
}

/// A request id: ours are numbers; an agent's may be a number or a string, echoed as given.
pub(crate) type RpcId = Value;

/// One line the agent sent.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Inbound {
    /// The answer to one of our requests.
    Response { id: RpcId, outcome: Result<Value, RpcError> },
    /// The agent asks us something (`session/request_permission`, or a method we do not serve).
    Request { id: RpcId, method: String, params: Value },
    /// The agent tells us something (`session/update`).
    Notification { method: String, params: Value },
}

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RpcError {
    pub code: i64,
    pub message: String,
}

impl Inbound {
    /// Reads one line; the error says what is wrong with it (for the user's error text).
    pub(crate) fn parse(line: &str) -> Result<Inbound, String> {
        let value: Value = serde_json::from_str(line).map_err(|e| format!("not JSON ({e})"))?;
        if value.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return Err("a message without \"jsonrpc\": \"2.0\"".to_owned());
        }
        let id = value.get("id").filter(|id| !id.is_null()).cloned();
        let method = value.get("method").and_then(Value::as_str).map(str::to_owned);
        let params = || value.get("params").cloned().unwrap_or(Value::Null);
        match (method, id) {
            (Some(method), Some(id)) => Ok(Inbound::Request { id, method, params: params() }),
            (Some(method), None) => Ok(Inbound::Notification { method, params: params() }),
            (None, Some(id)) => match (value.get("result"), value.get("error")) {
                (_, Some(error)) if !error.is_null() => {
                    let code = error.get("code").and_then(Value::as_i64).ok_or("an error without a code")?;
                    let message = error.get("message").and_then(Value::as_str).unwrap_or_default().to_owned();
                    Ok(Inbound::Response { id, outcome: Err(RpcError { code, message }) })
                }
                (Some(result), _) => Ok(Inbound::Response { id, outcome: Ok(result.clone()) }),
                (None, _) => Err("a response with neither result nor error".to_owned()),
            },
            (None, None) => Err("a message with neither method nor id".to_owned()),
        }
    }
}

/// A request line.
pub(crate) fn encode_request(id: u64, method: &str, params: &Value) -> String {
    line(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
}

/// A notification line.
pub(crate) fn encode_notification(method: &str, params: &Value) -> String {
    line(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
}

/// The line answering the agent's request `id` with `result`.
pub(crate) fn encode_result(id: &RpcId, result: &Value) -> String {
    line(&json!({"jsonrpc": "2.0", "id": id, "result": result}))
}

/// The line answering the agent's request `id` with an error.
pub(crate) fn encode_error(id: &RpcId, code: i64, message: &str) -> String {
    line(&json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}))
}

fn line(value: &Value) -> String {
    let mut text = value.to_string();
    text.push('\n');
    text
}
