//! Schedules, as plain decisions: building one from what the agent asked (with a precise error
//! for anything wrong), claiming a run (which moves `next_run_at` on before the run starts, so a
//! run that outlasts the worker's tick never runs twice, and missed times run once), and what a
//! run's end does to it (cleared after a last run, paused after repeated failures).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::conversation::{ConversationState, Schedule, ScheduleType};
use crate::host_types::Millis;
use crate::time::{format_iso, parse_iso};

/// Failed runs in a row after which a schedule pauses.
pub(crate) const MAX_FAILURES: u32 = 3;
/// When a failed one-time run is tried again.
pub(crate) const RETRY_MS: Millis = 5 * 60_000;
/// How often the worker looks for due runs.
pub(crate) const TICK_MS: Millis = 30_000;

/// Finds the next time a cron expression fires after a moment (the host's croner).
pub(crate) type CronClock<'a> = &'a dyn Fn(&str, &str, Millis) -> Result<Option<Millis>, String>;

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

/// The prompt-cache lifetime a message's requests ask for. A scheduled run whose next run is due
/// 5 to 55 minutes later asks for one hour: a five-minute entry would be gone by then, and the
/// next run reads its whole conversation (tools, system prompt, every earlier run) at a tenth of
/// the price instead of writing it again at 1.25x; the hour's write costs 2x, once, on what is new.
/// Runs further apart than that (an hourly or daily cron) would pay the dearer write for
/// nothing, and everything else — chat turns, closer runs — keeps the five minutes each request
/// renews.
pub(crate) fn cache_ttl(
    message: &crate::message::RoutedMessage,
    schedule: Option<&Schedule>,
    now: Millis,
) -> crate::llm::request::CacheTtl {
    use crate::llm::request::CacheTtl;
    const MINUTE: Millis = 60_000;
    if message.source != crate::message::MessageSource::Worker {
        return CacheTtl::FiveMinutes;
    }
    match schedule.and_then(next_run_ms).map(|next| next.saturating_sub(now)) {
        Some(gap) if gap > 5 * MINUTE && gap <= 55 * MINUTE => CacheTtl::OneHour,
        _ => CacheTtl::FiveMinutes,
    }
}

/// When the schedule runs next, in milliseconds (none when paused or not due ever again).
pub(crate) fn next_run_ms(schedule: &Schedule) -> Option<Millis> {
    if schedule.paused {
        return None;
    }
    schedule.next_run_at.as_deref().and_then(parse_iso)
}

/// Claims a due run at `now`: counts it and moves `next_run_at` to the run after it — for a
/// cron, the first time after *now* (times missed while the app was closed run once, not once
/// each), none after a one-time run, the end or the last allowed run.
pub(crate) fn claim(schedule: &mut Schedule, now: Millis, cron: CronClock<'_>) -> Result<(), String> {
    schedule.runs += 1;
    schedule.last_run_at = Some(format_iso(now));
    let limit_reached = schedule.max_runs.is_some_and(|max| schedule.runs >= max);
    let following = match (schedule.kind, schedule.expression.as_deref()) {
        (ScheduleType::Cron, Some(expression)) if !limit_reached => {
            let zone = schedule.time_zone.as_deref().unwrap_or("UTC");
            cron(expression, zone, now)?
        }
        _ => None,
    };
    let end = schedule.end_at.as_deref().and_then(parse_iso);
    schedule.next_run_at = following.filter(|next| end.is_none_or(|end| *next < end)).map(format_iso);
    Ok(())
}

/// What a finished run means for its schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RunEnd {
    /// More runs follow.
    Continue,
    /// That was the last run: the schedule goes.
    Clear,
    /// Too many failures in a row: the schedule waits for the user.
    Paused,
}

/// Records how a run ended (`Err` with the failure, or `Ok`) and says what follows.
pub(crate) fn finish(schedule: &mut Schedule, result: Result<(), &str>, now: Millis) -> RunEnd {
    match result {
        Ok(()) => {
            schedule.failures = 0;
            schedule.last_error = None;
            if schedule.next_run_at.is_none() && !schedule.paused {
                RunEnd::Clear
            } else {
                RunEnd::Continue
            }
        }
        Err(error) => {
            schedule.failures += 1;
            schedule.last_error = Some(error.to_owned());
            if schedule.failures >= MAX_FAILURES {
                schedule.paused = true;
                schedule.next_run_at = None;
                return RunEnd::Paused;
            }
            if schedule.next_run_at.is_none() {
                // A one-time run (or the last one) that failed is tried again a little later.
                schedule.next_run_at = Some(format_iso(now + RETRY_MS));
            }
            RunEnd::Continue
        }
    }
}

/// Resumes a paused schedule: failures forgotten, the next run computed from now.
pub(crate) fn resume(schedule: &mut Schedule, now: Millis, cron: CronClock<'_>) -> Result<(), String> {
    schedule.paused = false;
    schedule.failures = 0;
    let next = match (schedule.kind, schedule.expression.as_deref()) {
        (ScheduleType::Cron, Some(expression)) => {
            cron(expression, schedule.time_zone.as_deref().unwrap_or("UTC"), now)?
                .ok_or("the expression never fires again")?
        }
        _ => schedule.run_at.as_deref().and_then(parse_iso).filter(|at| *at > now).unwrap_or(now),
    };
    schedule.next_run_at = Some(format_iso(next));
    Ok(())
}

/// Due runs, ordered by time: the worker takes from the front instead of scanning every
/// conversation.
#[derive(Debug, Default)]
pub(crate) struct Timeline {
    entries: Vec<(Millis, String)>,
}

impl Timeline {
    /// Puts a conversation at its next run (replacing where it was); `None` takes it out.
    pub(crate) fn set(&mut self, conversation: &str, next: Option<Millis>) {
        self.entries.retain(|(_, id)| id != conversation);
        if let Some(at) = next {
            let i = self.entries.partition_point(|(t, id)| (*t, id.as_str()) < (at, conversation));
            self.entries.insert(i, (at, conversation.to_owned()));
        }
    }

    /// The conversations due at `now`, earliest first.
    pub(crate) fn due(&self, now: Millis) -> Vec<String> {
        self.entries.iter().take_while(|(t, _)| *t <= now).map(|(_, id)| id.clone()).collect()
    }

    /// The earliest run.
    #[cfg(test)]
    pub(crate) fn first(&self) -> Option<(Millis, &str)> {
        self.entries.first().map(|(t, id)| (*t, id.as_str()))
    }

    /// Runs waiting.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: Millis = 1_767_261_600_000; // 2026-01-01T10:00:00Z

    /// Every hour on the hour, in UTC.
    fn hourly(_: &str, zone: &str, after: Millis) -> Result<Option<Millis>, String> {
        if zone != "UTC" {
            return Err(format!("unknown zone {zone}"));
        }
        Ok(Some((after / 3_600_000 + 1) * 3_600_000))
    }

    fn cron_request(expression: &str) -> ScheduleRequest {
        ScheduleRequest {
            kind: Some(ScheduleType::Cron),
            expression: Some(expression.into()),
            task: "summarise".into(),
            ..Default::default()
        }
    }

    #[test]
    fn plans_each_type_and_explains_what_is_wrong() {
        let s = plan(&cron_request("0 * * * *"), NOW, "UTC", &hourly).unwrap();
        assert_eq!(s.next_run_at.as_deref(), Some("2026-01-01T11:00:00.000Z"));
        assert_eq!(s.time_zone.as_deref(), Some("UTC"));
        let once = ScheduleRequest {
            kind: Some(ScheduleType::Scheduled),
            run_at: Some("2026-01-01T12:30:00+01:00".into()),
            task: "t".into(),
            ..Default::default()
        };
        assert_eq!(plan(&once, NOW, "UTC", &hourly).unwrap().next_run_at.as_deref(), Some("2026-01-01T11:30:00.000Z"));
        let now = ScheduleRequest { kind: Some(ScheduleType::Immediate), task: "t".into(), ..Default::default() };
        assert_eq!(plan(&now, NOW, "UTC", &hourly).unwrap().next_run_at.as_deref(), Some("2026-01-01T10:00:00.000Z"));

        let err = |r: ScheduleRequest| plan(&r, NOW, "UTC", &hourly).unwrap_err().to_string();
        assert!(err(cron_request("0 8 * *")).contains("has 4 fields"));
        assert!(err(cron_request("0 0 8 * * *")).contains("has 6 fields"));
        assert!(err(ScheduleRequest { time_zone: Some("Mars/Olympus".into()), ..cron_request("0 * * * *") })
            .contains("unknown zone"));
        assert!(err(ScheduleRequest { run_at: Some("2025-12-31T00:00:00Z".into()), ..once.clone() })
            .contains("is in the past"));
        assert!(err(ScheduleRequest { run_at: Some("tomorrow".into()), ..once.clone() }).contains("ISO 8601"));
        assert!(err(ScheduleRequest { task: " ".into(), ..once.clone() }).contains("task is empty"));
        assert!(err(ScheduleRequest { kind: None, ..once.clone() }).contains("type must be"));
        assert!(err(ScheduleRequest { max_runs: Some(0), ..once.clone() }).contains("max_runs"));
        assert!(err(ScheduleRequest { end_at: Some("2026-01-01T10:30:00Z".into()), ..cron_request("0 * * * *") })
            .contains("after end_at"));
    }

    #[test]
    fn a_claim_moves_the_next_run_past_now_so_missed_times_run_once() {
        let mut s = plan(&cron_request("0 * * * *"), NOW, "UTC", &hourly).unwrap();
        // The app was closed for five hours: one claim, and the next run is after now.
        let late = NOW + 5 * 3_600_000 + 60_000;
        claim(&mut s, late, &hourly).unwrap();
        assert_eq!(s.runs, 1);
        assert_eq!(s.next_run_at.as_deref(), Some("2026-01-01T16:00:00.000Z"));
        assert_eq!(finish(&mut s, Ok(()), late), RunEnd::Continue);
    }

    #[test]
    fn one_time_runs_clear_and_limits_end_a_cron() {
        let mut once = plan(
            &ScheduleRequest { kind: Some(ScheduleType::Immediate), task: "t".into(), ..Default::default() },
            NOW,
            "UTC",
            &hourly,
        )
        .unwrap();
        claim(&mut once, NOW, &hourly).unwrap();
        assert_eq!(once.next_run_at, None);
        assert_eq!(finish(&mut once, Ok(()), NOW), RunEnd::Clear);

        let mut limited =
            plan(&ScheduleRequest { max_runs: Some(2), ..cron_request("0 * * * *") }, NOW, "UTC", &hourly).unwrap();
        claim(&mut limited, NOW + 3_600_000, &hourly).unwrap();
        assert!(limited.next_run_at.is_some());
        claim(&mut limited, NOW + 7_200_000, &hourly).unwrap();
        assert_eq!(limited.next_run_at, None, "the second of two runs is the last");
        assert_eq!(finish(&mut limited, Ok(()), NOW), RunEnd::Clear);

        let mut ending = plan(
            &ScheduleRequest { end_at: Some("2026-01-01T12:30:00Z".into()), ..cron_request("0 * * * *") },
            NOW,
            "UTC",
            &hourly,
        )
        .unwrap();
        claim(&mut ending, NOW + 3_600_000, &hourly).unwrap();
        assert_eq!(ending.next_run_at.as_deref(), Some("2026-01-01T12:00:00.000Z"));
        claim(&mut ending, NOW + 7_200_000, &hourly).unwrap();
        assert_eq!(ending.next_run_at, None, "13:00 is after the end");
    }

    #[test]
    fn three_failures_in_a_row_pause_and_resume_starts_afresh() {
        let mut s = plan(&cron_request("0 * * * *"), NOW, "UTC", &hourly).unwrap();
        for (i, expected) in [RunEnd::Continue, RunEnd::Continue, RunEnd::Paused].into_iter().enumerate() {
            claim(&mut s, NOW + i as u64 * 3_600_000, &hourly).unwrap();
            assert_eq!(finish(&mut s, Err("rate limited"), NOW), expected);
        }
        assert!(s.paused);
        assert_eq!((s.failures, s.last_error.as_deref(), next_run_ms(&s)), (3, Some("rate limited"), None));
        resume(&mut s, NOW + 10 * 3_600_000 + 5, &hourly).unwrap();
        assert_eq!((s.paused, s.failures), (false, 0));
        assert_eq!(s.next_run_at.as_deref(), Some("2026-01-01T21:00:00.000Z"));
        // A success between failures resets the count.
        claim(&mut s, NOW, &hourly).unwrap();
        finish(&mut s, Err("x"), NOW);
        finish(&mut s, Ok(()), NOW);
        assert_eq!(s.failures, 0);
    }

    #[test]
    fn a_failed_one_time_run_is_retried_later() {
        let mut s = plan(
            &ScheduleRequest { kind: Some(ScheduleType::Immediate), task: "t".into(), ..Default::default() },
            NOW,
            "UTC",
            &hourly,
        )
        .unwrap();
        claim(&mut s, NOW, &hourly).unwrap();
        assert_eq!(finish(&mut s, Err("offline"), NOW), RunEnd::Continue);
        assert_eq!(next_run_ms(&s), Some(NOW + RETRY_MS));
    }

    #[test]
    fn the_timeline_is_ordered_by_time() {
        let mut t = Timeline::default();
        t.set("b", Some(20));
        t.set("a", Some(30));
        t.set("c", Some(10));
        t.set("a", Some(5));
        assert_eq!(t.due(20), ["a", "c", "b"]);
        t.set("c", None);
        assert_eq!(t.due(100), ["a", "b"]);
        assert_eq!(t.first(), Some((5, "a")));
        assert_eq!(t.len(), 2);
    }

    #[test]
    fn state_patches_merge() {
        let mut state = ConversationState::default();
        state.data.insert("kept".into(), Value::from(1));
        let patch: StatePatch = serde_json::from_str(r#"{"step":"fetch","data":{"count":2}}"#).unwrap();
        patch.apply(&mut state);
        assert_eq!(state.step.as_deref(), Some("fetch"));
        assert_eq!(state.data.len(), 2);
        assert!(StatePatch::default().is_empty());
    }
}
