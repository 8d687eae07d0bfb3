//! The connection check covers the embedding server (issue 35): with one set, two short texts
//! embedded and reported (reachable, dimension, speed); a wrong model or key said with the
//! setting to change; nothing asked of it when search by meaning is off.

mod common;

use common::*;
use serde_json::json;
use smarthole_agent::testing::{BodyEnd, FakeHost, Reply};
use smarthole_agent::{ConnectionCheck, Settings};

/// The texts the check embeds contain this.
const PROBE: &str = "SmartHole connection check";

fn with_embeddings() -> Settings {
    Settings {
        embeddings_base_url: "http://embed.test/v1".into(),
        embeddings_model: "all-minilm-l6-v2".into(),
        embeddings_api_key: "embed-key-123456".into(),
        ..settings()
    }
}

/// The check, the chat's server unreachable (its lines are not what these tests look at).
fn check(host: &FakeHost, settings: Settings, embeddings: Option<Reply>) -> ConnectionCheck {
    let p = processor_with(host, settings);
    host.script([Reply::NetworkError]);
    if let Some(reply) = embeddings {
        host.script_matching(PROBE, reply);
    }
    host.run(p.check_connection())
}

fn text_of<'a>(report: &'a ConnectionCheck, step: &str) -> Option<&'a str> {
    report.lines.iter().find(|l| l.step == step).map(|l| l.text.as_str())
}

#[test]
fn a_working_embedding_server_is_reported_with_its_dimension_and_speed() {
    let host = FakeHost::new();
    let vector: Vec<f32> = (0..384).map(|i| (i as f32) / 384.0).collect();
    let body = json!({"data": [{"index": 0, "embedding": vector}, {"index": 1, "embedding": vector}]});
    let reply = Reply::Raw { status: 200, chunks: vec![body.to_string()], end: BodyEnd::Close };
    let report = check(&host, with_embeddings(), Some(reply));
    let lines: Vec<_> = report.lines.iter().filter(|l| l.step.starts_with("embeddings")).collect();
    assert_eq!(lines.len(), 3, "{report:?}");
    assert!(lines.iter().all(|l| l.ok), "{report:?}");
    assert!(text_of(&report, "embeddings").unwrap_or("").contains("http://embed.test/v1/embeddings"), "{report:?}");
    assert_eq!(text_of(&report, "embeddings_dimension"), Some("vectors of 384 dimensions"));
    assert!(text_of(&report, "embeddings_speed").unwrap_or("").contains(" ms"), "{report:?}");
    let sent = host.requests_matching(PROBE);
    assert_eq!(sent.len(), 1, "one request");
    assert_eq!(sent[0].url, "http://embed.test/v1/embeddings");
    assert_eq!(sent[0].body["model"], "all-minilm-l6-v2");
    assert_eq!(sent[0].body["input"].as_array().map(Vec::len), Some(2));
    assert!(sent[0].headers.iter().any(|(k, v)| k == "authorization" && v == "Bearer embed-key-123456"));
}

#[test]
fn an_unknown_embeddings_model_says_to_check_the_model() {
    let host = FakeHost::new();
    let body = r#"{"error":{"message":"The model `nope` does not exist","type":"invalid_request_error","code":"model_not_found"}}"#;
    let reply = Reply::ErrorBody { status: 404, body: body.into() };
    let report = check(&host, Settings { embeddings_model: "nope".into(), ..with_embeddings() }, Some(reply));
    let failed = report.lines.iter().find(|l| l.step == "embeddings").expect("an embeddings line");
    assert!(!failed.ok && !report.ok, "{report:?}");
    assert!(failed.text.contains("check the embeddings model"), "{}", failed.text);
    assert!(failed.text.contains("\"nope\""), "{}", failed.text);
    assert!(!report.lines.iter().any(|l| l.step == "embeddings_dimension"));
}

#[test]
fn a_refused_embeddings_key_says_to_check_the_key_without_showing_it() {
    let host = FakeHost::new();
    let body = r#"{"error":{"message":"Incorrect API key provided: embed-key-123456","type":"invalid_request_error"}}"#;
    let reply = Reply::ErrorBody { status: 401, body: body.into() };
    let report = check(&host, with_embeddings(), Some(reply));
    let failed = report.lines.iter().find(|l| l.step == "embeddings").expect("an embeddings line");
    assert!(!failed.ok, "{report:?}");
    assert!(failed.text.contains("check the embeddings API key"), "{}", failed.text);
    assert!(!failed.text.contains("embed-key-123456"), "the key is masked: {}", failed.text);
}

#[test]
fn an_unreachable_embedding_server_says_to_check_the_base_url() {
    let host = FakeHost::new();
    let report = check(&host, with_embeddings(), Some(Reply::NetworkError));
    let failed = report.lines.iter().find(|l| l.step == "embeddings").expect("an embeddings line");
    assert!(!failed.ok, "{report:?}");
    assert!(failed.text.contains("check the embeddings base URL"), "{}", failed.text);
}

#[test]
fn with_search_by_meaning_off_the_check_sends_nothing_to_embed() {
    let host = FakeHost::new();
    let report = check(&host, settings(), None);
    assert!(report.lines.iter().all(|l| !l.step.starts_with("embeddings")), "{report:?}");
    assert!(host.requests_matching(PROBE).is_empty());
}
