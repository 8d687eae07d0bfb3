//! Schedules from the model: any expression, zone, time and limits are planned or refused with
//! a reason, never a panic; a planned schedule's first run is now or later and before its end.
#![no_main]
use libfuzzer_sys::fuzz_target;
use smarthole_agent::ScheduleType;
use smarthole_agent::Host;
use smarthole_agent::testing::internals::{plan, ScheduleRequest};
use smarthole_agent::testing::FakeHost;
use smarthole_agent::testing::internals::parse_iso;

const NOW: u64 = 1_790_000_000_000;

fuzz_target!(|data: (u8, &str, &str, &str, Option<&str>, Option<u32>)| {
    let (kind, expression, zone, run_at, end_at, max_runs) = data;
    let host = FakeHost::new();
    let kind = [ScheduleType::Cron, ScheduleType::Scheduled, ScheduleType::Immediate][usize::from(kind % 3)];
    let request = ScheduleRequest {
        kind: Some(kind),
        expression: Some(expression.to_owned()),
        time_zone: Some(zone.to_owned()),
        run_at: Some(run_at.to_owned()),
        task: "fuzz".to_owned(),
        end_at: end_at.map(str::to_owned),
        max_runs,
        integrations: Vec::new(),
        model: None,
        agent: None,
    };
    let cron = |e: &str, z: &str, after: u64| host.cron_next(e, z, after);
    if let Ok(schedule) = plan(&request, NOW, "UTC", &cron) {
        let first = schedule.next_run_at.as_deref().and_then(parse_iso).expect("a planned schedule has its first run");
        assert!(first >= NOW);
        if let Some(end) = schedule.end_at.as_deref().and_then(parse_iso) {
            assert!(first < end);
        }
    }
});
