//! A schedule's runs as plain decisions: when it runs next, claiming a run (which moves
//! `next_run_at` on before the run starts, so a run that outlasts the worker's tick never runs
//! twice, and missed times run once), what a run's end does to it (cleared after a last run,
//! paused after repeated failures, a failed one-time run tried again), resuming it, and the
//! prompt-cache lifetime a run asks for.

use crate::conversation::{Schedule, ScheduleType};
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
