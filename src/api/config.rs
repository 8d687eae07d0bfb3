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

fn endpoint(method: &str, path: &str, description: &str, request: Value, response: Value) -> Value {
    json!({"method": method, "path": path, "description": description, "request": request, "response": response})
}

/// `GET /config` (and the "Download config" file): ports and their roles, endpoints with their
/// formats, the verification workflow, limits, errors and the version. The token only when
/// asked for (the downloaded file, at the user's choice).
pub(crate) fn config_document(settings: &Settings, include_token: bool) -> Value {
    let base = format!("http://127.0.0.1:{}", settings.agent_api_port);
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
    let verification = json!({"status": "pending", "verification_id": "ver-…", "message": "Waiting for the user…", "expires_at": "2026-11-21T10:05:00.000Z"});
    let status = json!({"verification_id": "ver-…", "action": "git_push", "status": "approved | pending | rejected", "reason": "timeout (only when rejected)", "message": "…", "expires_at": "…"});
    let message_status = json!({"message_id": "api-…", "status": "queued | processing | done | failed | cancelled", "result": {"success": true, "messageId": "api-…", "response": "…"}});
    let endpoints = vec![
        endpoint("GET", "/config", "this document", Value::Null, json!({"name": "SmartHole Agent", "api_version": API_VERSION})),
        endpoint("GET", "/context", "the instruction context of the port", Value::Null, json!({"name": "default", "system": "…", "role": "…", "base_instruction": "…", "allowed_actions": ["…"], "verification_required": true})),
        endpoint("GET", "/context/{name}", "a named instruction context", Value::Null, json!("as GET /context")),
        endpoint("POST", "/verify", "ask the user to approve an action (202 pending; 200 when decided at once); ?context=<name> on the main port", json!({"action": "git_push (one of allowed_actions)", "reason": "why, in a sentence", "context": "optional: anything that helps the user decide"}), verification),
        endpoint("GET", "/verify/{id}", "a verification's status; ?wait=<seconds> (≤ 60) holds the answer until it changes", Value::Null, status),
        endpoint("POST", "/messages", "give the vault agent a message (source api); ?wait=<seconds> (≤ 60) holds the answer until it is done (200) or still running (202)", json!({"text": "what to do", "metadata": "optional object"}), message_status.clone()),
        endpoint("GET", "/messages/{id}", "a message's status and, when done, its result; ?wait=<seconds> (≤ 60)", Value::Null, message_status),
    ];
    let errors: Vec<Value> = ERROR_CODES
        .iter()
        .map(|(status, code, meaning)| json!({"status": status, "code": code, "meaning": meaning}))
        .collect();
    let mut auth = json!({
        "type": "bearer",
        "header": "Authorization: Bearer <token>",
        "where": "Obsidian → Settings → SmartHole Agent → Agent API",
    });
    if include_token {
        auth["token"] = json!(settings.agent_api_token);
    }
    json!({
        "name": "SmartHole Agent",
        "version": env!("CARGO_PKG_VERSION"),
        "api_version": API_VERSION,
        "base_url": base,
        "bind": "127.0.0.1 only; requests from browsers (Origin or Sec-Fetch-Site headers) are refused",
        "auth": auth,
        "ports": ports,
        "contexts": contexts,
        "endpoints": endpoints,
        "verification": {
            "timeout_seconds": settings.verification_timeout_seconds,
            "statuses": ["pending", "approved", "rejected"],
            "workflow": [
                "POST /verify with action (one of the context's allowed_actions) and reason",
                "an action outside allowed_actions is rejected at once; with verification_required false an allowed action is approved at once",
                "otherwise the answer is pending and the user sees the request in Obsidian",
                "poll GET /verify/{id}?wait=30 until status is approved or rejected",
                format!("no answer within {} seconds: rejected with reason \"timeout\"", settings.verification_timeout_seconds),
                format!("\"approve for this session\" approves the same action in the same context for {} minutes", SESSION_GRANT_MS / 60_000),
                "a restart never approves anything: a pending verification stays pending until its time is up",
            ],
        },
        "limits": {
            "body_bytes": BODY_LIMIT,
            "max_wait_seconds": MAX_WAIT_SECONDS,
            "pending_verifications_per_context": MAX_PENDING_VERIFICATIONS,
            "messages_in_flight": MAX_MESSAGES_IN_FLIGHT,
        },
        "errors": {
            "format": {"error": {"code": "…", "message": "…", "field": "(invalid_field only)"}},
            "codes": errors,
            "internal": {"status": 500, "code": "internal_error", "meaning": "the plugin failed to answer (a bug); nothing internal is included"},
            "starting": {"status": 503, "code": "not_ready", "meaning": "the agent is starting or restarting; retry after Retry-After seconds"},
            "retry": "retry 429, 5xx and connection errors with exponential backoff; never retry other 4xx",
        },
    })
}
