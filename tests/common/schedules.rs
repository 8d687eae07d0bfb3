//! Helpers of the schedule tests: a host at a given time and zone, a schedule created through the
//! tool, and the runs, due times and requests it led to.

use serde_json::{json, Value};
use smarthole_agent::testing::internals::{format_iso, parse_iso};
use smarthole_agent::testing::{FakeHost, Reply};
use smarthole_agent::Conversation;
use smarthole_agent::Event;
use smarthole_agent::MessageProcessor;

use super::*;

pub const MINUTE: u64 = 60_000;
pub const HOUR: u64 = 60 * MINUTE;
pub const DAY: u64 = 24 * HOUR;

/// A host whose clock reads `iso`, in `zone`.
pub fn host_at(iso: &str, zone: &str) -> FakeHost {
    let host = FakeHost::new();
    host.set_time_zone(zone);
    let at = parse_iso(iso).unwrap();
    host.advance(at - host.now());
    host
}

/// The agent creates a schedule in a chat turn; returns what the model was told.
pub fn create(host: &FakeHost, p: &MessageProcessor<FakeHost>, id: &str, input: Value) -> (String, bool) {
    host.script([Reply::tools("", &[("s1", "create_schedule", input)]), Reply::text("Done.")]);
    let result = host.run(p.process(direct(id, "please schedule this")));
    assert!(result.success, "{result:?}");
    let requests = host.requests();
    let last = requests.last().unwrap();
    let block = last.body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .rfind(|b| b["type"] == "tool_result")
        .unwrap();
    (block["content"].as_str().unwrap().to_owned(), block["is_error"] == json!(true))
}

/// Scheduled runs so far: (message id, when it was due, whether it succeeded), in order.
pub fn runs(host: &FakeHost) -> Vec<(String, u64, bool)> {
    host.events()
        .into_iter()
        .filter_map(|e| match e {
            Event::Response { result, .. } if result.message_id.starts_with("worker-") => {
                let due = result.message_id.rsplit('-').next().unwrap().parse().unwrap();
                Some((result.message_id, due, result.success))
            }
            _ => None,
        })
        .collect()
}

pub fn due_times(host: &FakeHost) -> Vec<String> {
    runs(host).into_iter().map(|(_, due, _)| format_iso(due)).collect()
}

/// Model requests made for scheduled runs, with when they went out.
pub fn run_requests(host: &FakeHost) -> Vec<u64> {
    host.requests_matching("Scheduled run (").iter().map(|r| r.at_ms).collect()
}

pub fn scheduled_conversation(host: &FakeHost, p: &MessageProcessor<FakeHost>) -> Conversation {
    host.run(p.scheduled()).into_iter().next().expect("a scheduled conversation")
}
