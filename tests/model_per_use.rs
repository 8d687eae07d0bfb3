//! A model per use (issue 24): the chat's model answers the user; titles, summaries,
//! retrospection and scheduled runs go to the background model — on its own server when one is
//! set, with its own key, never the chat's — and a job that names a model runs with it.

mod common;

use common::*;
use serde_json::json;
use smarthole_agent::testing::{FakeHost, Reply};
use smarthole_agent::{ApiFormat, AuthStyle, Settings};

const MINUTE: u64 = 60_000;
const SUMMARY: &str = "You title and summarise conversations";

fn with_background(base_url: &str) -> Settings {
    Settings {
        background_model: "cheap-model".into(),
        background_base_url: base_url.into(),
        background_api_format: ApiFormat::Openai,
        background_auth_style: AuthStyle::Bearer,
        background_api_key: "local-key".into(),
        ..settings()
    }
}

#[test]
fn the_chat_uses_its_model_and_titles_go_to_the_background_server_without_the_chats_key() {
    let host = FakeHost::new();
    host.script([Reply::text("hello to you")]);
    host.script_matching(SUMMARY, Reply::text(&json!({"title": "Greeting", "summary": "A hello."}).to_string()));
    let p = processor_with(&host, with_background("http://local.test"));
    let result = host.run(p.process(direct("a", "hello")));
    assert!(result.success, "{result:?}");
    // The idle timeout ends the conversation; its title and summary are background work.
    host.run_for(31 * MINUTE);
    host.run(p.process(direct("b", "later")));
    host.run_for(MINUTE);

    let chat = &host.requests_matching("hello")[0];
    assert_eq!(chat.url, "http://model.test/v1/messages");
    assert_eq!(chat.body["model"], "test-model");
    assert_eq!(chat.header("x-api-key"), Some("test-key"));

    let summaries = host.requests_matching(SUMMARY);
    assert_eq!(summaries.len(), 1, "one summary call");
    let summary = &summaries[0];
    assert_eq!(summary.url, "http://local.test/v1/chat/completions", "the background server, in its format");
    assert_eq!(summary.body["model"], "cheap-model");
    assert_eq!(summary.header("authorization"), Some("Bearer local-key"));
    assert!(
        summary.headers.iter().all(|(_, v)| !v.contains("test-key")),
        "the chat's key never goes to another server: {:?}",
        summary.headers
    );
    let index = host.run(p.conversations()).unwrap();
    assert_eq!(index[0].title.as_deref(), Some("Greeting"), "the background answer was used");
}

#[test]
fn scheduled_runs_use_the_background_model_or_the_one_their_job_names() {
    let host = FakeHost::new();
    let settings = Settings { background_model: "cheap-model".into(), ..settings() };
    let p = processor_with(&host, settings);
    for (id, input) in [
        ("a", json!({"type": "immediate", "task": "tidy the inbox note"})),
        ("b", json!({"type": "immediate", "task": "write the weekly review", "model": "  big-job-model "})),
    ] {
        // The chat's two calls, then the run's (immediate: it starts right away).
        let create = Reply::tools("", &[("s1", "create_schedule", input)]);
        host.script([create, Reply::text("Scheduled."), Reply::text("Done.")]);
        let result = host.run(p.process(direct(id, "please schedule this")));
        assert!(result.success, "{result:?}");
        if id == "b" {
            let jobs = host.run(p.scheduled());
            let models: Vec<_> = jobs.iter().map(|c| c.schedule.as_ref().and_then(|s| s.model.clone())).collect();
            assert!(models.contains(&Some("big-job-model".to_owned())), "the job keeps its model, trimmed: {models:?}");
        }
        host.run_for(2 * MINUTE);
    }
    assert_eq!(host.script_left(), 0, "both runs ran");

    let run = |task: &str| {
        let requests = host.requests_matching("Scheduled run (");
        // The task is in the run's own message (the system prompt lists every schedule).
        let asks = |r: &smarthole_agent::testing::RecordedRequest| {
            r.body["messages"].as_array().and_then(|m| m.last()).is_some_and(|m| m.to_string().contains(task))
        };
        let found = requests.into_iter().find(asks).expect("a run request");
        (found.url, found.body["model"].as_str().unwrap_or_default().to_owned())
    };
    assert_eq!(run("tidy the inbox note"), ("http://model.test/v1/messages".into(), "cheap-model".into()));
    assert_eq!(run("write the weekly review"), ("http://model.test/v1/messages".into(), "big-job-model".into()));
    // The chat itself stays on the chat's model.
    let is_run = |r: &smarthole_agent::testing::RecordedRequest| {
        let last = r.body["messages"].as_array().and_then(|m| m.last()).map(|m| m.to_string()).unwrap_or_default();
        last.contains("This message was a scheduled background run")
    };
    let chat = host.requests().into_iter().filter(|r| !is_run(r)).collect::<Vec<_>>();
    assert_eq!(chat.len(), 4, "two calls per chat turn");
    assert!(chat.iter().all(|r| r.body["model"] == "test-model"));
    // What the runs cost is priced as the model that ran them.
    let usage: Vec<_> = host
        .events()
        .into_iter()
        .filter_map(|e| match e {
            smarthole_agent::Event::Response { result, .. } if result.message_id.starts_with("worker-") => {
                result.usage.map(|u| u.model)
            }
            _ => None,
        })
        .collect();
    assert_eq!(usage.len(), 2, "{usage:?}");
    assert!(usage.contains(&"cheap-model".to_owned()) && usage.contains(&"big-job-model".to_owned()), "{usage:?}");
}
