//! `create_schedule`, `state_update` and `keep_question_open`: the agent gives a conversation
//! background work, keeps the work's state, and keeps a question open when the user asked
//! something else instead of answering. Their effects apply when the turn is recorded.

use serde_json::Value;

use super::args::Args;
use super::call::{tool_def, ToolContext, ToolEffect, ToolOutput};
use crate::acp::AgentKind;
use crate::conversation::ScheduleType;
use crate::host::Host;
use crate::llm::ToolDef;
use crate::mcp::McpState;
use crate::schedule::{plan, ScheduleRequest, StatePatch};
use crate::time::format_iso;

/// The tool names the model calls (and the registry matches).
pub(super) const CREATE_SCHEDULE: &str = "create_schedule";
/// See [`CREATE_SCHEDULE`].
pub(super) const STATE_UPDATE: &str = "state_update";
/// See [`CREATE_SCHEDULE`].
pub(super) const KEEP_QUESTION_OPEN: &str = "keep_question_open";

/// What `create_schedule` accepts.
const CREATE_SCHEDULE_SCHEMA: &str = r#"{"type":"object","properties":{"type":{"type":"string","enum":["cron","scheduled","immediate"],"description":"cron: repeatedly; scheduled: once at run_at; immediate: once, right away in the background."},"task":{"type":"string","description":"What each run must do, written as an instruction to yourself (the run starts with it)."},"expression":{"type":"string","description":"For cron: 5 fields, minute hour day-of-month month day-of-week, e.g. \"0 8 * * 1-5\" (08:00 on weekdays)."},"time_zone":{"type":"string","description":"IANA time zone for cron (default: the user's)."},"run_at":{"type":"string","description":"For scheduled: ISO 8601 time with offset, e.g. 2026-11-23T08:00:00+01:00."},"end_at":{"type":"string","description":"Optional: no run after this ISO 8601 time."},"max_runs":{"type":"integer","minimum":1,"description":"Optional: stop after this many runs."},"integrations":{"type":"array","items":{"type":"string"},"description":"Integrations (MCP servers) the runs need; each must be connected."},"model":{"type":"string","description":"Optional: the model the runs use, only when the user names one (default: the background model from the settings)."},"agent":{"type":"string","enum":["builtin","claude-code","codex","gemini","opencode","acp"],"description":"Optional: the agent the runs use, only when the user names one (default: builtin). Before choosing the user's own coding agent, tell the user that providers may count unattended runs on a subscription differently."},"state":{"type":"object","description":"Initial state: {\"context\": {...}, \"step\": \"...\", \"data\": {...}}."}},"required":["type","task"]}"#;

/// What `state_update` accepts.
const STATE_UPDATE_SCHEMA: &str = r#"{"type":"object","properties":{"step":{"type":"string","description":"Where the work is now."},"data":{"type":"object","description":"Results to keep (merged key by key)."},"context":{"type":"object","description":"What the task is about (merged key by key)."}}}"#;

pub(super) fn create_definition() -> ToolDef {
    tool_def(
        CREATE_SCHEDULE,
        "Give this conversation background work: a task that runs on a cron schedule, once at a time, or once right away. \
Each run happens without the user present; its result is shown to them. Creating a schedule replaces this conversation's \
previous one.",
        CREATE_SCHEDULE_SCHEMA,
    )
}

pub(super) fn state_definition() -> ToolDef {
    tool_def(
        STATE_UPDATE,
        "Update this conversation's state (step, data, context): what a background task has done so far, for the next run.",
        STATE_UPDATE_SCHEMA,
    )
}

pub(super) fn keep_definition() -> ToolDef {
    tool_def(
        KEEP_QUESTION_OPEN,
        "Use when the user's message does not answer your pending question (they asked something else): answer them, and call \
this so the question stays open.",
        r#"{"type":"object","properties":{}}"#,
    )
}

/// The state the schedule's `state` field gives (unknown keys refused).
fn initial_state(value: Option<&serde_json::Map<String, Value>>) -> Result<StatePatch, String> {
    let Some(map) = value else { return Ok(StatePatch::default()) };
    if let Some(bad) = map.keys().find(|k| !matches!(k.as_str(), "context" | "step" | "data")) {
        return Err(format!("state has an unknown field `{bad}`; use context, step and data"));
    }
    crate::lean::from_value(&Value::Object(map.clone())).map_err(|e| format!("state is not valid: {e}"))
}

pub(super) async fn create<H: Host>(ctx: &ToolContext<'_, H>, input: &Value) -> ToolOutput {
    let args = match Args::parse(CREATE_SCHEDULE, CREATE_SCHEDULE_SCHEMA, input) {
        Ok(args) => args,
        Err(e) => return e,
    };
    let invalid = |why: String| ToolOutput::error(format!("Invalid input for {CREATE_SCHEDULE}: {why}."));
    let kind = match args.str("type") {
        Some("cron") => ScheduleType::Cron,
        Some("scheduled") => ScheduleType::Scheduled,
        _ => ScheduleType::Immediate,
    };
    let integrations = args.strings("integrations");
    for name in &integrations {
        let server = ctx.services.integrations.iter().find(|s| s.name == *name);
        match server.map(|s| s.state) {
            Some(McpState::Connected) => {}
            Some(_) => return ToolOutput::error(super::integrations::not_connected(name)),
            None => {
                return ToolOutput::error(format!(
                    "There is no integration named {name:?}. Tell the user to add it in Settings → SmartHole Agent → Integrations \
(and connect it) before this task can be scheduled."
                ))
            }
        }
    }
    let state = match initial_state(args.object("state")) {
        Ok(state) => state,
        Err(why) => return invalid(why),
    };
    let request = ScheduleRequest {
        kind: Some(kind),
        expression: args.str("expression").map(str::to_owned),
        time_zone: args.str("time_zone").map(str::to_owned),
        run_at: args.str("run_at").map(str::to_owned),
        task: args.string("task"),
        end_at: args.str("end_at").map(str::to_owned),
        max_runs: args.number("max_runs").map(|n| u32::try_from(n).unwrap_or(u32::MAX)),
        integrations,
        model: args.str("model").map(str::to_owned),
        agent: args.str("agent").and_then(|name| AgentKind::ALL.into_iter().find(|k| k.name() == name)),
    };
    let now = ctx.host.now_ms();
    let cron = |e: &str, z: &str, after: u64| ctx.host.cron_next(e, z, after);
    let schedule = match plan(&request, now, &ctx.host.time_zone(), &cron) {
        Ok(schedule) => schedule,
        Err(why) => return invalid(why.to_string()),
    };
    let when = match kind {
        ScheduleType::Cron => format!(
            "on cron {:?} in {}",
            schedule.expression.as_deref().unwrap_or(""),
            schedule.time_zone.as_deref().unwrap_or("UTC")
        ),
        ScheduleType::Scheduled => "once".to_owned(),
        ScheduleType::Immediate => "once, in the background, within a minute".to_owned(),
    };
    let next = schedule.next_run_at.clone().unwrap_or_else(|| format_iso(now));
    ToolOutput {
        content: format!(
            "Scheduled {when}; first run at {next} (UTC). The conversation now has background work; tell the user what will \
happen and when."
        ),
        is_error: false,
        effect: ToolEffect::Schedule { schedule: Box::new(schedule), state },
    }
}

pub(super) fn state_update(input: &Value) -> ToolOutput {
    let args = match Args::parse(STATE_UPDATE, STATE_UPDATE_SCHEMA, input) {
        Ok(args) => args,
        Err(e) => return e,
    };
    let patch = StatePatch {
        step: args.str("step").map(str::to_owned),
        context: args.object("context").cloned().unwrap_or_default(),
        data: args.object("data").cloned().unwrap_or_default(),
    };
    if patch.is_empty() {
        return ToolOutput::error(format!("Invalid input for {STATE_UPDATE}: give step, data or context."));
    }
    ToolOutput { content: "State updated.".to_owned(), is_error: false, effect: ToolEffect::StateUpdate { patch } }
}

pub(super) fn keep_question() -> ToolOutput {
    ToolOutput {
        content: "The question stays open; the user can still answer it.".to_owned(),
        is_error: false,
        effect: ToolEffect::KeepQuestion,
    }
}
