//! Which agent processes a host killed outright left running, to end at its next start. The
//! host records each agent it starts (its process group's leader: pid, program, arguments) in
//! `.smarthole/agent-processes.json` until it ends; a host killed with SIGKILL (or a crashed app)
//! cannot stop them, and Claude Code's adapter outlives its closed stdin (docs/ACP-AGENTS.md).
//! At the next start the host reports what it recorded and each pid's command line as the system
//! shows it; this says which groups to end — only those whose leader is still the agent recorded
//! (a pid the system has given to another program since is never touched) — and the host kills
//! them and empties the record.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One agent process as the host recorded it at its start.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct AgentRecord {
    /// The process group's leader (the agent the host spawned).
    pub pid: u32,
    /// The program as started (a path or a name).
    pub command: String,
    pub args: Vec<String>,
}

/// What the host does with its record at the start.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct LeftoverDecision {
    /// The process groups to end (SIGKILL).
    pub end: Vec<u32>,
    /// What to log: each group ended or left alone, a record that could not be read.
    pub notes: Vec<String>,
    /// Whether to empty the record (agents were recorded; none is running for this host now).
    pub forget: bool,
}

/// Whether a running process's command line is the recorded agent's: its program's name and
/// every argument appear in it (an interpreter may come first: a script's shebang runs
/// `node /path/claude-agent-acp`).
pub fn is_recorded_agent(record: &AgentRecord, command_line: &str) -> bool {
    let program = record.command.rsplit(['/', '\\']).next().unwrap_or(&record.command);
    !program.is_empty()
        && command_line.contains(program)
        && record.args.iter().all(|arg| command_line.contains(arg.as_str()))
}

/// The records in the file's text: every whole entry with a pid above 1 (0 and 1 are never an
/// agent's group: signalling them would reach everything); a damaged entry is skipped, a file
/// that is not a list is read as none (at worst an agent stays up, as it would without it).
fn recorded_agents(text: &str) -> Result<Vec<AgentRecord>, serde_json::Error> {
    let entries: Vec<Value> = match serde_json::from_str::<Value>(text)? {
        Value::Array(entries) => entries,
        _ => Vec::new(),
    };
    let records = entries.into_iter().filter_map(|entry| crate::lean::from_value::<AgentRecord>(&entry).ok());
    Ok(records.filter(|record| record.pid > 1 && record.pid <= i32::MAX as u32).collect())
}

/// The decision at the host's start: `recorded` is the record's text (`None`: no file), and
/// `command_line` answers a pid's command line as the system shows it (`None`: no such process).
pub fn leftovers_to_end(
    recorded: Option<&str>,
    mut command_line: impl FnMut(u32) -> Option<String>,
) -> LeftoverDecision {
    let mut decision = LeftoverDecision::default();
    let records = match recorded.map(recorded_agents).transpose() {
        Ok(records) => records.unwrap_or_default(),
        Err(error) => {
            decision.notes.push(format!("agent-processes.json not read: {error}"));
            return decision;
        }
    };
    decision.forget = !records.is_empty();
    for record in records {
        let Some(line) = command_line(record.pid) else { continue };
        if is_recorded_agent(&record, &line) {
            decision.notes.push(format!("ending the agent a previous run left: {} {line}", record.pid));
            decision.end.push(record.pid);
        } else {
            decision
                .notes
                .push(format!("process {} is no longer the agent started earlier ({line}); left alone", record.pid));
        }
    }
    decision
}
