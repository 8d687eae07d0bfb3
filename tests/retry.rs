//! Retries in virtual time: exactly 1 s, 2 s, 4 s; `retry-after` obeyed; only the failed model
//! call is repeated; errors mapped to the seed's codes and messages.

mod common;

use common::*;
use serde_json::json;
use smarthole_agent::testing::{BodyEnd, FakeHost, Reply};
use smarthole_agent::Event;
use smarthole_agent::Settings;

#[test]
fn backoff_is_exactly_one_two_four_seconds_then_success() {
    let host = FakeHost::new();
    host.script([
        Reply::error(429, "rate_limit_error"),
        Reply::error(500, "api_error"),
        Reply::error(529, "overloaded_error"),
        Reply::text("made it"),
    ]);
    let p = processor(&host);
    let result = host.run(p.process(direct("r", "hi")));
    assert_eq!(result.response.as_deref(), Some("made it"));
    assert_eq!(request_offsets(&host), [0, 1_000, 3_000, 7_000]);
    let retries: Vec<(u32, u64, String)> = host
        .events()
        .into_iter()
        .filter_map(|e| match e {
            Event::Retrying { attempt, delay_ms, error_code, .. } => Some((attempt, delay_ms, error_code)),
            _ => None,
        })
        .collect();
    let seconds: Vec<u64> = host
        .events()
        .into_iter()
        .filter_map(|e| match e {
            Event::Retrying { delay_seconds, .. } => Some(delay_seconds),
            _ => None,
        })
        .collect();
    assert_eq!(seconds, [1, 2, 4], "the seconds the views print");
    assert_eq!(
        retries,
        [(2, 1_000, "rate_limit".into()), (3, 2_000, "server_error".into()), (4, 4_000, "overloaded".into())]
    );
    assert_eq!(recorded_count(&host, "r"), 1);
}

#[test]
fn after_four_attempts_the_user_gets_the_seed_message_and_the_message_stays_in_the_inbox() {
    let host = FakeHost::new();
    host.script((0..4).map(|_| Reply::error(429, "rate_limit_error")));
    let p = processor(&host);
    let result = host.run(p.process(from_hub("r", "hi")));
    assert!(!result.success);
    assert_eq!(result.error_code.as_deref(), Some("rate_limit"));
    assert_eq!(result.error.as_deref(), Some("Too many requests. Please try again in a moment."));
    assert_eq!(host.requests().len(), 4);
    // The message waits to be tried again: the hub is told so, not to try again (issue 32).
    let notes = host.hub_responses("notification");
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0]["payload"]["payload"]["priority"], "normal");
    assert_eq!(notes[0]["payload"]["payload"]["body"], "Waiting to try again in 1 min (attempt 2 of 5).");
    let entry: serde_json::Value = serde_json::from_str(&host.file("inbox/r.json").unwrap()).unwrap();
    assert_eq!(entry["attempts"], 1);
    assert_eq!(entry["lastErrorCode"], "rate_limit");
    assert!(history(&host).is_empty());
}

#[test]
fn retry_after_is_obeyed_when_longer_and_a_huge_one_fails_fast() {
    let host = FakeHost::new();
    host.script([Reply::error_with(429, "rate_limit_error", &[("retry-after", "3")]), Reply::text("ok")]);
    let p = processor(&host);
    host.run(p.process(direct("a", "hi")));
    assert_eq!(request_offsets(&host), [0, 3_000]);

    let host = FakeHost::new();
    host.script([Reply::error_with(429, "rate_limit_error", &[("retry-after-ms", "1500")]), Reply::text("ok")]);
    let p = processor(&host);
    host.run(p.process(direct("b", "hi")));
    assert_eq!(request_offsets(&host), [0, 1_500]);

    let host = FakeHost::new();
    host.script([Reply::error_with(429, "rate_limit_error", &[("retry-after", "3600")])]);
    let p = processor(&host);
    let result = host.run(p.process(direct("c", "hi")));
    assert_eq!(result.error_code.as_deref(), Some("rate_limit"));
    assert_eq!(host.requests().len(), 1);
}

#[test]
fn non_retryable_errors_fail_at_once_with_their_messages() {
    let cases = [
        (401, "authentication_error", "auth_error", "API key is missing or invalid"),
        (
            400,
            "invalid_request_error",
            "invalid_request",
            "Unable to process request. The message may be too long. The server said: scripted 400",
        ),
        (
            404,
            "not_found_error",
            "not_found",
            "The model \"test-model\" was not found. Check the model name in settings.",
        ),
        (403, "permission_error", "permission_error", "The API key is not allowed to use this model or feature."),
    ];
    for (status, ty, code, message) in cases {
        let host = FakeHost::new();
        host.script([Reply::error(status, ty)]);
        let p = processor(&host);
        let result = host.run(p.process(direct("x", "hi")));
        assert_eq!((result.error_code.as_deref(), result.error.as_deref()), (Some(code), Some(message)), "{status}");
        assert_eq!(host.requests().len(), 1, "{status} is not retried");
        assert!(result.retryable, "{status}: the user may still try again (after fixing the settings)");
    }
}

#[test]
fn should_retry_header_overrides_the_status() {
    let host = FakeHost::new();
    host.script([Reply::error_with(500, "api_error", &[("x-should-retry", "false")])]);
    let p = processor(&host);
    host.run(p.process(direct("x", "hi")));
    assert_eq!(host.requests().len(), 1);
}

#[test]
fn network_failures_resets_and_malformed_streams_are_retried() {
    let host = FakeHost::new();
    host.script([
        Reply::NetworkError,
        Reply::ResetAfter { text: "partial answer".into(), deltas: 2 },
        Reply::Raw {
            status: 200,
            chunks: vec![
                "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\n".into(),
                "event: content_block_delta\ndata: {\"type\":\"content_block_delta\", \"index\":0, \"delta\": {\n\n"
                    .into(),
            ],
            end: BodyEnd::Close,
        },
        Reply::text("finally"),
    ]);
    let p = processor(&host);
    let result = host.run(p.process(direct("n", "hi")));
    assert_eq!(result.response.as_deref(), Some("finally"));
    let codes: Vec<String> = host
        .events()
        .into_iter()
        .filter_map(|e| match e {
            Event::Retrying { error_code, .. } => Some(error_code),
            _ => None,
        })
        .collect();
    assert_eq!(codes, ["network_error", "network_error", "invalid_response"]);
    // The reset stream's partial text reached the UI, then the retry event that voids it.
    let sequence: Vec<String> = host
        .events()
        .into_iter()
        .filter_map(|e| match e {
            Event::TextDelta { text, .. } => Some(text),
            Event::Retrying { error_code, .. } => Some(format!("<retry {error_code}>")),
            _ => None,
        })
        .collect();
    assert_eq!(
        sequence,
        ["<retry network_error>", "parti", "al an", "<retry network_error>", "<retry invalid_response>", "final", "ly"]
    );
}

#[test]
fn an_error_event_inside_a_stream_is_retried_by_its_type() {
    let host = FakeHost::new();
    host.script([
        Reply::Raw {
            status: 200,
            chunks: vec![
                "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\n".into(),
                "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n".into(),
            ],
            end: BodyEnd::Close,
        },
        Reply::text("ok"),
    ]);
    let p = processor(&host);
    assert!(host.run(p.process(direct("e", "hi"))).success);
    assert!(host
        .events()
        .iter()
        .any(|e| matches!(e, Event::Retrying { error_code, .. } if error_code == "overloaded")));
}

#[test]
fn a_silent_stream_times_out_as_a_network_error() {
    let host = FakeHost::new();
    host.script([
        Reply::Raw {
            status: 200,
            chunks: vec!["event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\n".into()],
            end: BodyEnd::Hang,
        },
        Reply::text("ok"),
    ]);
    let p = processor_with(&host, Settings { stream_idle_timeout_ms: 20_000, ..settings() });
    let result = host.run(p.process(direct("s", "hi")));
    assert!(result.success);
    assert_eq!(request_offsets(&host), [0, 21_000]);
}

#[test]
fn a_retry_after_a_tool_ran_repeats_only_the_model_call() {
    let host = FakeHost::new();
    host.script([
        Reply::tools("Working on it.", &[("t1", "send_message", json!({"message": "step one done"}))]),
        Reply::error(500, "api_error"),
        Reply::ResetAfter { text: "cut".into(), deltas: 1 },
        Reply::text("All done."),
    ]);
    let p = processor(&host);
    let result = host.run(p.process(from_hub("t", "do the thing")));
    assert!(result.success);
    assert_eq!(result.tools_used, Some(vec!["send_message".to_owned()]));
    assert_eq!(agent_messages(&host), [("step one done".to_owned(), false)], "the tool ran exactly once");
    // Each retried request carries the one tool result; none asks for the tool again.
    let requests = host.requests();
    assert_eq!(requests.len(), 4);
    for req in &requests[1..] {
        let messages = req.body["messages"].as_array().unwrap();
        assert_eq!(messages.len(), 3);
        assert_eq!(messages[2]["content"][0]["tool_use_id"], "t1");
    }
    assert_eq!(result.response.as_deref(), Some("Working on it.\n\nAll done."));
    // One hub notification for the agent message, one for the outcome.
    assert_eq!(host.hub_responses("notification").len(), 2);
}

/// Issue 16: a model down for two minutes. Every request in those two minutes fails (529).
fn model_down_until(host: &FakeHost, until: u64) {
    while host.now() < until {
        if host.script_left() == 0 {
            host.script([Reply::error(529, "overloaded_error")]);
        }
        host.run_for(250);
    }
}

#[test]
fn a_model_down_for_two_minutes_answers_the_hub_message_once_it_is_back_without_a_restart() {
    let host = FakeHost::new();
    let p = processor(&host);
    let start = host.now();
    host.script((0..4).map(|_| Reply::error(529, "overloaded_error")));
    let result = host.run(p.process(from_hub("down-1", "add milk to my list")));
    assert!(!result.success, "the first attempt ran out of retries");
    assert_eq!(inbox(&host).iter().filter(|f| f.ends_with(".json")).count(), 1, "it waits in the inbox");
    assert!(host
        .events()
        .iter()
        .any(|e| matches!(e, Event::Notice { text, .. } if text.starts_with("Waiting to try again in 1 min (attempt 2 of 5)"))));
    model_down_until(&host, start + 120_000);
    let failed_requests = host.requests().len();
    assert!(failed_requests >= 8, "the model was asked again while down: {failed_requests}");
    assert_eq!(history(&host).len(), 0);
    // Back.
    host.script([Reply::text("Added milk.")]);
    for _ in 0..(20 * 60) {
        if !history(&host).is_empty() && inbox(&host).is_empty() {
            break;
        }
        host.run_for(1_000);
    }
    assert_eq!(recorded_count(&host, "down-1"), 1, "recorded once");
    assert!(inbox(&host).is_empty());
    assert!(host.now() - start < 10 * 60_000, "answered within minutes: {} s", (host.now() - start) / 1000);
    let notes = host.hub_responses("notification");
    assert!(notes.iter().any(|n| n["payload"]["payload"]["body"] == "Added milk."), "{notes:?}");
    assert_eq!(host.hub_responses("ack").len(), 1, "acked once, on arrival");
    assert!(host
        .events()
        .iter()
        .any(|e| matches!(e, Event::Response { result, .. } if result.success && result.message_id == "down-1")));
}

#[test]
fn a_model_that_stays_down_sets_the_message_aside_after_five_attempts_and_tells_the_user() {
    let host = FakeHost::new();
    let p = processor(&host);
    let start = host.now();
    host.script((0..4).map(|_| Reply::error(529, "overloaded_error")));
    let result = host.run(p.process(direct("down-2", "summarise my week")));
    assert!(!result.success);
    model_down_until(&host, start + 40 * 60_000);
    assert!(inbox(&host).is_empty());
    assert_eq!(host.paths_under("failed").len(), 1, "set aside in failed/");
    let waits: Vec<String> = host
        .events()
        .into_iter()
        .filter_map(|e| match e {
            Event::Notice { text, .. } if text.starts_with("Waiting to try again") => Some(text),
            _ => None,
        })
        .collect();
    assert_eq!(waits.len(), 4, "{waits:?}");
    for (text, (min, attempt)) in waits.iter().zip([(1, 2), (2, 3), (4, 4), (8, 5)]) {
        assert!(text.starts_with(&format!("Waiting to try again in {min} min (attempt {attempt} of 5)")), "{text}");
    }
    assert!(host.events().iter().any(|e| matches!(e, Event::Notice { text, .. } if text.contains("failed 5 times"))));
}
