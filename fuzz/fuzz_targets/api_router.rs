//! The agent API: any request (method, path, query, headers, body) is answered with a status
//! and a JSON body, never a 500 and never a panic; errors have a code; strangers never get past
//! the guard.
#![no_main]
use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use smarthole_agent::ApiRequest;
use smarthole_agent::AgentContext;
use smarthole_agent::testing::FakeHost;
use smarthole_agent::{MessageProcessor, Settings};

const TOKEN: &str = "0123456789abcdef0123456789abcdef0123456789abcdef";

thread_local! {
    static CORE: (FakeHost, MessageProcessor<FakeHost>) = {
        let host = FakeHost::new();
        let settings = Settings {
            base_url: "http://model.test".into(),
            model: "fuzz".into(),
            hub_enabled: false,
            agent_api_enabled: true,
            agent_api_token: TOKEN.into(),
            agent_contexts: vec![AgentContext { allowed_actions: vec!["deploy".into()], ..AgentContext::default() }],
            ..Settings::default()
        };
        let p = MessageProcessor::new(host.clone(), settings).expect("valid settings");
        host.run(p.initialize()).expect("initialize");
        (host, p)
    };
}

fuzz_target!(|data: (u8, &str, bool, bool, &str)| {
    let (method, url, authorised, from_browser, body) = data;
    let method = ["GET", "POST", "PUT", "DELETE", "OPTIONS"][usize::from(method % 5)];
    let mut headers = std::collections::BTreeMap::from([("host".to_owned(), "127.0.0.1:8090".to_owned())]);
    if authorised {
        headers.insert("authorization".into(), format!("Bearer {TOKEN}"));
    }
    if from_browser {
        headers.insert("origin".into(), "https://example.org".into());
    }
    let request = ApiRequest {
        method: method.into(),
        url: url.into(),
        headers,
        body: body.into(),
        body_too_large: false,
        local_port: 8090,
    };
    CORE.with(|(host, p)| {
        // A message goes to the (scripted) model in the background; the answer is given at once
        // or after `wait`, in virtual time.
        let response = host.run(p.handle_api(request));
        assert_ne!(response.status, 500);
        let json: Value = serde_json::from_str(&response.body).expect("a JSON body");
        if response.status >= 400 {
            assert!(json["error"]["code"].is_string());
        }
        if !authorised || from_browser {
            assert!(response.status == 401 || response.status == 403, "{} for a stranger", response.status);
        }
    });
});
