//! The documents external agents read: `/config` (how to talk to this API) and `/context`
//! (what they are told). Both come from the settings, so they are always true to what the
//! server does.

use serde_json::{json, Value};

use super::{
    API_VERSION, BODY_LIMIT, ERROR_CODES, MAX_MESSAGES_IN_FLIGHT, MAX_PENDING_VERIFICATIONS, MAX_WAIT_SECONDS,
};
use crate::approval::SESSION_GRANT_MS;
use crate::settings::{AgentContext, Settings};

/// A port the shim listens on, and the context it serves (`None`: the main port).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Listener {
    pub port: u16,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
}

/// The ports to listen on: none when the API is off or has no token.
pub fn listeners(settings: &Settings) -> Vec<Listener> {
    if !settings.agent_api_serving() {
        return Vec::new();
    }
    let main = Listener { port: settings.agent_api_port, context: None };
    let own = settings
        .agent_contexts
        .iter()
        .filter_map(|c| c.port.map(|port| Listener { port, context: Some(c.name.clone()) }));
    std::iter::once(main).chain(own).collect()
}

/// The context whose own port `port` is, if any (there, only that context can be addressed).
pub(crate) fn own_port_context(settings: &Settings, port: u16) -> Option<&AgentContext> {
    settings.agent_contexts.iter().find(|c| c.port == Some(port))
}

/// `GET /context`: the seed's five fields, plus the context's name.
pub(crate) fn context_document(context: &AgentContext) -> Value {
    json!({
        "name": context.name,
        "system": context.system,
        "role": context.role,
        "base_instruction": context.base_instruction,
        "allowed_actions": context.allowed_actions,
        "verification_required": context.verification_required,
    })
}

/// What `/config` says that depends on no setting, as JSON text. Parsed at each call (the
/// document is asked for rarely): as text it is ~4 KB of the wasm, where the same document built
/// by `json!` was ~13 KB of code (docs/BENCHMARKS.md, "What the wasm is made of").
/// [`config_document`] adds the rest: ports, contexts, limits, error codes, the token.
const CONFIG_STATIC: &str = r#"{
  "name": "SmartHole Agent",
  "bind": "127.0.0.1 only; requests from browsers (Origin or Sec-Fetch-Site headers) are refused",
  "auth": {
    "type": "bearer",
    "header": "Authorization: Bearer <token>",
    "where": "Obsidian → Settings → SmartHole Agent → Agent API"
  },
  "endpoints": [
    {"method": "GET", "path": "/config", "description": "this document", "request": null,
     "response": {"name": "SmartHole Agent"}},
    {"method": "GET", "path": "/context", "description": "the instruction context of the port", "request": null,
     "response": {"name": "default", "system": "…", "role": "…", "base_instruction": "…", "allowed_actions": ["…"], "verification_required": true}},
    {"method": "GET", "path": "/context/{name}", "description": "a named instruction context", "request": null,
     "response": "as GET /context"},
    {"method": "POST", "path": "/verify", "description": "ask the user to approve an action (202 pending; 200 when decided at once); ?context=<name> on the main port",
     "request": {"action": "git_push (one of allowed_actions)", "reason": "why, in a sentence", "context": "optional: anything that helps the user decide"},
     "response": {"status": "pending", "verification_id": "ver-…", "message": "Waiting for the user…", "expires_at": "2026-11-21T10:05:00.000Z"}},
    {"method": "GET", "path": "/verify/{id}", "description": "a verification's status; ?wait=<seconds> (≤ 60) holds the answer until it changes", "request": null,
     "response": {"verification_id": "ver-…", "action": "git_push", "status": "approved | pending | rejected", "reason": "timeout (only when rejected)", "message": "…", "expires_at": "…"}},
    {"method": "POST", "path": "/messages", "description": "give the vault agent a message (source api); ?wait=<seconds> (≤ 60) holds the answer until it is done (200) or still running (202)",
     "request": {"text": "what to do", "metadata": "optional object",
                 "attachments": "optional list of vault paths: notes, folders, images, PDFs"},
     "response": {"message_id": "api-…", "status": "queued | processing | done | failed | cancelled", "result": {"success": true, "messageId": "api-…", "response": "…"}}},
    {"method": "GET", "path": "/messages/{id}", "description": "a message's status and, when done, its result; ?wait=<seconds> (≤ 60)", "request": null,
     "response": {"message_id": "api-…", "status": "queued | processing | done | failed | cancelled", "result": {"success": true, "messageId": "api-…", "response": "…"}}}
  ],
  "verification": {
    "statuses": ["pending", "approved", "rejected"],
    "workflow": [
      "POST /verify with action (one of the context's allowed_actions) and reason",
      "an action outside allowed_actions is rejected at once; with verification_required false an allowed action is approved at once",
      "otherwise the answer is pending and the user sees the request in Obsidian",
      "poll GET /verify/{id}?wait=30 until status is approved or rejected",
      "a restart never approves anything: a pending verification stays pending until its time is up"
    ]
  },
  "errors": {
    "format": {"error": {"code": "…", "message": "…", "field": "(invalid_field only)"}},
    "internal": {"status": 500, "code": "internal_error", "meaning": "the plugin failed to answer (a bug); nothing internal is included"},
    "starting": {"status": 503, "code": "not_ready", "meaning": "the agent is starting or restarting; retry after Retry-After seconds"},
    "retry": "retry 429, 5xx and connection errors with exponential backoff; never retry other 4xx"
  }
}"#;

/// `GET /config` (and the "Download config" file): ports and their roles, endpoints with their
/// formats, the verification workflow, limits, errors and the version. The token only when
/// asked for (the downloaded file, at the user's choice).
pub(crate) fn config_document(settings: &Settings, include_token: bool) -> Value {
    let mut doc: Value = serde_json::from_str(CONFIG_STATIC).unwrap_or_default();
    let mut ports = vec![json!({
        "port": settings.agent_api_port,
        "role": "main: every endpoint; /context and /verify mean the default context unless told otherwise",
        "context": settings.agent_contexts.first().map(|c| c.name.clone()),
    })];
    for context in &settings.agent_contexts {
        if let Some(port) = context.port {
            ports.push(json!({
                "port": port,
                "role": format!("instruction server of context {:?}: every endpoint; /context and /verify mean this context", context.name),
                "context": context.name,
            }));
        }
    }
    let contexts: Vec<Value> = settings
        .agent_contexts
        .iter()
        .map(|c| json!({"name": c.name, "path": format!("/context/{}", c.name), "port": c.port}))
        .collect();
    let codes: Vec<Value> = ERROR_CODES
        .iter()
        .map(|(status, code, meaning)| json!({"status": status, "code": code, "meaning": meaning}))
        .collect();
    doc["version"] = json!(env!("CARGO_PKG_VERSION"));
    doc["api_version"] = json!(API_VERSION);
    doc["endpoints"][0]["response"]["api_version"] = json!(API_VERSION);
    doc["base_url"] = json!(format!("http://127.0.0.1:{}", settings.agent_api_port));
    if include_token {
        doc["auth"]["token"] = json!(settings.agent_api_token);
    }
    doc["ports"] = Value::Array(ports);
    doc["contexts"] = Value::Array(contexts);
    let timeout = settings.verification_timeout_seconds;
    doc["verification"]["timeout_seconds"] = json!(timeout);
    if let Some(workflow) = doc["verification"]["workflow"].as_array_mut() {
        let at = workflow.len() - 1;
        workflow.insert(at, json!(format!("no answer within {timeout} seconds: rejected with reason \"timeout\"")));
        workflow.insert(
            at + 1,
            json!(format!(
                "\"approve for this session\" approves the same action in the same context for {} minutes",
                SESSION_GRANT_MS / 60_000
            )),
        );
    }
    doc["limits"] = json!({
        "body_bytes": BODY_LIMIT,
        "max_wait_seconds": MAX_WAIT_SECONDS,
        "pending_verifications_per_context": MAX_PENDING_VERIFICATIONS,
        "messages_in_flight": MAX_MESSAGES_IN_FLIGHT,
    });
    doc["errors"]["codes"] = Value::Array(codes);
    doc
}
