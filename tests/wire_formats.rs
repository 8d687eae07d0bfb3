//! The OpenAI Chat Completions format (issue 24): the same scripted conversation — a plain
//! answer, a tool call and its result, a question after it — through either wire format, streamed
//! or not, gives the same recorded history; errors are retried by the same rules (retry-after
//! included); Stop ends a streamed call; the key goes as the auth style says.

mod common;

use common::*;
use serde_json::{json, Value};
use smarthole_agent::testing::{FakeHost, Reply};
use smarthole_agent::{ApiFormat, AuthStyle, HistoryLine, Host, Settings};

/// The conversation, scripted the same for both formats.
fn script(host: &FakeHost) {
    host.put_note("Shopping.md", "- milk\n");
    host.script([
        Reply::text("Hello! How can I help?"),
        Reply::tools("Let me read it.", &[("t1", "read_file", json!({"path": "Shopping.md"}))]),
        Reply::text("Your list has milk."),
        Reply::text("Added eggs? Not yet — say the word."),
    ]);
}

fn run(settings: Settings) -> (FakeHost, Vec<HistoryLine>) {
    let host = FakeHost::new();
    script(&host);
    let p = processor_with(&host, settings);
    for (id, text) in [("w1", "hi"), ("w2", "what is on my shopping list?"), ("w3", "add eggs")] {
        let result = host.run(p.process(direct(id, text)));
        assert!(result.success, "{id}: {:?}", result.error);
    }
    let lines = history(&host);
    (host, lines)
}

fn openai(streaming: bool) -> Settings {
    Settings { api_format: ApiFormat::Openai, auth_style: AuthStyle::Bearer, streaming, ..settings() }
}

#[test]
fn the_same_conversation_through_either_format_records_the_same_history() {
    let (anthropic_host, anthropic) = run(settings());
    assert!(anthropic.len() >= 6, "three turns, each a message and an answer");
    assert!(format!("{anthropic:?}").contains("read_file"), "the tool call is in the history");
    for streaming in [true, false] {
        let (host, lines) = run(openai(streaming));
        assert_eq!(lines, anthropic, "streaming {streaming}: the same history");
        let requests = host.requests();
        assert_eq!(requests.len(), anthropic_host.requests().len());
        assert!(requests.iter().all(|r| r.url == "http://model.test/v1/chat/completions"));
        assert!(requests
            .iter()
            .all(|r| r.header("authorization") == Some("Bearer test-key") && r.header("x-api-key").is_none()));
        // The call after the tool: the tool's result as a `tool` message after the assistant's call.
        let after_tool = &requests[2].body;
        let messages = after_tool["messages"].as_array().unwrap();
        let call = messages.iter().position(|m| m["tool_calls"][0]["id"] == "t1").expect("the assistant's tool call");
        assert_eq!(messages[call + 1]["role"], "tool");
        assert_eq!(messages[call + 1]["tool_call_id"], "t1");
        assert!(messages[call + 1]["content"].as_str().unwrap().contains("- milk"));
        assert_eq!(messages[0]["role"], "system");
        assert!(after_tool["tools"].as_array().unwrap().iter().all(|t| t["type"] == "function"));
        assert_eq!(after_tool.get("stream").is_some(), streaming);
    }
}

#[test]
fn rate_limits_are_waited_out_as_the_server_says_in_either_format() {
    let host = FakeHost::new();
    host.script([Reply::error_with(429, "rate_limit_error", &[("retry-after", "7")]), Reply::text("after the wait")]);
    let p = processor_with(&host, openai(true));
    let result = host.run(p.process(direct("r1", "hello")));
    assert_eq!(result.response.as_deref(), Some("after the wait"));
    let at: Vec<u64> = host.requests().iter().map(|r| r.at_ms).collect();
    assert_eq!(at.len(), 2);
    assert_eq!(at[1] - at[0], 7_000, "the retry came when retry-after said");
}

#[test]
fn stop_ends_a_streamed_chat_completion_and_the_next_message_works() {
    let host = FakeHost::new();
    host.script([Reply::slow_text("a long answer that streams slowly", 100), Reply::text("next one fine")]);
    let p = processor_with(&host, openai(true));
    let (result, stopped) = host.run(async {
        let stop = async {
            host.sleep(350).await;
            p.cancel_current_processing()
        };
        futures::join!(p.process(direct("s1", "tell me a story")), stop)
    });
    assert!(stopped && result.cancelled);
    assert!(!streamed_text(&host, "s1").is_empty(), "some text had streamed");
    assert!(history(&host).is_empty());
    assert_eq!(host.run(p.process(direct("s2", "hello"))).response.as_deref(), Some("next one fine"));
}

#[test]
fn the_key_goes_as_the_auth_style_says_and_the_endpoint_follows_the_base_url() {
    for (format, style, base, url, header) in [
        (
            ApiFormat::Anthropic,
            AuthStyle::XApiKey,
            "http://host/",
            "http://host/v1/messages",
            Some(("x-api-key", "test-key")),
        ),
        (
            ApiFormat::Anthropic,
            AuthStyle::Bearer,
            "http://host/v1",
            "http://host/v1/messages",
            Some(("authorization", "Bearer test-key")),
        ),
        (ApiFormat::Anthropic, AuthStyle::None, "http://host", "http://host/v1/messages", None),
        (
            ApiFormat::Openai,
            AuthStyle::Bearer,
            "http://host:8080",
            "http://host:8080/v1/chat/completions",
            Some(("authorization", "Bearer test-key")),
        ),
        (
            ApiFormat::Openai,
            AuthStyle::None,
            "https://gw/v1beta/openai/",
            "https://gw/v1beta/openai/chat/completions",
            None,
        ),
    ] {
        let host = FakeHost::new();
        host.script([Reply::text("ok")]);
        let p = processor_with(
            &host,
            Settings { api_format: format, auth_style: style, base_url: base.into(), ..settings() },
        );
        assert!(host.run(p.process(direct("a", "hi"))).success);
        let request = &host.requests()[0];
        assert_eq!(request.url, url);
        let auth: Vec<(&str, &str)> =
            ["x-api-key", "authorization"].into_iter().filter_map(|h| request.header(h).map(|v| (h, v))).collect();
        assert_eq!(auth, header.into_iter().collect::<Vec<_>>(), "{format:?} {style:?}");
        assert_eq!(request.header("anthropic-version").is_some(), format == ApiFormat::Anthropic);
    }
}

#[test]
fn the_settings_read_and_refuse_unknown_formats() {
    let s = Settings::from_json(json!({"apiFormat": "openai", "authStyle": "bearer"})).unwrap();
    assert_eq!((s.api_format, s.auth_style), (ApiFormat::Openai, AuthStyle::Bearer));
    let defaults = Settings::from_json(Value::Object(Default::default())).unwrap();
    assert_eq!((defaults.api_format, defaults.auth_style), (ApiFormat::Anthropic, AuthStyle::XApiKey));
    let refused = |v: Value| Settings::from_json(v).unwrap_err().to_string();
    assert_eq!(refused(json!({"apiFormat": "gemini"})), "apiFormat must be one of anthropic, openai (got \"gemini\")");
    assert_eq!(
        refused(json!({"authStyle": "basic"})),
        "authStyle must be one of x-api-key, bearer, none (got \"basic\")"
    );
    assert_eq!(refused(json!({"authStyle": 3})), "authStyle must be one of x-api-key, bearer, none (got 3)");
}
