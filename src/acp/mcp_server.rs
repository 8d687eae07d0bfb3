//! The plugin's own MCP server, `smarthole`, as the ACP agent reaches it: MCP over streamable
//! HTTP (one JSON-RPC message per POST, answered with an `application/json` body; no SSE),
//! decided here without I/O. `initialize`, `ping` and `tools/list` are answered at once; a
//! `tools/call` is handed to the processor (`processor/agent_tools.rs`), which runs the tool in
//! the turn of the message being answered. The host's listener only moves the bytes.

use serde_json::{json, Value};

use super::codec::{INVALID_PARAMS, METHOD_NOT_FOUND};
use crate::llm::ToolDef;

/// An HTTP answer (the processor turns it into the agent API's response type).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct McpAnswer {
    pub(crate) status: u16,
    /// JSON, or empty (202).
    pub(crate) body: String,
    pub(crate) headers: Vec<(String, String)>,
}

impl McpAnswer {
    fn json(status: u16, value: &Value) -> Self {
        McpAnswer { status, body: value.to_string(), headers: Vec::new() }
    }
}

/// The server's name in `session/new`'s `mcpServers` (the agent calls its tools
/// `mcp__smarthole__<tool>`).
pub(crate) const SERVER_NAME: &str = "smarthole";

/// The path the server answers on, under the agent API's listener.
pub(crate) const MCP_PATH: &str = "/mcp";

/// The built-in tools the agent is given: the note tools, `send_message`, `end_conversation`,
/// the schedule tools, and the question tools (`needs_input` ends the turn as for the built-in
/// agent: the turn cancels the agent's prompt once the question is shown).
pub(crate) const SERVED_TOOLS: [&str; 17] = [
    "read_file",
    "write_file",
    "edit_file",
    "create_folder",
    "delete_file",
    "move_file",
    "search_files",
    "list_files",
    "get_file_info",
    "get_active_note",
    "send_message",
    "end_conversation",
    "create_schedule",
    "state_update",
    "needs_input",
    "keep_question_open",
    "get_conversation",
];

/// MCP protocol versions this server speaks, newest first.
const VERSIONS: [&str; 3] = ["2025-06-18", "2025-03-26", "2024-11-05"];

/// JSON-RPC's "parse error" and "invalid request".
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;

/// Where the agent reaches the server: its URL and the bearer token of this agent process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct McpEndpoint {
    pub(crate) url: String,
    pub(crate) token: String,
}

impl McpEndpoint {
    /// The server on the loopback listener at `port`, with `token`.
    pub(crate) fn on_port(port: u16, token: String) -> Self {
        McpEndpoint { url: format!("http://127.0.0.1:{port}{MCP_PATH}"), token }
    }

    /// The `mcpServers` entry of `session/new` / `session/load` (ACP's HTTP transport).
    pub(crate) fn server_entry(&self) -> Value {
        json!({
            "type": "http",
            "name": SERVER_NAME,
            "url": self.url,
            "headers": [{"name": "Authorization", "value": format!("Bearer {}", self.token)}],
        })
    }
}

/// What a request to the server needs.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum McpStep {
    /// The answer, at once.
    Answer(McpAnswer),
    /// A tool call to run in the turn; answer it with [`call_answer`].
    Call { id: Value, name: String, arguments: Value },
}

/// Whether a URL path is the server's.
pub(crate) fn is_mcp_path(url: &str) -> bool {
    let path = url.split_once('?').map_or(url, |(p, _)| p);
    path.trim_end_matches('/') == MCP_PATH
}

/// Decides a request: `method` (HTTP) and `body`; `tools` are the definitions served.
pub(crate) fn step(method: &str, body: &str, tools: &[ToolDef]) -> McpStep {
    if method != "POST" {
        // No server-sent stream and no session to end: clients fall back to POST only.
        let mut answer = McpAnswer::json(405, &json!({"error": "only POST is served here"}));
        answer.headers.push(("Allow".into(), "POST".into()));
        return McpStep::Answer(answer);
    }
    let message: Value = match serde_json::from_str(body) {
        Ok(message) => message,
        Err(e) => return McpStep::Answer(error(&Value::Null, PARSE_ERROR, &format!("not JSON: {e}"), 400)),
    };
    let Some(method) = message.get("method").and_then(Value::as_str) else {
        // A response or anything else without a method: nothing to answer.
        return McpStep::Answer(accepted());
    };
    let Some(id) = message.get("id").filter(|id| id.is_string() || id.is_number()).cloned() else {
        return McpStep::Answer(accepted());
    };
    let params = message.get("params").cloned().unwrap_or(Value::Null);
    match method {
        "initialize" => {
            let asked = params.get("protocolVersion").and_then(Value::as_str).unwrap_or_default();
            let version = VERSIONS.iter().find(|v| **v == asked).unwrap_or(&VERSIONS[0]);
            McpStep::Answer(result(
                &id,
                json!({
                    "protocolVersion": version,
                    "capabilities": {"tools": {"listChanged": false}},
                    "serverInfo": {"name": SERVER_NAME, "version": env!("CARGO_PKG_VERSION")},
                    "instructions": "The user's notes and SmartHole's own tools: every change to a note is a diff the user reviews.",
                }),
            ))
        }
        "ping" => McpStep::Answer(result(&id, json!({}))),
        "tools/list" => {
            let list: Vec<Value> = tools
                .iter()
                .map(|t| json!({"name": t.name, "description": t.description, "inputSchema": t.input_schema}))
                .collect();
            McpStep::Answer(result(&id, json!({"tools": list})))
        }
        "tools/call" => {
            let Some(name) = params.get("name").and_then(Value::as_str) else {
                return McpStep::Answer(error(&id, INVALID_PARAMS, "tools/call needs a tool name", 200));
            };
            if !tools.iter().any(|t| t.name == name) {
                return McpStep::Answer(error(&id, INVALID_PARAMS, &format!("there is no tool {name:?}"), 200));
            }
            let arguments = params.get("arguments").cloned().unwrap_or_else(|| json!({}));
            McpStep::Call { id, name: name.to_owned(), arguments }
        }
        "" => McpStep::Answer(error(&id, INVALID_REQUEST, "no method", 200)),
        other => McpStep::Answer(error(&id, METHOD_NOT_FOUND, &format!("method not found: {other}"), 200)),
    }
}

/// The answer to tool call `id`: the tool's text, as an error result when it failed.
pub(crate) fn call_answer(id: &Value, text: &str, is_error: bool) -> McpAnswer {
    result(id, json!({"content": [{"type": "text", "text": text}], "isError": is_error}))
}

/// The answer to tool call `id` that could not run: why, as an error result the model reads.
pub(crate) fn call_refused(id: &Value, why: &str) -> McpAnswer {
    call_answer(id, why, true)
}

fn result(id: &Value, result: Value) -> McpAnswer {
    McpAnswer::json(200, &json!({"jsonrpc": "2.0", "id": id, "result": result}))
}

fn error(id: &Value, code: i64, message: &str, status: u16) -> McpAnswer {
    McpAnswer::json(status, &json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}))
}

/// A notification or response taken: 202, no body.
fn accepted() -> McpAnswer {
    McpAnswer { status: 202, body: String::new(), headers: Vec::new() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tools() -> Vec<ToolDef> {
        vec![ToolDef { name: "read_file".into(), description: "Read".into(), input_schema: json!({"type": "object"}) }]
    }

    fn answer(step: McpStep) -> (u16, Value) {
        match step {
            McpStep::Answer(a) => (a.status, serde_json::from_str(&a.body).unwrap_or(Value::Null)),
            McpStep::Call { .. } => panic!("a call"),
        }
    }

    #[test]
    fn the_handshake_and_the_list_are_answered_at_once() {
        let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}"#;
        let (status, body) = answer(step("POST", init, &tools()));
        assert_eq!(status, 200);
        assert_eq!(body["result"]["protocolVersion"], "2025-03-26");
        assert_eq!(body["result"]["serverInfo"]["name"], "smarthole");
        let odd = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"1999-01-01"}}"#;
        assert_eq!(answer(step("POST", odd, &tools())).1["result"]["protocolVersion"], VERSIONS[0]);
        let note = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        assert_eq!(step("POST", note, &tools()), McpStep::Answer(accepted()));
        let list = answer(step("POST", r#"{"jsonrpc":"2.0","id":"a","method":"tools/list"}"#, &tools())).1;
        assert_eq!(list["id"], "a");
        assert_eq!(list["result"]["tools"][0]["name"], "read_file");
        assert_eq!(list["result"]["tools"][0]["inputSchema"]["type"], "object");
        let ping = answer(step("POST", r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#, &tools())).1;
        assert_eq!(ping["result"], json!({}));
    }

    #[test]
    fn calls_go_to_the_turn_and_anything_else_is_an_error() {
        let call = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a.md"}}}"#;
        assert_eq!(
            step("POST", call, &tools()),
            McpStep::Call { id: json!(3), name: "read_file".into(), arguments: json!({"path": "a.md"}) }
        );
        let unknown = r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"rm_rf"}}"#;
        assert_eq!(answer(step("POST", unknown, &tools())).1["error"]["code"], INVALID_PARAMS);
        let other = r#"{"jsonrpc":"2.0","id":5,"method":"resources/list"}"#;
        assert_eq!(answer(step("POST", other, &tools())).1["error"]["code"], METHOD_NOT_FOUND);
        assert_eq!(answer(step("POST", "{", &tools())), (400, answer(step("POST", "{", &tools())).1));
        assert_eq!(answer(step("POST", "{", &tools())).1["error"]["code"], PARSE_ERROR);
        assert_eq!(answer(step("GET", "", &tools())).0, 405);
    }

    #[test]
    fn the_entry_names_the_server_its_url_and_token() {
        let entry = McpEndpoint::on_port(8090, "t0k".into()).server_entry();
        assert_eq!(entry["name"], "smarthole");
        assert_eq!(entry["url"], "http://127.0.0.1:8090/mcp");
        assert_eq!(entry["headers"][0], json!({"name": "Authorization", "value": "Bearer t0k"}));
        assert!(is_mcp_path("/mcp") && is_mcp_path("/mcp/") && !is_mcp_path("/mcpx") && !is_mcp_path("/config"));
    }
}
