//! A client of SmartHole Agent's local agent API in Rust (`ureq` for HTTP, `serde_json`).
//!
//! It reads /config and /context, sends the vault agent a message and waits for the answer,
//! and asks the user to verify actions, polling until each is approved, rejected or timed out.
//!
//! ```sh
//! export SMARTHOLE_API_TOKEN=...   # Settings → SmartHole Agent → Agent API → Copy
//! cargo run --example agent_api_client -- --message "Add 'call the plumber' to my inbox note" \
//!     --verify "git_push:push the release branch"
//! ```
//!
//! Errors: 5xx, 429 and connection failures are retried with exponential backoff (0.5 s
//! doubling, 5 attempts); other 4xx are never retried (a 404 will not go away); a client that
//! gives up says why and exits with status 1.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

const ATTEMPTS: u32 = 5;
const FIRST_DELAY: Duration = Duration::from_millis(500);

struct AgentApi {
    base_url: String,
    token: String,
    agent: ureq::Agent,
}

impl AgentApi {
    fn new(base_url: &str, token: String) -> Self {
        let agent = ureq::AgentBuilder::new().timeout(Duration::from_secs(90)).build();
        AgentApi { base_url: base_url.trim_end_matches('/').to_owned(), token, agent }
    }

    /// One request, retried on 5xx, 429 and connection errors.
    fn call(&self, method: &str, path: &str, body: Option<&Value>) -> Result<Value, String> {
        let mut delay = FIRST_DELAY;
        for attempt in 1..=ATTEMPTS {
            let request = self
                .agent
                .request(method, &format!("{}{path}", self.base_url))
                .set("Authorization", &format!("Bearer {}", self.token));
            let outcome = match body {
                Some(body) => request.send_json(body.clone()),
                None => request.call(),
            };
            let problem = match outcome {
                Ok(response) => return response.into_json::<Value>().map_err(|e| format!("{method} {path}: {e}")),
                Err(ureq::Error::Status(status, response)) => {
                    let error = response.into_json::<Value>().unwrap_or_default();
                    let problem = format!(
                        "{method} {path}: HTTP {status} {}: {}",
                        error["error"]["code"].as_str().unwrap_or(""),
                        error["error"]["message"].as_str().unwrap_or("")
                    );
                    if status < 500 && status != 429 {
                        return Err(problem);
                    }
                    problem
                }
                Err(ureq::Error::Transport(e)) => {
                    format!("{method} {path}: cannot reach {} ({e}); is the agent API on?", self.base_url)
                }
            };
            if attempt == ATTEMPTS {
                return Err(format!("{problem} (gave up after {ATTEMPTS} attempts)"));
            }
            std::thread::sleep(delay);
            delay *= 2;
        }
        unreachable!("the last attempt returns")
    }

    fn config(&self) -> Result<Value, String> {
        let config = self.call("GET", "/config", None)?;
        // Never use a configuration that does not look like ours.
        if !config["endpoints"].is_array() || config["api_version"] != 1 {
            return Err("GET /config: not a SmartHole Agent API configuration (api_version 1)".into());
        }
        Ok(config)
    }

    /// Sends a message and waits until the agent has finished with it.
    fn send(&self, text: &str, timeout: Duration) -> Result<Value, String> {
        let mut answer = self.call("POST", "/messages?wait=30", Some(&json!({ "text": text })))?;
        let deadline = Instant::now() + timeout;
        while matches!(answer["status"].as_str(), Some("queued" | "processing")) {
            let id = answer["message_id"].as_str().unwrap_or_default().to_owned();
            if Instant::now() > deadline {
                return Err(format!("message {id}: not finished after {} s", timeout.as_secs()));
            }
            answer = self.call("GET", &format!("/messages/{id}?wait=30"), None)?;
        }
        Ok(answer)
    }

    /// Asks the user; returns the final status document (approved or rejected).
    fn verify(&self, action: &str, reason: &str, timeout: Duration) -> Result<Value, String> {
        let mut answer = self.call("POST", "/verify", Some(&json!({ "action": action, "reason": reason })))?;
        let deadline = Instant::now() + timeout;
        while answer["status"] == "pending" {
            let id = answer["verification_id"].as_str().unwrap_or_default().to_owned();
            if Instant::now() > deadline {
                return Err(format!("verification {id}: still pending after {} s", timeout.as_secs()));
            }
            answer = self.call("GET", &format!("/verify/{id}?wait=30"), None)?;
        }
        Ok(answer)
    }
}

fn run() -> Result<(), String> {
    let mut url = std::env::var("SMARTHOLE_API_URL").unwrap_or_else(|_| "http://127.0.0.1:8090".into());
    let mut message = None;
    let mut verify = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--url" => url = value()?,
            "--message" => message = Some(value()?),
            "--verify" => verify.push(value()?),
            other => return Err(format!("unknown argument {other}; use --url, --message and --verify ACTION:REASON")),
        }
    }
    let token = std::env::var("SMARTHOLE_API_TOKEN")
        .map_err(|_| "set SMARTHOLE_API_TOKEN to the token from Settings → SmartHole Agent → Agent API".to_owned())?;
    let api = AgentApi::new(&url, token);
    let config = api.config()?;
    println!(
        "config: {} {}, api_version {}, {} endpoints",
        config["name"].as_str().unwrap_or("?"),
        config["version"].as_str().unwrap_or("?"),
        config["api_version"],
        config["endpoints"].as_array().map_or(0, Vec::len)
    );
    let context = api.call("GET", "/context", None)?;
    let allowed: Vec<&str> =
        context["allowed_actions"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    println!("context: {} (allowed: {})", context["name"].as_str().unwrap_or("?"), allowed.join(", "));
    if let Some(text) = message {
        let answer = api.send(&text, Duration::from_secs(300))?;
        let result = &answer["result"];
        println!(
            "message {}: {}: {}",
            answer["message_id"].as_str().unwrap_or("?"),
            answer["status"].as_str().unwrap_or("?"),
            result["response"].as_str().or(result["error"].as_str()).unwrap_or("")
        );
    }
    for item in verify {
        let (action, reason) = item.split_once(':').unwrap_or((item.as_str(), "no reason given"));
        let answer = api.verify(action, reason, Duration::from_secs(330))?;
        let status = answer["status"].as_str().unwrap_or("?");
        match answer["reason"].as_str() {
            Some(why) if status == "rejected" => println!("verification {action}: {status} ({why})"),
            _ => println!("verification {action}: {status}"),
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}
