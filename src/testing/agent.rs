//! A scripted ACP agent for the fake host: what the core writes to an agent process is read by
//! [`FakeAgent`], which answers from its script — `initialize` (any version, capabilities and
//! auth methods, or silence, garbage, an exit), `session/new` / `session/load`, and each
//! `session/prompt` with scripted [`AgentStep`]s (updates, permission requests, raw lines, an
//! exit, silence, a wait for `session/cancel`, gates between prompts) — several prompts in
//! different sessions at once, as a real agent may (a turn and a side session). Its output goes back to the processor through
//! `drive_agent` (agent_host.rs), a background task (never a synchronous call into the core),
//! each line split in two chunks so the core's line reading is exercised.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

use futures::channel::mpsc;
use serde_json::{json, Value};

/// How the fake agent answers `initialize`.
#[derive(Debug, Clone, PartialEq)]
pub enum InitAnswer {
    /// Answers with this protocol version, `loadSession` and auth method ids.
    Answer { version: Value, load_session: bool, auth_methods: Vec<String> },
    /// Never answers.
    Silent,
    /// Writes this instead of JSON-RPC.
    Garbage(String),
    /// Exits with this code.
    Exit(i32),
}

/// One step of the fake agent's answer to a prompt.
#[derive(Debug, Clone, PartialEq)]
pub enum AgentStep {
    /// A `session/update` with this `update` object.
    Update(Value),
    /// A `session/request_permission` for this `toolCall`, with the usual four options; the
    /// next step waits for the answer.
    Permission(Value),
    /// A request of a method the client does not serve (its answer is recorded).
    Request(String),
    /// These bytes as they are (several lines, a flood, garbage).
    Raw(String),
    /// The process ends (code, signal, stderr).
    Exit(Option<i32>, Option<String>, String),
    /// Nothing more until `session/cancel`; then the steps left play (updates the agent still
    /// sends) and the prompt ends `cancelled`.
    AwaitCancel,
    /// Nothing more, ever.
    Silence,
    /// The prompt ends with this stop reason.
    End(String),
    /// The prompt ends with this result (its stop reason, its `usage`).
    EndWith(Value),
    /// A `tools/call` of this tool with these arguments, posted to the `smarthole` MCP server
    /// given in `session/new` (its URL and token); the next step waits for the HTTP answer.
    ToolCall(String, Value),
    /// Nothing more until another prompt (or this one) opens this gate ([`AgentStep::Open`]):
    /// two prompts in flight at once are interleaved as a test needs.
    Gate(String),
    /// Opens a gate: the prompts waiting at it go on.
    Open(String),
}

/// A start the core asked for: process, command, args, env, cwd.
pub type AgentLaunch = (u64, String, Vec<String>, BTreeMap<String, String>, String);

/// Something the fake process does, for the driver to tell the processor.
#[derive(Debug, Clone)]
pub(super) enum Out {
    Output(u64, String),
    Exited(u64, Option<i32>, Option<String>, Option<String>, String),
    /// An HTTP request to the core's listener (the agent calling the `smarthole` MCP server).
    Mcp(crate::api::ApiRequest),
    /// The agent's MCP client connecting to the server (its `initialize`), as real agents do
    /// when a session is given the server; its answer's status goes to `mcp_connects`.
    McpConnect(crate::api::ApiRequest),
}

/// The scripted agent and what the core asked of it.
#[derive(Debug, Default)]
pub struct FakeAgent {
    /// How `initialize` is answered (the default: version 1, no load, no auth).
    pub init: Option<InitAnswer>,
    /// `session/new` answers "authentication required".
    pub auth_required: bool,
    /// A missing program: the start fails with this error.
    pub spawn_error: Option<String>,
    /// The `modes` `session/new` answers with (none: no modes).
    pub modes: Option<Value>,
    /// `session/load` answers this JSON-RPC error (none: it loads).
    pub load_error: Option<Value>,
    /// The steps of each prompt, in order (an empty list: the prompt ends `end_turn`).
    pub turns: VecDeque<Vec<AgentStep>>,
    /// Steps for the first prompt whose text holds the needle (taken once, before `turns`).
    pub matching: Vec<(String, Vec<AgentStep>)>,
    /// What the core asked: (process, command, args, env, cwd).
    pub launches: Vec<AgentLaunch>,
    /// Every line the core wrote, parsed.
    pub received: Vec<Value>,
    pub stopped: Vec<u64>,
    /// What `environment` and `agent_folder` answer.
    pub environment: BTreeMap<String, String>,
    pub folder: Option<String>,
    /// `initialize`'s answer says the agent takes no MCP server over HTTP.
    pub no_http_mcp: bool,
    /// `initialize` is answered only at [`FakeAgent::release_initialize`] (a start under way).
    pub hold_initialize: bool,
    held_initialize: Option<String>,
    /// The `smarthole` server's entry in the last `session/new` or `session/load`.
    pub mcp_server: Option<Value>,
    /// The MCP server's answers to the agent's tool calls: HTTP status, body.
    pub mcp_answers: Vec<(u16, Value)>,
    /// The agent never connects to the `smarthole` server it is given (as Gemini CLI in a
    /// folder it does not trust); by default it sends `initialize` once per process.
    pub never_connects: bool,
    /// The HTTP status of each `initialize` the agent sent the server.
    pub mcp_connects: Vec<u16>,
    /// This process sent its `initialize`.
    connected: bool,
    running: Option<u64>,
    sessions: u64,
    /// The prompts being answered, oldest first.
    playing: Vec<Playing>,
    /// The gates opened.
    opened: BTreeSet<String>,
    out: Option<mpsc::UnboundedSender<Out>>,
}

/// A prompt being answered: its request id, session, the steps left, whether it was
/// cancelled, and what it waits for.
#[derive(Debug)]
struct Playing {
    id: Value,
    session: Value,
    steps: VecDeque<AgentStep>,
    cancelled: bool,
    waiting: Option<Waiting>,
}

#[derive(Debug, Clone, PartialEq)]
enum Waiting {
    Permission(String),
    Mcp,
    Cancel,
    Forever,
    Gate(String),
}

impl FakeAgent {
    fn send(&self, out: Out) {
        if let Some(tx) = &self.out {
            let _ = tx.unbounded_send(out);
        }
    }

    /// Writes a line as the process's output, in two chunks.
    fn say(&self, value: &Value) {
        let Some(process) = self.running else { return };
        let mut line = value.to_string();
        line.push('\n');
        let cut = line.char_indices().nth(line.chars().count() / 2).map_or(0, |(at, _)| at);
        self.send(Out::Output(process, line[..cut].to_owned()));
        self.send(Out::Output(process, line[cut..].to_owned()));
    }

    fn exit(&mut self, code: Option<i32>, signal: Option<String>, error: Option<String>, stderr: String) {
        if let Some(process) = self.running.take() {
            self.send(Out::Exited(process, code, signal, error, stderr));
        }
        self.playing.clear();
    }

    pub(super) fn start(&mut self, process: u64, launch: (String, Vec<String>, BTreeMap<String, String>, String)) {
        let (command, args, env, cwd) = launch;
        self.launches.push((process, command.clone(), args, env, cwd));
        self.running = Some(process);
        self.connected = false;
        if let Some(error) = self.spawn_error.clone() {
            self.exit(None, None, Some(format!("spawn {command} {error}")), String::new());
        }
    }

    fn on_line(&mut self, line: &str) {
        let Ok(message) = serde_json::from_str::<Value>(line) else { return };
        self.received.push(message.clone());
        let id = message.get("id").cloned();
        let method = message.get("method").and_then(Value::as_str).unwrap_or_default().to_owned();
        let reply = |result: Value| json!({"jsonrpc": "2.0", "id": id.clone(), "result": result});
        if method == "session/new" || method == "session/load" {
            let servers = message["params"]["mcpServers"].as_array().cloned().unwrap_or_default();
            self.mcp_server = servers.into_iter().find(|s| s["name"] == "smarthole");
            self.connect_mcp();
        }
        match method.as_str() {
            "initialize" => match self.init.clone().unwrap_or(InitAnswer::Answer {
                version: json!(1),
                load_session: false,
                auth_methods: Vec::new(),
            }) {
                InitAnswer::Answer { version, load_session, auth_methods } => {
                    let methods: Vec<Value> = auth_methods.iter().map(|m| json!({"id": m, "name": m})).collect();
                    self.say(&reply(json!({
                        "protocolVersion": version,
                        "agentCapabilities": {"loadSession": load_session, "mcpCapabilities": {"http": !self.no_http_mcp}},
                        "authMethods": methods,
                    })));
                }
                InitAnswer::Silent => {}
                InitAnswer::Garbage(text) => self.raw(&text),
                InitAnswer::Exit(code) => self.exit(Some(code), None, None, "fake agent: cannot start".into()),
            },
            "authenticate" => self.say(&reply(json!({}))),
            "session/new" if self.auth_required => self.say(&json!({
                "jsonrpc": "2.0", "id": id, "error": {"code": -32000, "message": "Authentication required"}
            })),
            "session/new" => {
                self.sessions += 1;
                let mut result = json!({"sessionId": format!("sess-{}", self.sessions)});
                if let Some(modes) = &self.modes {
                    result["modes"] = modes.clone();
                }
                self.say(&reply(result));
            }
            "session/load" => match &self.load_error {
                Some(error) => self.say(&json!({"jsonrpc": "2.0", "id": id, "error": error})),
                None => self.say(&reply(Value::Null)),
            },
            "session/set_mode" => self.say(&reply(json!({}))),
            "session/prompt" => {
                let text = message["params"]["prompt"][0]["text"].as_str().unwrap_or_default();
                let steps = match self.matching.iter().position(|(needle, _)| text.contains(needle.as_str())) {
                    Some(at) => self.matching.remove(at).1,
                    None => self.turns.pop_front().unwrap_or_default(),
                };
                let session = message["params"]["sessionId"].clone();
                let id = id.unwrap_or(Value::Null);
                self.playing.push(Playing { id, session, steps: steps.into(), cancelled: false, waiting: None });
                self.play();
            }
            "session/cancel" => {
                let session = &message["params"]["sessionId"];
                let Some(at) = self.playing.iter().position(|p| &p.session == session) else { return };
                match self.playing[at].waiting {
                    Some(Waiting::Cancel) => {
                        self.playing[at].cancelled = true;
                        self.playing[at].waiting = None;
                        self.play();
                    }
                    Some(Waiting::Permission(_)) => self.end(at, "cancelled"),
                    // A cancel while a tool call is answered: the prompt ends at its next wait for it.
                    Some(Waiting::Mcp) => self.playing[at].cancelled = true,
                    _ => {}
                }
            }
            "" if message.get("result").is_some() || message.get("error").is_some() => {
                let answered =
                    Some(Waiting::Permission(id.as_ref().and_then(Value::as_str).unwrap_or_default().into()));
                if let Some(playing) = self.playing.iter_mut().find(|p| p.waiting == answered) {
                    playing.waiting = None;
                    self.play();
                }
            }
            _ => {}
        }
    }

    fn raw(&self, text: &str) {
        if let Some(process) = self.running {
            self.send(Out::Output(process, text.to_owned()));
        }
    }

    fn end(&mut self, at: usize, stop_reason: &str) {
        let playing = self.playing.remove(at);
        self.say(&json!({"jsonrpc": "2.0", "id": playing.id, "result": {"stopReason": stop_reason}}));
    }

    /// Plays the prompts' steps, each up to its next wait, until none can go on.
    fn play(&mut self) {
        loop {
            let runnable = |p: &Playing| match &p.waiting {
                None => true,
                Some(Waiting::Gate(gate)) => self.opened.contains(gate),
                Some(_) => false,
            };
            let Some(at) = self.playing.iter().position(runnable) else { return };
            self.playing[at].waiting = None;
            self.step(at);
        }
    }

    /// Plays prompt `at`'s next step.
    fn step(&mut self, at: usize) {
        let playing = &mut self.playing[at];
        let Some(step) = playing.steps.pop_front() else {
            let reason = if playing.cancelled { "cancelled" } else { "end_turn" };
            return self.end(at, reason);
        };
        let session = playing.session.clone();
        match step {
            AgentStep::Update(update) => self.say(&json!({
                "jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": session, "update": update}
            })),
            AgentStep::Permission(tool_call) => {
                let id = format!("perm-{}", self.received.len());
                self.say(&json!({"jsonrpc": "2.0", "id": id, "method": "session/request_permission", "params": {
                "sessionId": session, "toolCall": tool_call, "options": [
                    {"optionId": "allow-always", "name": "Always allow", "kind": "allow_always"},
                    {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
                    {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
                ]}}));
                self.playing[at].waiting = Some(Waiting::Permission(id));
            }
            AgentStep::Request(method) => self.say(&json!({
                "jsonrpc": "2.0", "id": "req-1", "method": method, "params": {}
            })),
            AgentStep::Raw(text) => self.raw(&text),
            AgentStep::Exit(code, signal, stderr) => self.exit(code, signal, None, stderr),
            AgentStep::AwaitCancel if self.playing[at].cancelled => {}
            AgentStep::AwaitCancel => self.playing[at].waiting = Some(Waiting::Cancel),
            AgentStep::Silence => self.playing[at].waiting = Some(Waiting::Forever),
            AgentStep::End(reason) => self.end(at, &reason),
            AgentStep::EndWith(result) => {
                let playing = self.playing.remove(at);
                self.say(&json!({"jsonrpc": "2.0", "id": playing.id, "result": result}));
            }
            AgentStep::Gate(gate) => self.playing[at].waiting = Some(Waiting::Gate(gate)),
            AgentStep::Open(gate) => {
                self.opened.insert(gate);
            }
            AgentStep::ToolCall(name, arguments) => {
                let body = json!({"jsonrpc": "2.0", "id": self.mcp_answers.len() + 1, "method": "tools/call",
                    "params": {"name": name, "arguments": arguments}});
                match self.mcp_request(&body) {
                    Some(request) => {
                        self.playing[at].waiting = Some(Waiting::Mcp);
                        self.send(Out::Mcp(request));
                    }
                    None => self.mcp_answers.push((0, json!("no smarthole server was given"))),
                }
            }
        }
    }
}

impl FakeAgent {
    /// Connects to the `smarthole` server given, once per process, unless it never does.
    fn connect_mcp(&mut self) {
        if self.never_connects || self.connected {
            return;
        }
        let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "fake-agent"}}});
        if let Some(request) = self.mcp_request(&initialize) {
            self.connected = true;
            self.send(Out::McpConnect(request));
        }
    }

    /// A POST of `body` to the `smarthole` server, as an MCP client sends it (its URL's port and
    /// path, its Authorization header).
    pub fn mcp_request(&self, body: &Value) -> Option<crate::api::ApiRequest> {
        let server = self.mcp_server.as_ref()?;
        let url = server["url"].as_str()?;
        let rest = url.strip_prefix("http://127.0.0.1:")?;
        let (port, path) = rest.split_at(rest.find('/')?);
        let authorization = server["headers"][0]["value"].as_str()?.to_owned();
        Some(crate::api::ApiRequest {
            method: "POST".into(),
            url: path.to_owned(),
            headers: [("host".to_owned(), format!("127.0.0.1:{port}")), ("authorization".to_owned(), authorization)]
                .into(),
            body: body.to_string(),
            body_too_large: false,
            local_port: port.parse().ok()?,
        })
    }

    /// The server answered the agent's tool call: the steps go on.
    pub(super) fn mcp_answered(&mut self, status: u16, body: &str) {
        self.mcp_answers.push((status, serde_json::from_str(body).unwrap_or(Value::Null)));
        if let Some(playing) = self.playing.iter_mut().find(|p| p.waiting == Some(Waiting::Mcp)) {
            playing.waiting = None;
            self.play();
        }
    }

    /// Lines the core wrote to process `process`.
    pub(super) fn write(&mut self, process: u64, text: &str) {
        if self.running != Some(process) {
            return;
        }
        for line in text.lines() {
            let method = serde_json::from_str::<Value>(line).map(|m| m["method"] == "initialize");
            if self.hold_initialize && method.unwrap_or(false) {
                self.held_initialize = Some(line.to_owned());
                continue;
            }
            self.on_line(line);
        }
    }

    /// Answers the `initialize` held by `hold_initialize`, and those to come.
    pub fn release_initialize(&mut self) {
        self.hold_initialize = false;
        if let Some(line) = self.held_initialize.take() {
            self.on_line(&line);
        }
    }

    /// The core stopped process `process`.
    pub(super) fn stop_process(&mut self, process: u64) {
        self.stopped.push(process);
        if self.running == Some(process) {
            self.exit(None, Some("SIGTERM".into()), None, String::new());
        }
    }

    /// Where the agent's output goes from now on.
    pub(super) fn connect(&mut self) -> mpsc::UnboundedReceiver<Out> {
        let (tx, rx) = mpsc::unbounded();
        self.out = Some(tx);
        rx
    }
}

/// The agent's state lives with the host's (`State::agent`).
pub(super) type AgentSlot = RefCell<FakeAgent>;
