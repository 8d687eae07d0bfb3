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
