//! The schedules' tests: planning, claiming, a run's end, pausing and resuming, the timeline.

use serde_json::Value;

use super::plan::{plan, ScheduleRequest, StatePatch};
use super::runs::{claim, finish, next_run_ms, resume, RunEnd, RETRY_MS};
use super::timeline::Timeline;
use crate::conversation::{ConversationState, ScheduleType};
use crate::host_types::Millis;

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
    assert!(
        err(ScheduleRequest { run_at: Some("2025-12-31T00:00:00Z".into()), ..once.clone() }).contains("is in the past")
    );
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
