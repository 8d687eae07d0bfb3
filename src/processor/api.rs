//! The agent API's endpoints in the pipeline: verifications are approval requests with origin
//! `api` (the same card, notice and persistence as the note tools' approvals, answered
//! asynchronously and polled), and messages go through the same queue as every other source.

use futures::future::{select, FutureExt};
use serde_json::{json, Map, Value};

use super::handle::MessageProcessor;
use super::state::ApiRun;
use crate::api::config::{config_document, context_document, listeners, own_port_context, Listener};
use crate::api::route::{loggable_url, route, Route, Routed};
use crate::api::{bad, guard, ApiError, ApiRequest, ApiResponse, MAX_MESSAGES_IN_FLIGHT, MAX_PENDING_VERIFICATIONS};
use crate::approval::{ApprovalOrigin, ApprovalRequest, ApprovalStatus, SettleReason};
use crate::event::Event;
use crate::host::Host;
use crate::host_types::LogLevel;
use crate::ids::new_id;
use crate::settings::{AgentContext, Settings};
use crate::time::format_iso;

/// The longest action name and reason a verification may carry.
const MAX_ACTION_CHARS: usize = 100;
const MAX_REASON_CHARS: usize = 4_000;

fn object(body: &str) -> Result<Map<String, Value>, ApiError> {
    match serde_json::from_str::<Value>(body) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(other) => Err(ApiError::NotJson(format!("expected an object, got {}", kind(&other)))),
        Err(e) => Err(ApiError::NotJson(e.to_string())),
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A required, non-empty string field of at most `max` characters.
fn text_field(body: &Map<String, Value>, field: &'static str, max: usize) -> Result<String, ApiError> {
    match body.get(field) {
        None | Some(Value::Null) => Err(bad(field, "is required")),
        Some(Value::String(s)) if s.trim().is_empty() => Err(bad(field, "is empty")),
        Some(Value::String(s)) if s.chars().count() > max => Err(bad(field, format!("is over {max} characters"))),
        Some(Value::String(s)) => Ok(s.trim().to_owned()),
        Some(other) => Err(bad(field, format!("must be a string, not {}", kind(other)))),
    }
}

/// How a verification looks to the agent that asked for it.
fn verification_view(request: &ApprovalRequest) -> Value {
    let (status, message) = match request.status {
        ApprovalStatus::Pending => ("pending", "Waiting for the user to approve or reject it in Obsidian.".to_owned()),
        ApprovalStatus::Approved => ("approved", "The user approved this action.".to_owned()),
        ApprovalStatus::Rejected | ApprovalStatus::Expired => (
            "rejected",
            format!("Rejected: {}. Do not perform this action.", request.note.as_deref().unwrap_or("rejected")),
        ),
    };
    let mut view = json!({
        "verification_id": request.id,
        "action": request.action,
        "status": status,
        "message": message,
        "created_at": format_iso(request.created_ms),
        "expires_at": format_iso(request.expires_ms),
    });
    if status == "rejected" {
        view["reason"] = json!(request.note.as_deref().unwrap_or("rejected"));
    }
    view
}

/// The agent API session of a context: what "approve for this session" covers, and what a
/// verification belongs to.
fn session_name(context: &AgentContext) -> String {
    format!("api:{}", context.name)
}

fn message_view(id: &str, run: &ApiRun, current: Option<&str>) -> (u16, Value) {
    match run.peek() {
        Some(result) => {
            let status = if result.cancelled {
                "cancelled"
            } else if result.success {
                "done"
            } else {
                "failed"
            };
            (200, json!({"message_id": id, "status": status, "result": result}))
        }
        None => {
            let status = if current == Some(id) { "processing" } else { "queued" };
            (202, json!({"message_id": id, "status": status}))
        }
    }
}

impl<H: Host + 'static> MessageProcessor<H> {
    /// Answers an agent API request (the shim's HTTP server hands every request here); never
    /// fails (errors are answers too).
    pub async fn handle_api(&self, request: ApiRequest) -> ApiResponse {
        let settings = self.settings();
        let outcome = async {
            // A request reaching a listener the API no longer wants: refused like a wrong token.
            let token = if settings.agent_api_serving() { settings.agent_api_token.as_str() } else { "" };
            guard::admit(&request, token)?;
            let routed = route(&request.method, &request.url)?;
            self.answer(&settings, &request, routed).await
        };
        match outcome.await {
            Ok(response) => response,
            Err(error) => {
                let level = if error.status() >= 500 { LogLevel::Warn } else { LogLevel::Debug };
                let url = loggable_url(&request.url);
                self.inner.host.log(level, &format!("agent API {} {url}: {error}", request.method));
                error.response()
            }
        }
    }

    /// The ports the agent API listens on (none when it is off). The `smarthole` tools have
    /// their own listener (`agent_listener.rs`).
    pub fn api_listeners(&self) -> Vec<Listener> {
        listeners(&self.settings())
    }

    /// The `/config` document, with the token only when `include_token` (for "Download config").
    pub fn api_config_document(&self, include_token: bool) -> Value {
        config_document(&self.settings(), include_token)
    }

    /// A fresh agent API token (64 hex digits) for the user to keep in secret storage.
    pub fn new_api_token(&self) -> String {
        let host = &self.inner.host;
        (0..4).map(|_| format!("{:016x}", host.random_u64())).collect()
    }

    async fn answer(&self, settings: &Settings, request: &ApiRequest, routed: Routed) -> Result<ApiResponse, ApiError> {
        // On a context's own port only that context exists; on the main port, any by name, the
        // first by default.
        let own = own_port_context(settings, request.local_port);
        let context = |name: Option<&str>| {
            let found = match (own, name) {
                (Some(own), None) => Some(own),
                (Some(own), Some(name)) => (own.name == name).then_some(own),
                (None, None) => settings.agent_contexts.first(),
                (None, Some(name)) => settings.agent_contexts.iter().find(|c| c.name == name),
            };
            found.ok_or_else(|| ApiError::UnknownContext(name.unwrap_or_default().to_owned()))
        };
        match routed.route {
            Route::Config => Ok(ApiResponse::json(200, &config_document(settings, false))),
            Route::Context(name) => Ok(ApiResponse::json(200, &context_document(context(name.as_deref())?))),
            Route::CreateVerification => {
                let context = context(routed.context.as_deref())?;
                self.create_verification(settings, context, &object(&request.body)?).await
            }
            Route::Verification(id) => self.verification_status(&id, own, routed.wait_ms).await,
            Route::CreateMessage => self.create_message(&object(&request.body)?, own, routed.wait_ms).await,
            Route::Message(id) => self.message_status(&id, own, routed.wait_ms).await,
        }
    }

    async fn create_verification(
        &self,
        settings: &Settings,
        context: &AgentContext,
        body: &Map<String, Value>,
    ) -> Result<ApiResponse, ApiError> {
        let host = &self.inner.host;
        let action = text_field(body, "action", MAX_ACTION_CHARS)?;
        let reason = text_field(body, "reason", MAX_REASON_CHARS)?;
        let details = body.get("context").filter(|v| !v.is_null()).cloned();
        let session = session_name(context);
        let now = host.now_ms();
        let (id, expires) = (new_id(host, "ver-"), now + settings.verification_timeout_ms());
        let summary = format!("An external agent asks to {action}: {reason}");
        let mut request = ApprovalRequest {
            reason: Some(reason),
            details,
            session: Some(session.clone()),
            ..ApprovalRequest::pending(id, ApprovalOrigin::Api, action, summary, now, expires)
        };
        let decided_at_once = if !context.allowed_actions.contains(&request.action) {
            Some((
                SettleReason::NotAllowed,
                format!("action {:?} is not in the allowed_actions of context {:?}", request.action, context.name),
            ))
        } else if !context.verification_required {
            Some((SettleReason::NotRequired, format!("context {:?} does not require verification", context.name)))
        } else if self.inner.approvals.granted(&session, &request.action, now) {
            Some((SettleReason::SessionGrant, "approved for this session".to_owned()))
        } else {
            None
        };
        if let Some((reason, note)) = decided_at_once {
            // Nobody was asked, so nothing needs to survive a restart; a bounded list answers
            // a poll of it (an agent retrying a refused action in a loop fills nothing).
            request.status = reason.status();
            request.note = Some(note);
            request.settle_reason = Some(reason);
            self.inner.api_recent.remember_decided(request.clone());
            return Ok(ApiResponse::json(200, &verification_view(&request)));
        }
        if self.inner.approvals.pending_in_session(&session) >= MAX_PENDING_VERIFICATIONS {
            return Err(ApiError::TooMany(format!(
                "context {:?} already has {MAX_PENDING_VERIFICATIONS} verifications waiting for the user",
                context.name
            )));
        }
        // Persisted before anyone is told, so a restart finds it (and never approves it).
        self.persist_approval(&request).await.map_err(|e| self.storage_failed(&request.id, &e))?;
        self.inner.approvals.insert(request.clone());
        host.emit(&Event::ApprovalRequested { request: Box::new(request.clone()) });
        self.expire_later(&request);
        let mut view = verification_view(&request);
        view["message"] = json!(format!(
            "The user has been asked. Poll GET /verify/{}?wait=30 until the status is approved or rejected \
(rejected with reason \"timeout\" after {} s without an answer).",
            request.id, settings.verification_timeout_seconds
        ));
        Ok(ApiResponse::json(202, &view))
    }

    fn storage_failed(&self, id: &str, error: &str) -> ApiError {
        self.inner.host.log(LogLevel::Error, &format!("could not save verification {id}: {error}"));
        ApiError::Storage
    }

    /// Rejects a pending verification with "timeout" when its time is up, so the card goes away
    /// even if nobody polls.
    pub(super) fn expire_later(&self, request: &ApprovalRequest) {
        let id = request.id.clone();
        let delay = request.expires_ms.saturating_sub(self.inner.host.now_ms());
        self.spawn(|this| async move {
            this.inner.host.sleep(delay).await;
            let now = this.inner.host.now_ms();
            if let Ok(expired) = this.inner.approvals.settle(&id, SettleReason::Timeout, None, now) {
                this.settled(&expired).await;
            }
        });
    }

    /// A verification's status. On a context's own port only that context's verifications
    /// exist (one made on the main port for another context is unknown there, as that context
    /// is); the main port sees them all.
    async fn verification_status(
        &self,
        id: &str,
        own: Option<&AgentContext>,
        wait_ms: u64,
    ) -> Result<ApiResponse, ApiError> {
        let host = &self.inner.host;
        let visible = |session: Option<&str>| own.is_none_or(|c| session == Some(session_name(c).as_str()));
        let decided = self.inner.api_recent.decided(id);
        if let Some(decided) = decided.filter(|d| visible(d.session.as_deref())) {
            return Ok(ApiResponse::json(200, &verification_view(&decided)));
        }
        // Only an external agent's requests are visible here (and touched: a lookup may expire).
        if self.inner.approvals.origin_of(id) != Some(ApprovalOrigin::Api)
            || !visible(self.inner.approvals.session_of(id).as_deref())
        {
            return Err(ApiError::UnknownVerification(id.to_owned()));
        }
        let current = |this: &Self| {
            this.inner.approvals.get(id, host.now_ms()).ok_or_else(|| ApiError::UnknownVerification(id.to_owned()))
        };
        let (mut request, mut expired_now) = current(self)?;
        if request.status == ApprovalStatus::Pending && wait_ms > 0 {
            let until_expiry = request.expires_ms.saturating_sub(host.now_ms());
            let change = self.inner.approvals.subscribe(id);
            let _ = select(change, host.sleep(wait_ms.min(until_expiry)).boxed_local()).await;
            (request, expired_now) = current(self)?;
        }
        if expired_now {
            self.settled(&request).await;
        }
        Ok(ApiResponse::json(200, &verification_view(&request)))
    }

    async fn create_message(
        &self,
        body: &Map<String, Value>,
        own: Option<&AgentContext>,
        wait_ms: u64,
    ) -> Result<ApiResponse, ApiError> {
        let host = &self.inner.host;
        let text = text_field(body, "text", crate::api::BODY_LIMIT)?;
        let metadata = match body.get("metadata") {
            None | Some(Value::Null) => Value::Object(Map::new()),
            Some(Value::Object(map)) => Value::Object(map.clone()),
            Some(other) => return Err(bad("metadata", format!("must be an object, not {}", kind(other)))),
        };
        let paths: Vec<&str> = match body.get("attachments") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(list)) => list
                .iter()
                .map(|p| p.as_str().ok_or_else(|| bad("attachments", "must be a list of vault paths (strings)")))
                .collect::<Result<_, _>>()?,
            Some(other) => {
                return Err(bad("attachments", format!("must be a list of vault paths, not {}", kind(other))))
            }
        };
        if paths.len() > crate::attachment::MAX_ATTACHMENTS {
            return Err(bad("attachments", crate::attachment::AttachError::TooMany.to_string()));
        }
        // Under the note tools' path rules; checked and copied before the message is queued, so
        // a path that cannot go is refused here and nothing is sent.
        let mut attachments = Vec::with_capacity(paths.len());
        for path in paths {
            let settings = self.settings();
            let attached =
                crate::attachment::attach_vault_kept(host, &settings, &self.inner.attachments.copies, path).await;
            let attached = self.inner.attachments.taken_by_model(&settings, attached);
            attachments.push(attached.map_err(|e| bad("attachments", e.to_string()))?);
        }
        if self.inner.api_recent.unfinished() >= MAX_MESSAGES_IN_FLIGHT {
            return Err(ApiError::TooMany(format!(
                "{MAX_MESSAGES_IN_FLIGHT} messages from the agent API are still waiting"
            )));
        }
        let id = new_id(host, "api-");
        let raw = json!({"id": id, "text": text, "source": "api", "timestamp": format_iso(host.now_ms()),
            "metadata": metadata, "attachments": attachments});
        // What an external agent reads back has the configured secrets hidden, as every text
        // the plugin shows does.
        let secrets = self.inner.config.secrets();
        let masked = self.accept(raw).map(move |mut result| {
            result.mask_texts(&|text| secrets.mask_in_place(text));
            result
        });
        let run: ApiRun = masked.boxed_local().shared();
        let owner = own.map(|c| c.name.clone());
        self.inner.api_recent.add(id.clone(), run.clone(), owner);
        self.spawn(|_| run.clone().map(drop));
        self.message_status(&id, own, wait_ms).await
    }

    /// A message's status: on a context's own port, only the messages sent on that port.
    async fn message_status(
        &self,
        id: &str,
        own: Option<&AgentContext>,
        wait_ms: u64,
    ) -> Result<ApiResponse, ApiError> {
        let viewer = own.map(|c| c.name.as_str());
        let run = self.inner.api_recent.get(id, viewer).ok_or_else(|| ApiError::UnknownMessage(id.to_owned()))?;
        if run.peek().is_none() && wait_ms > 0 {
            let _ = select(run.clone(), self.inner.host.sleep(wait_ms).boxed_local()).await;
        }
        let current = self.inner.run.current_id();
        let (status, view) = message_view(id, &run, current.as_deref());
        Ok(ApiResponse::json(status, &view))
    }

    /// After a restart: an external agent's verification still pending gets its expiry timer.
    pub(super) fn resume_verification_timers(&self) {
        for request in self.inner.approvals.pending() {
            if request.origin == ApprovalOrigin::Api {
                self.expire_later(&request);
            }
        }
    }
}
