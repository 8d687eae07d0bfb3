//! A schedule planned from what the agent asked (`create_schedule`), with an error the model
//! reads to fix its call for anything wrong; and the state changes a turn asks for
//! (`state_update`, or a schedule's initial state).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::conversation::{ConversationState, Schedule, ScheduleType};
use crate::host_types::Millis;
use crate::time::{format_iso, parse_iso};

use super::runs::CronClock;

/// What `create_schedule` asked for.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ScheduleRequest {
    pub kind: Option<ScheduleType>,
    pub expression: Option<String>,
    pub time_zone: Option<String>,
    pub run_at: Option<String>,
    pub task: String,
    pub end_at: Option<String>,
    pub max_runs: Option<u32>,
    pub integrations: Vec<String>,
    /// The model the runs use, if the job names one.
    pub model: Option<String>,
    /// The agent the runs use, if the job names one.
    pub agent: Option<crate::acp::AgentKind>,
}

/// Changes to a conversation's state (`state_update`, or a schedule's initial state): `step`
/// replaced, `context` and `data` merged key by key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct StatePatch {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<String>,
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub context: Map<String, Value>,
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub data: Map<String, Value>,
}

impl StatePatch {
    /// Applies the patch.
    pub fn apply(&self, state: &mut ConversationState) {
        if let Some(step) = &self.step {
            state.step = Some(step.clone());
        }
        state.context.extend(self.context.iter().map(|(k, v)| (k.clone(), v.clone())));
        state.data.extend(self.data.iter().map(|(k, v)| (k.clone(), v.clone())));
    }

    /// Adds a later patch to this one.
    pub fn merge(&mut self, later: &StatePatch) {
        if later.step.is_some() {
            self.step = later.step.clone();
        }
        self.context.extend(later.context.iter().map(|(k, v)| (k.clone(), v.clone())));
        self.data.extend(later.data.iter().map(|(k, v)| (k.clone(), v.clone())));
    }

    /// Whether it changes nothing.
    pub fn is_empty(&self) -> bool {
        self.step.is_none() && self.context.is_empty() && self.data.is_empty()
    }
}

/// Why a schedule request cannot be planned; the text is what the model reads to fix its call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    #[error("type must be cron, scheduled or immediate")]
    MissingType,
    #[error("task is empty: say what each run should do")]
    EmptyTask,
    #[error("max_runs must be at least 1")]
    ZeroRuns,
    #[error("{field} {text:?} is not a time: use ISO 8601 with a time zone, like 2026-11-23T08:00:00+01:00")]
    NotATime { field: &'static str, text: String },
    #[error("{field} {text} is in the past (it is now {now})")]
    InThePast { field: &'static str, text: String, now: String },
    #[error("a cron schedule needs expression, like \"0 8 * * 1-5\"")]
    MissingExpression,
    #[error("expression {expression:?} has {fields} fields; use the 5 fields minute hour day-of-month month day-of-week (runs are at most once a minute)")]
    FieldCount { expression: String, fields: usize },
    #[error("expression {expression:?} has an empty entry in its {field} list (a comma with nothing on one side)")]
    EmptyListEntry { expression: String, field: &'static str },
    #[error("expression {expression:?} in time zone {zone:?} is not valid: {reason}")]
    InvalidCron { expression: String, zone: String, reason: String },
    #[error("expression {0:?} never fires")]
    NeverFires(String),
    #[error("a scheduled run needs run_at")]
    MissingRunAt,
    #[error("the first run ({0}) would be after end_at")]
    FirstRunAfterEnd(String),
}

/// A time in the future, or why it is not one.
fn future_time(field: &'static str, text: &str, now: Millis) -> Result<Millis, PlanError> {
    let at = parse_iso(text).ok_or_else(|| PlanError::NotATime { field, text: text.to_owned() })?;
    if at <= now {
        return Err(PlanError::InThePast { field, text: text.to_owned(), now: format_iso(now) });
    }
    Ok(at)
}

/// The schedule the request describes, its first run computed, or what is wrong with it.
pub fn plan(
    request: &ScheduleRequest,
    now: Millis,
    default_zone: &str,
    cron: CronClock<'_>,
) -> Result<Schedule, PlanError> {
    let kind = request.kind.ok_or(PlanError::MissingType)?;
    if request.task.trim().is_empty() {
        return Err(PlanError::EmptyTask);
    }
    if request.max_runs == Some(0) {
        return Err(PlanError::ZeroRuns);
    }
    let mut schedule = Schedule::new(kind, request.task.trim());
    schedule.integrations = request.integrations.clone();
    schedule.model = request.model.as_deref().map(str::trim).filter(|m| !m.is_empty()).map(str::to_owned);
    schedule.agent = request.agent;
    schedule.max_runs = request.max_runs;
    let end = match &request.end_at {
        Some(text) => {
            let end = future_time("end_at", text, now)?;
            schedule.end_at = Some(format_iso(end));
            Some(end)
        }
        None => None,
    };
    let first = match kind {
        ScheduleType::Cron => {
            let expression = request.expression.as_deref().map(str::trim).unwrap_or("");
            if expression.is_empty() {
                return Err(PlanError::MissingExpression);
            }
            let fields = expression.split_whitespace().count();
            if fields != 5 {
                return Err(PlanError::FieldCount { expression: expression.to_owned(), fields });
            }
            // Refused here, whatever the host's cron library makes of it: croner in the plugin
            // refuses an empty entry, the Rust croner of the tests takes it as a field that never
            // matches and searches for seconds before giving up.
            let names = ["minute", "hour", "day-of-month", "month", "day-of-week"];
            if let Some((_, field)) =
                expression.split_whitespace().zip(names).find(|(f, _)| f.split(',').any(str::is_empty))
            {
                return Err(PlanError::EmptyListEntry { expression: expression.to_owned(), field });
            }
            let zone = request.time_zone.as_deref().map(str::trim).filter(|z| !z.is_empty()).unwrap_or(default_zone);
            let next = cron(expression, zone, now)
                .map_err(|reason| PlanError::InvalidCron {
                    expression: expression.to_owned(),
                    zone: zone.to_owned(),
                    reason,
                })?
                .ok_or_else(|| PlanError::NeverFires(expression.to_owned()))?;
            schedule.expression = Some(expression.to_owned());
            schedule.time_zone = Some(zone.to_owned());
            next
        }
        ScheduleType::Scheduled => {
            let text = request.run_at.as_deref().ok_or(PlanError::MissingRunAt)?;
            let at = future_time("run_at", text, now)?;
            schedule.run_at = Some(format_iso(at));
            at
        }
        ScheduleType::Immediate => now,
    };
    if end.is_some_and(|end| first >= end) {
        return Err(PlanError::FirstRunAfterEnd(format_iso(first)));
    }
    schedule.next_run_at = Some(format_iso(first));
    Ok(schedule)
}
