//! [`AcpError`]: every way talking to an agent process can fail, each worded so the user knows
//! what to change (the setting, the program, a login in a terminal).

use thiserror::Error;

/// A failure of the agent process or of what it said.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub(crate) enum AcpError {
    /// The program could not be started (missing, not executable).
    #[error("{agent} could not be started ({command}: {why}). {advice}")]
    NotStarted { agent: String, command: String, why: String, advice: String },
    /// The process ended; `during` says what it was doing, `stderr` its last words.
    #[error("{agent} stopped {during} ({how}){stderr}")]
    Exited { agent: String, during: String, how: String, stderr: String },
    /// It answered `initialize` with a protocol version we do not speak.
    #[error("{agent} speaks ACP protocol version {version}; this plugin speaks version 1. Update {agent} (or its ACP adapter) to a release that supports ACP version 1.")]
    Version { agent: String, version: String },
    /// It did not answer a request in time.
    #[error("{agent} did not answer {method} within {seconds} s. Check that {command} is an ACP agent (it must speak JSON-RPC on its standard input and output), or try starting it in a terminal.")]
    Silent { agent: String, method: String, seconds: u64, command: String },
    /// It wrote something that is not JSON-RPC 2.0.
    #[error("{agent} sent something that is not ACP (JSON-RPC 2.0): {what}. Check that {command} is an ACP agent.")]
    Malformed { agent: String, what: String, command: String },
    /// It wrote more than the bounds allow (one line, or output within a turn).
    #[error("{agent} sent too much output ({what}); it was stopped.")]
    Flood { agent: String, what: String },
    /// It needs a login we cannot (and must not) do for it.
    #[error("{agent} needs you to sign in: run `{login}` in a terminal, then send the message again.")]
    Login { agent: String, login: String },
    /// It answered a request with a JSON-RPC error.
    #[error("{agent} refused {method}: {message}")]
    Refused { agent: String, method: String, message: String },
    /// The `smarthole` server's own listener could not be opened: the agent would have no note
    /// tools, so it is not started.
    #[error("{agent} was not started: SmartHole could not open the local port its note tools are served on ({why}). The message is kept; reload the plugin (or restart the headless command) to try again.")]
    ToolsListener { agent: String, why: String },
    /// Agents cannot run here (a phone).
    #[error("{0}")]
    Unavailable(String),
}

impl AcpError {
    /// Whether the same message may succeed if tried again later without the user changing
    /// anything (the process ended mid-turn, a passing refusal), as a failed model call is.
    pub(crate) fn passing(&self) -> bool {
        matches!(self, AcpError::Exited { .. } | AcpError::Refused { .. } | AcpError::Flood { .. })
    }
}
