//! Helpers of the agent API tests: settings with the API on, a request made and answered, a
//! verification asked for.

use serde_json::{json, Value};
use smarthole_agent::testing::FakeHost;
use smarthole_agent::AgentContext;
use smarthole_agent::{ApiRequest, ApiResponse};
use smarthole_agent::{MessageProcessor, Settings};

use super::*;

pub const TOKEN: &str = "5f0c1d2e3a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5";
pub const PORT: u16 = 8090;

pub fn api_settings() -> Settings {
    Settings {
        agent_api_enabled: true,
        agent_api_token: TOKEN.into(),
        agent_contexts: vec![
            AgentContext { allowed_actions: vec!["git_push".into(), "deploy".into()], ..AgentContext::default() },
            AgentContext {
                name: "reviewer".into(),
                port: Some(8091),
                role: "You review pull requests.".into(),
                allowed_actions: vec!["comment".into()],
                verification_required: false,
                ..AgentContext::default()
            },
        ],
        ..settings()
    }
}

pub fn setup() -> (FakeHost, MessageProcessor<FakeHost>) {
    let host = FakeHost::new();
    let p = processor_with(&host, api_settings());
    (host, p)
}

pub fn request(method: &str, url: &str, body: &str) -> ApiRequest {
    ApiRequest {
        method: method.into(),
        url: url.into(),
        headers: [("host", format!("127.0.0.1:{PORT}")), ("authorization", format!("Bearer {TOKEN}"))]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect(),
        body: body.into(),
        body_too_large: false,
        local_port: PORT,
    }
}

pub fn call(host: &FakeHost, p: &MessageProcessor<FakeHost>, request: ApiRequest) -> (u16, Value) {
    let ApiResponse { status, body, .. } = host.run(p.handle_api(request));
    (status, serde_json::from_str(&body).expect("every answer is JSON"))
}

pub fn get(host: &FakeHost, p: &MessageProcessor<FakeHost>, url: &str) -> (u16, Value) {
    call(host, p, request("GET", url, ""))
}

pub fn post(host: &FakeHost, p: &MessageProcessor<FakeHost>, url: &str, body: Value) -> (u16, Value) {
    call(host, p, request("POST", url, &body.to_string()))
}

/// Asks for a verification that stays pending; returns its id.
pub fn ask(host: &FakeHost, p: &MessageProcessor<FakeHost>, action: &str, reason: &str) -> String {
    let (status, answer) = post(host, p, "/verify", json!({"action": action, "reason": reason}));
    assert_eq!(status, 202, "{answer}");
    answer["verification_id"].as_str().expect("an id").to_owned()
}

pub fn error_code(answer: &(u16, Value)) -> (u16, &str) {
    (answer.0, answer.1["error"]["code"].as_str().unwrap_or("(no error code)"))
}
