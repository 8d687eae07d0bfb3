//! SmartHole Agent core: the message pipeline of an Obsidian AI agent, written once in Rust and
//! run in WebAssembly inside Obsidian (and Node for the headless host), natively in tests.
//!
//! The core decides; the host does. Everything that touches the world — files, the clock, HTTP,
//! the hub's socket, the views — goes through the [`Host`] it is given; everything else is
//! plain, tested Rust. [`MessageProcessor`] is the whole of it a host drives: its documentation
//! says in what order to call it.
//!
//! # A message through the core
//!
//! Tests drive the core on `testing::FakeHost` (with the `testing` feature, on for every
//! `cargo test`): files in memory, a virtual clock, and a model server that answers from a
//! script. The plugin drives it the same way on the JS host the shim passes in.
//!
//! ```
//! use smarthole_agent::testing::{FakeHost, Reply};
//! use smarthole_agent::{ContentBlock, Event, LineRole, MessageProcessor, Settings};
//!
//! // The host, and the answer its model server will stream to the next request.
//! let host = FakeHost::new();
//! host.script([Reply::text("Milk is on your shopping list.")]);
//!
//! // Settings are checked when the processor is made; nothing is read yet.
//! let settings = Settings {
//!     base_url: "http://model.test".into(),
//!     model: "test-model".into(),
//!     api_key: "test-key".into(),
//!     ..Settings::default()
//! };
//! let processor = MessageProcessor::new(host.clone(), settings)?;
//! // Start it: the history is loaded (empty here), the worker and the cleanup start.
//! host.run(processor.initialize())?;
//!
//! // A message as the chat view sends it: the processor mints its id and time.
//! let message = processor.new_message("Add milk to my shopping list");
//! let message_id = message.id.clone();
//! // `process` resolves once the message is answered, recorded and out of the inbox.
//! // (`FakeHost::run` drives a future to its end, moving the virtual clock when nothing can run.)
//! let result = host.run(processor.process(serde_json::to_value(&message)?));
//! assert!(result.success);
//! assert_eq!(result.response.as_deref(), Some("Milk is on your shopping list."));
//!
//! // The model was asked once, with the message in its request.
//! assert_eq!(host.requests().len(), 1);
//! assert!(host.requests()[0].body.to_string().contains("Add milk to my shopping list"));
//!
//! // The message opened a conversation; its history holds the question and the answer.
//! let conversation = host.run(processor.current_conversation()).expect("opened by the message");
//! let lines = host.run(processor.conversation_lines(&conversation.id))?;
//! let said: Vec<(LineRole, String)> = lines
//!     .iter()
//!     .filter(|line| line.visible && line.message_id == message_id)
//!     .map(|line| {
//!         let text = line.content.iter().filter_map(|block| match block {
//!             ContentBlock::Text { text } => Some(text.as_str()),
//!             _ => None,
//!         });
//!         (line.role, text.collect())
//!     })
//!     .collect();
//! assert_eq!(said[0].0, LineRole::User);
//! assert!(said[0].1.contains("Add milk to my shopping list"));
//! assert_eq!(said[1], (LineRole::Assistant, "Milk is on your shopping list.".to_owned()));
//!
//! // Everything the views draw came out as events, the result last.
//! assert!(matches!(host.events().last(), Some(Event::Response { result, .. }) if result.success));
//! // And the inbox, where the message was made durable before anything else, is empty again.
//! assert!(host.paths_under("inbox").is_empty());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Where things are
//!
//! `processor/` is the pipeline (one file per part: arrival, the run, failure, the views' calls,
//! approvals, schedules, the hub, the agent API); below it `agent/` (one turn: model ↔ tools),
//! `tools/`, `store/` (conversations on disk) and `inbox.rs`; below those the plain parts with no
//! I/O — `conversation/`, `llm/` (the wire; `llm_client/` sends it through the host), `hub/`,
//! `vault/`, `approval/`, `schedule/`, `settings/` — and the leaves (`host_types.rs`,
//! `attachment_ref.rs`, `lean/`, `time.rs`). Dependencies between these top-level modules point
//! one way (`scripts/module-cycles.mjs` checks it); `docs/ARCHITECTURE.md` maps every file.

// Nothing that came from outside may panic the core (a panic traps the wasm module).
#![cfg_attr(not(test), deny(clippy::unwrap_used))]
// What is public is chosen below (and, for tests, in `testing::internals`); anything else stays
// crate-private, and the compiler says so. Checked where the `testing` feature is on (every test
// and clippy run), the build in which the whole surface, internals included, is in view.
#![cfg_attr(feature = "testing", warn(unreachable_pub))]

mod acp;
mod agent;
mod api;
mod approval;
mod attachment;
mod attachment_ref;
mod bounded;
mod conversation;
mod edit_in_place;
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
mod platform;
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
pub use acp::{agent_presets, AgentKind, AgentPreset, PlanEntry};
pub use acp::{is_recorded_agent, leftovers_to_end, AgentRecord, LeftoverDecision};
pub use api::{api_fallbacks, ApiFallbacks, ApiRequest, ApiResponse};
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
pub use edit_in_place::{EditError, EditScope, EditTarget};
pub use event::{Event, NoticeLevel, Stage};
pub use host::Host;
pub use host_types::{HostError, HttpRequest, HttpResponse, LogLevel, Millis, NoteEdit};
pub use hub::client::HubStatus;
pub use llm::embedding_presets::{embedding_presets, meaning_ceiling_covers, CeilingReach, EmbeddingPreset};
pub use llm::presets::{provider_presets, ProviderPreset};
pub use llm::types::ContentBlock;
pub use llm::types::Usage;
pub use llm_client::check::{CheckLine, ConnectionCheck};
pub use mcp::{McpError, McpServer, McpState, McpTool};
pub use message::{InFlightMessage, MessageSource, ProcessResult, RoutedMessage};
pub use platform::{platform_features, Feature, PlatformFacts, PlatformFeatures};
pub use processor::{
    ConversationPage, EditStarted, MessageProcessor, ProcessorError, Related, RelatedNote, ReprocessSummary,
    ScheduleChange, StopAnswer, TurnReview,
};
pub use settings::{split_plugin_data, unknown_fields, PluginDataSplit, SettingsDocument, UnknownField};
pub use settings::{AgentContext, ApiFormat, AuthStyle, EmbeddingsFormat, McpServerConfig, Settings};
pub use undo::AppliedChange;
pub use usage::{parse_price_table, price_table_text, ModelPrice, PriceTableError, UsageTotals};
pub use vault::diff::{ChangeKind, DiffLine, Hunk, LineKind, ProposedChange, UndoRefusal, UndoReport, WordSpan};
pub use vault::{EntryKind, VaultEntry};
