//! SmartHole Agent core: the message pipeline of an Obsidian AI agent, written once in Rust and
//! run in WebAssembly inside Obsidian (and Node for the headless host), natively in tests.
//!
//! The core decides; the host does. Everything that touches the world goes through
//! [`host::Host`]; everything else is plain, tested Rust.

// Nothing that came from outside may panic the core (a panic traps the wasm module).
#![cfg_attr(not(test), deny(clippy::unwrap_used))]
// What is public is chosen below (and, for tests, in `testing::internals`); anything else stays
// crate-private, and the compiler says so. Checked where the `testing` feature is on (every test
// and clippy run), the build in which the whole surface, internals included, is in view.
#![cfg_attr(feature = "testing", warn(unreachable_pub))]

mod agent;
mod api;
mod approval;
mod attachment;
mod attachment_ref;
mod bounded;
mod conversation;
mod event;
mod host;
mod host_types;
mod hub;
mod ids;
mod inbox;
mod journal;
mod lean;
mod llm;
mod llm_client;
mod mcp;
mod message;
mod processor;
mod prompt;
mod retrospection;
mod schedule;
mod secrets;
mod settings;
mod store;
mod summary;
mod time;
mod tools;
mod undo;
mod usage;
mod vault;

#[cfg(any(test, feature = "testing"))]
pub mod testing;

/// The JS API (wasm32 only).
#[cfg(target_arch = "wasm32")]
pub mod wasm;

// The API a host embeds: the processor, the host it is given, and the values crossing between
// them (settings in; events, results, conversations and approvals out).
pub use api::{ApiRequest, ApiResponse};
pub use approval::{
    ApprovalError, ApprovalOrigin, ApprovalRequest, ApprovalScope, ApprovalStatus, Decision, SettleReason,
};
pub use attachment::{
    attach_bytes, attach_vault, check_paste_size, selection_quote, AttachError, Attachment, AttachmentKind, Mention,
    MAX_ATTACHMENTS,
};
pub use conversation::line::{HistoryLine, LineRole, TurnEnd};
pub use conversation::model::{
    Conversation, ConversationState, ConversationStatus, PendingQuestion, QuestionType, Schedule, ScheduleType,
};
pub use event::{Event, NoticeLevel, Stage};
pub use host::Host;
pub use host_types::{HostError, HttpRequest, HttpResponse, LogLevel, Millis, NoteEdit};
pub use hub::client::HubStatus;
pub use llm::presets::{provider_presets, ProviderPreset};
pub use llm::types::ContentBlock;
pub use llm::types::Usage;
pub use llm_client::check::{CheckLine, ConnectionCheck};
pub use mcp::{McpError, McpServer, McpState, McpTool};
pub use message::{MessageSource, ProcessResult, RoutedMessage};
pub use processor::{ConversationPage, MessageProcessor, ProcessorError, ReprocessSummary, ScheduleChange, TurnReview};
pub use settings::{unknown_fields, SettingsDocument, UnknownField};
pub use settings::{AgentContext, ApiFormat, AuthStyle, McpServerConfig, Settings};
pub use undo::AppliedChange;
pub use usage::{ModelPrice, UsageTotals};
pub use vault::diff::{ChangeKind, DiffLine, Hunk, LineKind, ProposedChange, UndoRefusal, UndoReport, WordSpan};
pub use vault::{EntryKind, VaultEntry};
