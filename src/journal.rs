//! The turn journal: the steps of a turn already taken (model answers that asked for tools,
//! tools started, tool results), appended to `inbox/<id>.turn.jsonl` as they happen. A retry or a
//! restart replays it instead of running those tools again; a tool that started but has no
//! result is reported to the model as interrupted rather than run a second time.

use serde::{Deserialize, Serialize};

use crate::host::Host;
use crate::host_types::{HostError, LogLevel};
use crate::inbox::journal_path;
use crate::llm::types::field;
use crate::llm::{ContentBlock, Usage};
use crate::tools::ToolEffect;

/// One step of a turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "snake_case", try_from = "FlatRecord")]
pub(crate) enum JournalRecord {
    /// A run of the turn began: written beside its first request, durable before its answer is
    /// read. A start with no recorded end is a run that took the app or its core down: see
    /// [`crashed_runs`].
    Started,
    /// The message context the turn's requests open the user's message with: a resumed turn
    /// sends the same, so its requests read what the earlier run wrote to the prompt cache.
    Context { content: String },
    /// A model answer the turn continues from (it asked for tools, or paused), with what the
    /// call consumed.
    Assistant {
        content: Vec<ContentBlock>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        usage: Option<Usage>,
    },
    /// A tool call is about to run.
    ToolStarted { tool_use_id: String },
    /// A tool call finished.
    ToolDone { tool_use_id: String, content: String, is_error: bool, effect: ToolEffect },
    /// An ACP agent's call of a `smarthole` tool is about to run. `call` names it in this
    /// journal (the agent's own ids change on a retry: a retried call is matched by `name` and
    /// `input`).
    AgentToolStarted { call: String, name: String, input: serde_json::Value },
    /// That call finished.
    AgentToolDone { call: String, content: String, is_error: bool, effect: ToolEffect },
    /// An ACP agent's cumulative cost for `session` that the usage ledger counted up to: a
    /// retried turn in the same session counts only what it adds.
    AgentCost { session: String, cost_usd: f64 },
}

/// A step as read (flat, like `llm::types::FlatBlock`, for the bundle's size). `content` is
/// blocks for an answer and text for a tool's result.
#[derive(Deserialize)]
struct FlatRecord {
    step: String,
    content: Option<serde_json::Value>,
    tool_use_id: Option<String>,
    #[serde(default)]
    is_error: bool,
    #[serde(default)]
    effect: ToolEffect,
    usage: Option<Usage>,
    call: Option<String>,
    name: Option<String>,
    input: Option<serde_json::Value>,
    session: Option<String>,
    cost_usd: Option<f64>,
}

impl TryFrom<FlatRecord> for JournalRecord {
    type Error = String;

    fn try_from(f: FlatRecord) -> Result<Self, String> {
        let step = f.step.as_str();
        match step {
            "assistant" => {
                let content = field(f.content, step, "content")?;
                Ok(JournalRecord::Assistant {
                    content: crate::lean::from_value(&content).map_err(|e| e.to_string())?,
                    usage: f.usage,
                })
            }
            "context" => match field(f.content, step, "content")? {
                serde_json::Value::String(content) => Ok(JournalRecord::Context { content }),
                _ => Err("a context record's content must be text".to_owned()),
            },
            "started" => Ok(JournalRecord::Started),
            "tool_started" => {
                Ok(JournalRecord::ToolStarted { tool_use_id: field(f.tool_use_id, step, "tool_use_id")? })
            }
            "tool_done" => Ok(JournalRecord::ToolDone {
                tool_use_id: field(f.tool_use_id, step, "tool_use_id")?,
                content: match field(f.content, step, "content")? {
                    serde_json::Value::String(text) => text,
                    _ => return Err("a tool_done record's content must be text".to_owned()),
                },
                is_error: f.is_error,
                effect: f.effect,
            }),
            "agent_tool_started" => Ok(JournalRecord::AgentToolStarted {
                call: field(f.call, step, "call")?,
                name: field(f.name, step, "name")?,
                input: f.input.unwrap_or(serde_json::Value::Null),
            }),
            "agent_tool_done" => Ok(JournalRecord::AgentToolDone {
                call: field(f.call, step, "call")?,
                content: match field(f.content, step, "content")? {
                    serde_json::Value::String(text) => text,
                    _ => return Err("an agent_tool_done record's content must be text".to_owned()),
                },
                is_error: f.is_error,
                effect: f.effect,
            }),
            "agent_cost" => Ok(JournalRecord::AgentCost {
                session: field(f.session, step, "session")?,
                cost_usd: field(f.cost_usd, step, "cost_usd")?,
            }),
            other => Err(format!("unknown journal step {other:?}")),
        }
    }
}

/// Runs of a turn that began and never ended: the journal's starts less the failures the inbox
/// entry recorded (a run that succeeded or was stopped leaves no journal).
pub(crate) fn crashed_runs(records: &[JournalRecord], failures: u32) -> u32 {
    let started = records.iter().filter(|r| matches!(r, JournalRecord::Started)).count();
    u32::try_from(started).unwrap_or(u32::MAX).saturating_sub(failures)
}

/// Appends steps to a message's journal.
pub(crate) struct Journal<'a, H: Host> {
    host: &'a H,
    path: String,
}

impl<'a, H: Host> Journal<'a, H> {
    /// The journal of a message.
    pub(crate) fn new(host: &'a H, message_id: &str) -> Self {
        Journal { host, path: journal_path(message_id) }
    }

    /// Records a step. A failed write is logged, not fatal: the turn goes on, and only a crash
    /// right after it could repeat that step.
    pub(crate) async fn record(&self, record: &JournalRecord) {
        let line = match serde_json::to_string(record) {
            Ok(line) => line + "\n",
            Err(e) => return self.host.log(LogLevel::Error, &format!("journal record not serialisable: {e}")),
        };
        if let Err(e) = self.host.append_file(&self.path, &line).await {
            self.host.log(LogLevel::Warn, &format!("could not write the turn journal {}: {e}", self.path));
        }
    }

    /// Reads the steps recorded by an earlier run; a torn or unreadable line ends the replay
    /// there (what follows it cannot be trusted).
    pub(crate) async fn load(&self) -> Result<Vec<JournalRecord>, HostError> {
        let text = crate::bounded::read_within(self.host, &self.path, crate::bounded::MAX_LOG_BYTES)
            .await?
            .unwrap_or_default();
        let mut records = Vec::new();
        for line in text.split_inclusive('\n') {
            let Some(line) = line.strip_suffix('\n') else { break };
            match serde_json::from_str(line) {
                Ok(record) => records.push(record),
                Err(e) => {
                    self.host.log(LogLevel::Warn, &format!("turn journal {} has an unreadable line: {e}", self.path));
                    break;
                }
            }
        }
        Ok(records)
    }
}
