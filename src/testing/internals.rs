//! The core's parts that tests, fuzz targets and benches exercise directly (parsers, plans,
//! limits), beyond the API in the crate root. Only with the `testing` feature.

pub use crate::api::config::{listeners, Listener};
pub use crate::api::BODY_LIMIT;
pub use crate::approval::{APPROVAL_TIMEOUT_MS, SESSION_GRANT_MS};
pub use crate::bounded::{MAX_INBOX_BYTES, MAX_INDEX_BYTES, MAX_LOG_BYTES};
pub use crate::conversation::log::parse_log;
pub use crate::conversation::metadata::{
    log_path, parse_index, ConversationIndex, Quarantined, INDEX_PATH, QUARANTINE_PATH,
};
pub use crate::hub::frames::{parse_inbound, Inbound};
pub use crate::llm::sse::{SseError, SseEvent, SseParser};
pub use crate::message::parse_routed;
pub use crate::schedule::{plan, ScheduleRequest};
pub use crate::time::{format_iso, parse_iso};
pub use crate::tools::args::Args;
pub use crate::tools::ToolRegistry;
pub use crate::vault::diff::content_hash;
pub use crate::vault::path::{is_protected, normalize, protected_folders, PathError};
pub use crate::vault::real::{locate, Access};

/// Reads one line an ACP agent could send as the client reads it: the JSON-RPC envelope, then
/// the typed message its method (or, for a response, its shape) says. Returns what was read, in
/// short words (`update plan`, `permission`, `initialize v1`…), or why it could not be read.
pub fn read_acp_message(line: &str) -> Result<String, String> {
    use crate::acp::codec::Inbound;
    use crate::acp::messages::*;
    match Inbound::parse(line)? {
        Inbound::Notification { method, params } if method == "session/update" => {
            let update = SessionNotification::read(&params)?.update;
            let name = format!("{update:?}");
            Ok(format!("update {}", name.split([' ', '(', '{']).next().unwrap_or_default()))
        }
        Inbound::Request { method, params, .. } if method == "session/request_permission" => {
            PermissionRequest::read(&params).map(|_| "permission".to_owned())
        }
        Inbound::Response { outcome: Ok(result), .. } if result.get("protocolVersion").is_some() => {
            InitializeResult::read(&result).map(|r| format!("initialize v{}", r.protocol_version))
        }
        Inbound::Response { outcome: Ok(result), .. } if result.get("stopReason").is_some() => {
            stop_reason(&result).map(|r| format!("prompt {r}"))
        }
        Inbound::Response { outcome: Ok(result), .. } if result.get("sessionId").is_some() => {
            new_session_id(&result).map(|_| "new session".to_owned())
        }
        Inbound::Response { outcome, .. } => Ok(format!("response {}", if outcome.is_ok() { "ok" } else { "error" })),
        Inbound::Request { method, .. } => Ok(format!("request {method}")),
        Inbound::Notification { method, .. } => Ok(format!("notification {method}")),
    }
}

/// A note's passages as the meaning index cuts them: the text each embeds and its lines (the
/// brute force a test ranks against).
pub fn meaning_passages(path: &str, text: &str) -> Vec<(String, (u32, u32))> {
    crate::vault::meaning::chunks::chunks(path, text).into_iter().map(|c| (c.embed_text(), c.lines)).collect()
}
