//! The connection to one agent process, sans I/O: [`AcpClient`] is told what the process wrote
//! and that it ended, and answers with [`AcpAction`]s for the host (start, write a line, stop)
//! and [`Delivery`]s for the turn waiting on it (ready, a reply, an update, a permission request,
//! a failure). It owns the request ids, the handshake (`initialize`, protocol version 1, an
//! `authenticate` only where it needs no credentials from us), the bounds on what the agent
//! may write, and the answer to whatever the client does not serve (`-32601`).

use serde_json::{json, Value};

use super::codec::{self, Inbound, LineBuffer, RpcError, RpcId, METHOD_NOT_FOUND};
use super::error::AcpError;
use super::launch::{AgentKind, Launch};
use super::messages::{InitializeResult, PermissionRequest, SessionNotification, PROTOCOL_VERSION};

/// The most the agent may write between two prompts (its answers, updates, diffs): past it the
/// process is stopped, so a runaway agent never grows the plugin's memory without bound.
pub(crate) const MAX_TURN_OUTPUT_BYTES: u64 = 64 * 1024 * 1024;

/// What the host is asked to do.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum AcpAction {
    Start { process: u64, launch: Launch },
    Write { process: u64, line: String },
    Stop { process: u64 },
}

/// What the turn waiting on the agent is told.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Delivery {
    /// The handshake is done: requests may be sent.
    Ready,
    /// The answer to our request `id`.
    Reply { id: u64, outcome: Result<Value, RpcError> },
    /// The agent asks whether a tool call may run; answer with [`AcpClient::answer`].
    Permission { id: RpcId, request: Box<PermissionRequest> },
    /// A session reported progress.
    Update(Box<SessionNotification>),
    /// The process is gone or unusable.
    Failed(AcpError),
}

#[derive(Debug, Clone, PartialEq)]
enum Phase {
    Stopped,
    Initializing { id: u64 },
    Authenticating { id: u64 },
    Ready,
}

/// The agent process as the core keeps it, across turns.
#[derive(Debug)]
pub(crate) struct AcpClient {
    kind: AgentKind,
    launch: Option<Launch>,
    process: Option<u64>,
    next_process: u64,
    phase: Phase,
    next_id: u64,
    /// Our requests not answered yet: id → method.
    pending: crate::lean::IdMap<String>,
    lines: LineBuffer,
    /// Bytes written by the agent since the last prompt began.
    output: u64,
    initialized: InitializeResult,
    /// Sessions this process made or loaded (usable without `session/load`).
    live_sessions: Vec<String>,
    /// The agent's permission requests not answered yet.
    open_permissions: Vec<RpcId>,
}

impl Default for AcpClient {
    fn default() -> Self {
        AcpClient {
            kind: AgentKind::Builtin,
            launch: None,
            process: None,
            next_process: 1,
            phase: Phase::Stopped,
            next_id: 1,
            pending: crate::lean::IdMap::default(),
            lines: LineBuffer::default(),
            output: 0,
            initialized: InitializeResult::default(),
            live_sessions: Vec::new(),
            open_permissions: Vec::new(),
        }
    }
}

impl AcpClient {
    /// Whether the process runs and answered the handshake, started as `launch` for `kind`.
    pub(crate) fn ready_as(&self, kind: AgentKind, launch: &Launch) -> bool {
        self.phase == Phase::Ready && self.kind == kind && self.launch.as_ref() == Some(launch)
    }

    /// Whether the process started as `launch` for `kind` is still at its handshake.
    pub(crate) fn starting_as(&self, kind: AgentKind, launch: &Launch) -> bool {
        let starting = matches!(self.phase, Phase::Initializing { .. } | Phase::Authenticating { .. });
        starting && self.kind == kind && self.launch.as_ref() == Some(launch)
    }

    /// The agent this connection serves (the tools' names it is served: `served_names.rs`).
    pub(crate) fn kind(&self) -> AgentKind {
        self.kind
    }

    /// The agent's name as the user reads it.
    pub(crate) fn label(&self) -> &'static str {
        self.kind.label()
    }

    /// The command line (program and arguments: an interpreter alone names nothing), for errors.
    fn command(&self) -> String {
        let words = self.launch.iter().flat_map(|l| std::iter::once(&l.command).chain(&l.args));
        head(&words.map(String::as_str).collect::<Vec<_>>().join(" "))
    }

    /// What the agent said it can do (load sessions, take MCP servers over HTTP).
    pub(crate) fn capabilities(&self) -> &InitializeResult {
        &self.initialized
    }

    /// Whether this process made or loaded the session.
    pub(crate) fn is_live(&self, session: &str) -> bool {
        self.live_sessions.iter().any(|s| s == session)
    }

    /// Notes a session this process made or loaded.
    pub(crate) fn session_live(&mut self, session: &str) {
        if !self.is_live(session) {
            self.live_sessions.push(session.to_owned());
        }
    }

    /// Starts the agent (stopping one already running) and sends `initialize`.
    pub(crate) fn start(&mut self, kind: AgentKind, launch: Launch) -> Vec<AcpAction> {
        let mut actions = self.stop();
        let process = self.next_process;
        self.next_process += 1;
        *self = AcpClient {
            kind,
            launch: Some(launch.clone()),
            process: Some(process),
            next_process: self.next_process,
            next_id: self.next_id,
            ..AcpClient::default()
        };
        actions.push(AcpAction::Start { process, launch });
        let params = json!({
            "protocolVersion": PROTOCOL_VERSION,
            "clientCapabilities": {"fs": {"readTextFile": false, "writeTextFile": false}, "terminal": false},
            "clientInfo": {"name": "smarthole-agent", "version": env!("CARGO_PKG_VERSION")},
        });
        let (id, write) = self.request("initialize", &params);
        self.phase = Phase::Initializing { id };
        actions.extend(write);
        actions
    }

    /// Stops the process (if any); its requests are forgotten.
    pub(crate) fn stop(&mut self) -> Vec<AcpAction> {
        self.phase = Phase::Stopped;
        self.pending.clear();
        self.open_permissions.clear();
        self.live_sessions.clear();
        self.lines = LineBuffer::default();
        self.process.take().map(|process| AcpAction::Stop { process }).into_iter().collect()
    }

    /// A request to the agent: its id, and the line to write.
    pub(crate) fn request(&mut self, method: &str, params: &Value) -> (u64, Vec<AcpAction>) {
        let id = self.next_id;
        self.next_id += 1;
        self.pending.insert(id, method.to_owned());
        (id, self.write(codec::encode_request(id, method, params)))
    }

    /// A notification to the agent (`session/cancel`).
    pub(crate) fn notify(&mut self, method: &str, params: &Value) -> Vec<AcpAction> {
        self.write(codec::encode_notification(method, params))
    }

    /// Answers the agent's request `id` (a permission request) with `result`.
    pub(crate) fn answer(&mut self, id: &RpcId, result: &Value) -> Vec<AcpAction> {
        self.open_permissions.retain(|open| open != id);
        self.write(codec::encode_result(id, result))
    }

    /// Answers every open permission request `cancelled` (a prompt being cancelled).
    pub(crate) fn cancel_permissions(&mut self) -> Vec<AcpAction> {
        let open = std::mem::take(&mut self.open_permissions);
        open.iter().flat_map(|id| self.answer(id, &json!({"outcome": {"outcome": "cancelled"}}))).collect()
    }

    /// A prompt begins: the output bound counts from here.
    pub(crate) fn begin_prompt(&mut self) {
        self.output = 0;
    }

    fn write(&self, line: String) -> Vec<AcpAction> {
        self.process.map(|process| AcpAction::Write { process, line }).into_iter().collect()
    }

    /// Ends the process with an error the turn is told.
    pub(crate) fn fail(&mut self, error: AcpError) -> (Vec<AcpAction>, Vec<Delivery>) {
        (self.stop(), vec![Delivery::Failed(error)])
    }

    /// The agent did not answer `method` within `seconds`: stopped, with an error saying so.
    pub(crate) fn silent(&mut self, method: &str, seconds: u64) -> (Vec<AcpAction>, AcpError) {
        let error =
            AcpError::Silent { agent: self.label().into(), method: method.into(), seconds, command: self.command() };
        (self.stop(), error)
    }

    /// What process `process` wrote on its standard output.
    pub(crate) fn on_output(&mut self, process: u64, chunk: &str) -> (Vec<AcpAction>, Vec<Delivery>) {
        if self.process != Some(process) {
            return (Vec::new(), Vec::new());
        }
        self.output += chunk.len() as u64;
        if self.output > MAX_TURN_OUTPUT_BYTES {
            let what = format!("more than {} MB in one turn", MAX_TURN_OUTPUT_BYTES / (1024 * 1024));
            return self.fail(AcpError::Flood { agent: self.label().into(), what });
        }
        let lines = match self.lines.push(chunk) {
            Ok(lines) => lines,
            Err(_) => {
                let what = format!("a line longer than {} MB", codec::MAX_LINE_BYTES / (1024 * 1024));
                return self.fail(AcpError::Flood { agent: self.label().into(), what });
            }
        };
        let (mut actions, mut deliveries) = (Vec::new(), Vec::new());
        for line in lines {
            match Inbound::parse(&line) {
                Ok(inbound) => self.on_inbound(inbound, &mut actions, &mut deliveries),
                Err(what) => {
                    let what = format!("{what}: {}", head(&line));
                    let (stop, failed) =
                        self.fail(AcpError::Malformed { agent: self.label().into(), what, command: self.command() });
                    actions.extend(stop);
                    deliveries.extend(failed);
                    break;
                }
            }
            if self.process.is_none() {
                break;
            }
        }
        (actions, deliveries)
    }

    fn on_inbound(&mut self, inbound: Inbound, actions: &mut Vec<AcpAction>, deliveries: &mut Vec<Delivery>) {
        match inbound {
            Inbound::Response { id, outcome } => {
                let Some(id) = id.as_u64().filter(|id| self.pending.contains_key(*id)) else { return };
                self.pending.remove(id);
                match self.phase {
                    Phase::Initializing { id: init } if init == id => self.on_initialized(outcome, actions, deliveries),
                    Phase::Authenticating { id: auth } if auth == id => match outcome {
                        Ok(_) => {
                            self.phase = Phase::Ready;
                            deliveries.push(Delivery::Ready);
                        }
                        Err(_) => {
                            let login = self.kind.login_command().to_owned();
                            let (stop, failed) = self.fail(AcpError::Login { agent: self.label().into(), login });
                            actions.extend(stop);
                            deliveries.extend(failed);
                        }
                    },
                    _ => deliveries.push(Delivery::Reply { id, outcome }),
                }
            }
            Inbound::Request { id, method, params } if method == "session/request_permission" => {
                match PermissionRequest::read(&params) {
                    Ok(request) => {
                        self.open_permissions.push(id.clone());
                        deliveries.push(Delivery::Permission { id, request: Box::new(request) });
                    }
                    Err(e) => actions.extend(self.write(codec::encode_error(&id, codec::INVALID_PARAMS, &e))),
                }
            }
            Inbound::Request { id, method, .. } => {
                let message =
                    format!("method not found: {method} (this client serves session/request_permission only)");
                actions.extend(self.write(codec::encode_error(&id, METHOD_NOT_FOUND, &message)));
            }
            Inbound::Notification { method, params } if method == "session/update" => {
                if let Ok(update) = SessionNotification::read(&params) {
                    deliveries.push(Delivery::Update(Box::new(update)));
                }
            }
            Inbound::Notification { .. } => {}
        }
    }

    fn on_initialized(
        &mut self,
        outcome: Result<Value, RpcError>,
        actions: &mut Vec<AcpAction>,
        deliveries: &mut Vec<Delivery>,
    ) {
        let agent = self.label().to_owned();
        let result = match outcome {
            Ok(result) => InitializeResult::read(&result),
            Err(error) => Err(error.message),
        };
        let failure = match result {
            Err(what) => Some(AcpError::Refused { agent, method: "initialize".into(), message: what }),
            Ok(result) if result.protocol_version.as_u64() != Some(PROTOCOL_VERSION) => {
                let version = result.protocol_version.to_string();
                Some(AcpError::Version { agent, version })
            }
            Ok(result) => {
                let method = self.usable_auth_method(&result);
                self.initialized = result;
                match method {
                    Some(method) => {
                        let (id, write) = self.request("authenticate", &json!({"methodId": method}));
                        self.phase = Phase::Authenticating { id };
                        actions.extend(write);
                    }
                    None => {
                        self.phase = Phase::Ready;
                        deliveries.push(Delivery::Ready);
                    }
                }
                None
            }
        };
        if let Some(error) = failure {
            let (stop, failed) = self.fail(error);
            actions.extend(stop);
            deliveries.extend(failed);
        }
    }

    /// An auth method the agent offers that needs nothing from us: its own key already in the
    /// environment the user gave it (Gemini CLI's `gemini-api-key` with GEMINI_API_KEY). Any
    /// other login is the user's, in a terminal.
    fn usable_auth_method(&self, result: &InitializeResult) -> Option<String> {
        let env = &self.launch.as_ref()?.env;
        let usable = |id: &str| match id {
            "gemini-api-key" => env.contains_key("GEMINI_API_KEY"),
            _ => false,
        };
        result.auth_methods.iter().find(|id| usable(id)).cloned()
    }

    /// Process `process` ended (or never started: `error`). Returns what the waiting turn is told.
    pub(crate) fn on_exit(
        &mut self,
        process: u64,
        code: Option<i32>,
        signal: Option<&str>,
        error: Option<&str>,
        stderr_tail: &str,
    ) -> Vec<Delivery> {
        if self.process != Some(process) {
            return Vec::new();
        }
        let agent = self.label().to_owned();
        let during = match self.phase {
            Phase::Initializing { .. } | Phase::Authenticating { .. } => "while starting",
            _ if self.pending.values().any(|m| m == "session/prompt") => "in the middle of its answer",
            _ => "between messages",
        };
        let error = match error {
            Some(why) => AcpError::NotStarted {
                agent,
                command: self.launch.as_ref().map(|l| l.command.clone()).unwrap_or_default(),
                why: why.to_owned(),
                advice: format!("{}, or set the agent command in settings to where it is.", self.kind.install_hint()),
            },
            None => {
                let how = match (code, signal) {
                    (_, Some(signal)) => format!("killed by {signal}"),
                    (Some(code), None) => format!("exit code {code}"),
                    (None, None) => "no exit code".to_owned(),
                };
                let tail = stderr_tail.trim();
                let stderr = if tail.is_empty() { String::new() } else { format!(": {}", shorten(tail)) };
                AcpError::Exited { agent, during: during.to_owned(), how, stderr }
            }
        };
        self.process = None;
        self.stop();
        vec![Delivery::Failed(error)]
    }
}

/// A line cut to its first 200 characters (error messages stay readable).
fn head(text: &str) -> String {
    match text.char_indices().nth(200) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// A text cut to its last 300 characters (error messages stay readable).
fn shorten(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() <= 300 {
        return text.to_owned();
    }
    let tail: String = chars[chars.len() - 300..].iter().collect();
    format!("…{tail}")
}
