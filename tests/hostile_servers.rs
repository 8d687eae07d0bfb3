//! A model server that misbehaves (issue 32): it redirects the keyed request elsewhere, echoes
//! the key back, never starts its answer, or never ends it. The key stays home, the secret is
//! never shown or logged, the user hears what the call waits for and Stop works, and the core's
//! memory stays bounded.

mod common;

use common::*;
use serde_json::json;
use smarthole_agent::testing::{FakeHost, Reply};
use smarthole_agent::{Event, Host, McpServerConfig, Settings};

const KEY: &str = "sk-ant-api03-SECRET-0123456789";

fn keyed() -> Settings {
    Settings { api_key: KEY.into(), ..settings() }
}

/// Every text the user or a log could see: events (as JSON), logs, hub frames, files.
fn everything_shown(host: &FakeHost) -> String {
    let events: Vec<String> = host.events().iter().map(|e| serde_json::to_string(e).unwrap_or_default()).collect();
    let logs: Vec<String> = host.logs().into_iter().map(|(_, l)| l).collect();
    let frames: Vec<String> = host.hub_frames().iter().map(|f| f.to_string()).collect();
    let files: Vec<String> = host.paths().into_iter().filter_map(|p| host.file(&p)).collect();
    [events, logs, frames, files].concat().join("\n")
}

#[test]
fn a_redirect_is_not_followed_with_the_key_and_the_user_is_told_where_it_pointed() {
    for status in [301, 302, 307, 308] {
        let host = FakeHost::new();
        host.script([Reply::Redirect { status, location: "http://elsewhere.test:9999/v1/messages".into() }]);
        let p = processor_with(&host, keyed());
        let result = host.run(p.process(direct("r", "hello")));
        assert_eq!(host.requests().len(), 1, "{status}: the key went out once, to the configured server");
        assert!(host.requests()[0].url.starts_with("http://model.test/"), "{status}");
        assert_eq!(result.error_code.as_deref(), Some("redirected"), "{status}: {result:?}");
        let error = result.error.unwrap_or_default();
        assert!(error.contains("http://elsewhere.test:9999/v1/messages"), "{status}: {error}");
        assert!(error.contains("set the base URL"), "{status}: {error}");
        assert!(!host.events().iter().any(|e| matches!(e, Event::Retrying { .. })), "{status}: not retried");
    }
}

#[test]
fn the_connection_check_says_a_redirecting_server_is_not_reachable() {
    let host = FakeHost::new();
    host.script([Reply::Redirect { status: 307, location: "https://attacker.test/v1/models".into() }]);
    let p = processor_with(&host, keyed());
    let report = host.run(p.check_connection());
    assert!(!report.ok);
    assert_eq!(host.requests().len(), 1, "nothing more was sent");
    let reachable = &report.lines[0];
    assert_eq!((reachable.step.as_str(), reachable.ok), ("reachable", false));
    assert!(reachable.text.contains("https://attacker.test/v1/models"), "{}", reachable.text);
}

#[test]
fn a_key_the_server_echoes_back_is_hidden_everywhere_it_would_show() {
    let host = FakeHost::new();
    let echo = json!({"type": "error", "error": {"type": "invalid_request_error", "message": format!("bad key {KEY} for this model")}});
    host.script([Reply::ErrorBody { status: 400, body: echo.to_string() }]);
    let mut settings = keyed();
    settings.hub_enabled = true;
    settings.agent_api_token = "tok-0123456789abcdef0123456789abcdef".into();
    let mut mcp =
        McpServerConfig { name: "remote".into(), url: Some("https://mcp.test/mcp".into()), ..Default::default() };
    mcp.headers.insert("Authorization".into(), "Bearer mcp-secret-value".into());
    settings.mcp_servers.push(mcp);
    let p = processor_with(&host, settings);
    let result = host.run(p.process(from_hub("h", "hello")));
    let error = result.error.clone().unwrap_or_default();
    assert!(error.contains("bad key [hidden API key] for this model"), "{error}");
    let shown = everything_shown(&host);
    assert!(shown.contains("[hidden API key]"), "the server's words are shown, masked");
    assert!(!shown.contains(KEY), "the key is shown or logged somewhere:\n{shown}");
    // The agent's token and the MCP header value are masked the same way.
    host.script([Reply::ErrorBody {
        status: 400,
        body: json!({"type": "error", "error": {"type": "invalid_request_error", "message": "tok-0123456789abcdef0123456789abcdef and mcp-secret-value"}}).to_string(),
    }]);
    let result = host.run(p.process(direct("d", "again")));
    let error = result.error.unwrap_or_default();
    assert!(error.contains("[hidden agent API token] and [hidden header]"), "{error}");
    assert!(!everything_shown(&host).contains("mcp-secret-value"));
}

#[test]
fn a_server_that_never_starts_its_answer_is_given_up_on_with_a_reason_and_the_user_hears_why_it_waits() {
    let host = FakeHost::new();
    host.script([Reply::hang(), Reply::hang(), Reply::hang(), Reply::hang()]);
    let p = processor_with(&host, Settings { response_start_timeout_ms: 30_000, ..settings() });
    let started = host.now();
    let result = host.run(p.process(direct("w", "hello")));
    // Four tries (1 s, 2 s, 4 s apart), each given up after 30 s: not 300 s each.
    assert_eq!(host.now() - started, 4 * 30_000 + 7_000);
    assert_eq!(result.error_code.as_deref(), Some("no_answer"));
    let error = result.error.unwrap_or_default();
    assert!(error.contains("did not begin to answer in 30 s"), "{error}");
    let waiting: Vec<String> = host
        .events()
        .into_iter()
        .filter_map(|e| match e {
            Event::Waiting { text, .. } => Some(text),
            _ => None,
        })
        .collect();
    assert_eq!(waiting.len(), 4, "once per try");
    assert!(waiting[0].contains("model.test") && waiting[0].contains("gives up at 30 s"), "{}", waiting[0]);
}

#[test]
fn stop_ends_a_wait_for_an_answer_that_never_begins_after_the_user_was_told() {
    let host = FakeHost::new();
    host.script([Reply::hang()]);
    let p = processor(&host);
    let result = host.run(async {
        let stop = async {
            host.sleep(25_000).await;
            p.cancel_current_processing()
        };
        futures::join!(p.process(direct("s", "hello")), stop)
    });
    assert!(result.1, "Stop found the message");
    assert!(result.0.cancelled);
    assert_eq!(host.now() - smarthole_agent::testing::START_MS, 25_000);
    assert!(host.events().iter().any(|e| matches!(e, Event::Waiting { .. })), "told at 10 s");
    assert!(inbox(&host).is_empty());
}

#[test]
fn the_connection_check_gives_up_on_a_silent_server_within_seconds() {
    let host = FakeHost::new();
    host.script([Reply::hang()]);
    let p = processor_with(&host, keyed());
    let started = host.now();
    let report = host.run(p.check_connection());
    assert!(host.now() - started < 20_000, "took {} virtual ms", host.now() - started);
    assert!(!report.ok);
    assert!(report.lines[0].text.contains("connected, but no answer in 15 s"), "{}", report.lines[0].text);
}

#[test]
fn an_answer_that_never_ends_is_cut_at_its_size_limit_and_said_so() {
    let host = FakeHost::new();
    host.script([Reply::endless(&"a never ending answer ".repeat(40))]);
    let p = processor(&host);
    let result = host.run(p.process(direct("e", "talk")));
    assert!(result.success, "{result:?}");
    let notice = result.notice.unwrap_or_default();
    assert!(notice.contains("The answer passed 4 MB and was cut"), "{notice}");
    let answer = result.response.unwrap_or_default();
    assert!(answer.len() < 4 * 1024 * 1024 && answer.len() > 1024 * 1024, "{} bytes kept", answer.len());
    assert_eq!(recorded_count(&host, "e"), 1, "the cut answer is recorded once, like one cut at max_tokens");
    assert!(inbox(&host).is_empty());
}

#[test]
fn what_an_external_agent_reads_back_has_the_key_hidden() {
    let host = FakeHost::new();
    let echo =
        json!({"type": "error", "error": {"type": "invalid_request_error", "message": format!("bad key {KEY}")}});
    host.script([Reply::ErrorBody { status: 400, body: echo.to_string() }]);
    let p = processor_with(&host, Settings { api_key: KEY.into(), ..common::agent_api::api_settings() });
    let (_, answer) = common::agent_api::post(&host, &p, "/messages?wait=30", json!({"text": "hello"}));
    assert_eq!(answer["status"], "failed", "{answer}");
    let text = answer.to_string();
    assert!(text.contains("bad key [hidden API key]") && !text.contains(KEY), "{text}");
}
