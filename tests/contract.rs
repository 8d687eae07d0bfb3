//! The contract between the core and the shim: one JSON value of each shape that crosses the wasm
//! boundary, written to `target/contract/samples.ts`, each tagged with the TypeScript declaration
//! the shim reads it as (from `smarthole-core`, i.e. `src/wasm/mod.rs`'s `TS_TYPES`).
//! `tests/contract/check.ts` then has `tsc` reject any drift (run both with
//! `node scripts/contract.mjs`):
//!
//! - a field the core sends that the declaration lacks, misnames or types differently (each sample
//!   `satisfies` its declaration, object-literal excess checks included);
//! - a field the declaration has that the core never sends (samples marked full carry every
//!   optional field, and check.ts compares their keys at every depth);
//! - an event type, content block type or enum value on one side only.
//!
//! The Rust side cannot forget a shape either: every sample is built with a struct literal (a new
//! field does not compile until it is given a value here), and every variant of `Event`,
//! `ContentBlock` and the string enums is listed in an exhaustive `match` (a new variant does not
//! compile until it is listed, and the test fails until it has a sample).
//!
//! Values serialise through `serde_json`, as `wasm::convert::to_js` does. Values the shim sends
//! the other way (settings, agent API requests, vault listings, MCP servers, messages) are samples
//! too; here they must deserialise into the value they name, field for field.
//!
//! The samples are in `contract/values.rs` (one full value of each shape) and
//! `contract/crossing.rs` (what the core sends out, every event, what the shim sends in); the
//! enums, the variant checks and the writing of the TypeScript file are here.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;
use serde_json::{json, Value};
use smarthole_agent::testing::internals::listeners;
use smarthole_agent::testing::internals::parse_routed;
use smarthole_agent::ContentBlock;
use smarthole_agent::HubStatus;
use smarthole_agent::LogLevel;
use smarthole_agent::ReprocessSummary;
use smarthole_agent::{platform_features, PlatformFacts};
use smarthole_agent::{AgentContext, McpServerConfig, Settings};
use smarthole_agent::{ApiRequest, ApiResponse};
use smarthole_agent::{
    AppliedChange, ChangeKind, DiffLine, Hunk, LineKind, ProposedChange, TurnReview, UndoRefusal, UndoReport, WordSpan,
};
use smarthole_agent::{ApprovalOrigin, ApprovalRequest, ApprovalScope, ApprovalStatus, Decision, SettleReason};
use smarthole_agent::{Attachment, AttachmentKind, Mention, MessageSource, ProcessResult, RoutedMessage};
use smarthole_agent::{CheckLine, ConnectionCheck, ModelPrice, Usage, UsageTotals};
use smarthole_agent::{
    Conversation, ConversationPage, ConversationState, ConversationStatus, HistoryLine, LineRole, PendingQuestion,
    QuestionType, Schedule, ScheduleType, TurnEnd,
};
use smarthole_agent::{EditScope, EditStarted, EditTarget};
use smarthole_agent::{EntryKind, VaultEntry};
use smarthole_agent::{Event, NoticeLevel, Stage};
use smarthole_agent::{InFlightMessage, StopAnswer};
use smarthole_agent::{McpServer, McpState, McpTool};

/// One value and the TypeScript type it must be.
struct Sample {
    name: String,
    /// A type expression over `Core` (the `smarthole-core` declarations).
    ts_type: &'static str,
    json: Value,
    /// Every optional field is present, at every depth: the declaration may have no other.
    full: bool,
}

/// Every value of a string enum, and the TypeScript union that must have exactly these.
struct EnumSample {
    name: &'static str,
    ts_type: &'static str,
    values: Vec<Value>,
}

/// Every variant of a field-less enum, in a `match` that stops compiling when one is added.
macro_rules! every {
    ($ty:ident { $($variant:ident),+ $(,)? }) => {{
        #[allow(dead_code)]
        fn exhaustive(value: $ty) {
            match value {
                $($ty::$variant => {}),+
            }
        }
        vec![$($ty::$variant),+]
    }};
}

/// The index of `value`'s variant among the listed patterns, and how many there are. The
/// `match` over the same patterns stops compiling when the enum gains a variant.
macro_rules! variant_index {
    ($value:expr; $($pattern:pat),+ $(,)?) => {{
        let value = $value;
        match value {
            $($pattern => {}),+
        }
        let mut index = None;
        let mut count = 0usize;
        $(
            if index.is_none() && matches!(value, $pattern) {
                index = Some(count);
            }
            count += 1;
        )+
        (index.expect("the match above is exhaustive"), count)
    }};
}

fn event_variant(event: &Event) -> (usize, usize) {
    variant_index!(event;
        Event::MessageReceived { .. },
        Event::Stage { .. },
        Event::TextDelta { .. },
        Event::Retrying { .. },
        Event::Waiting { .. },
        Event::ToolStarted { .. },
        Event::InFlight { .. },
        Event::ToolFinished { .. },
        Event::Plan { .. },
        Event::AgentMessage { .. },
        Event::Response { .. },
        Event::Notice { .. },
        Event::ConversationUpdated { .. },
        Event::SearchIndex { .. },
        Event::MeaningIndex { .. },
        Event::HubStatus { .. },
        Event::EditProposal { .. },
        Event::ApprovalRequested { .. },
        Event::ApprovalResolved { .. },
        Event::ChangeApplied { .. },
        Event::TurnUndone { .. },
        Event::ScheduledRun { .. },
        Event::AgentToolsWanted { .. },
        Event::Retrospection { .. },
    )
}

fn block_variant(block: &ContentBlock) -> (usize, usize) {
    variant_index!(block;
        ContentBlock::Text { .. },
        ContentBlock::ToolUse { .. },
        ContentBlock::ToolResult { .. },
        ContentBlock::Image { .. },
        ContentBlock::Document { .. },
        ContentBlock::Attachment { .. },
    )
}

fn to_json(value: &impl Serialize) -> Value {
    serde_json::to_value(value).expect("serialisable")
}

/// A value read from JSON text, as the wasm boundary reads what the shim sends.
fn read<T: serde::de::DeserializeOwned>(json: &Value) -> T {
    serde_json::from_str(&json.to_string()).expect("readable")
}

#[path = "contract/crossing.rs"]
mod crossing;
#[path = "contract/values.rs"]
mod values;

use crossing::{events, incoming, outgoing};
use values::*;

/// Every value of each string enum that crosses the boundary.
fn enums() -> Vec<EnumSample> {
    fn values<T: Serialize>(all: Vec<T>) -> Vec<Value> {
        all.iter().map(to_json).collect()
    }
    let decisions = every!(Decision { ApproveOnce, ApproveConversation, Reject });
    for decision in &decisions {
        assert_eq!(&read::<Decision>(&to_json(decision)), decision);
    }
    let levels = every!(LogLevel { Debug, Info, Warn, Error });
    vec![
        EnumSample {
            name: "enum_stage",
            ts_type: "Core.PipelineStage",
            values: values(every!(Stage { InboxWritten, AckSent, ModelRequest, HistoryRecorded, InboxCleaned })),
        },
        EnumSample {
            name: "enum_notice_level",
            ts_type: "Extract<Core.CoreEvent, { type: \"notice\" }>[\"level\"]",
            values: values(every!(NoticeLevel { Info, Warning, Error })),
        },
        EnumSample {
            name: "enum_hub_status",
            ts_type: "Core.HubStatus",
            values: values(every!(HubStatus { Disabled, Disconnected, Connecting, Connected, Error })),
        },
        EnumSample {
            name: "enum_message_source",
            ts_type: "Core.MessageSource",
            values: values(every!(MessageSource { Websocket, Direct, Worker, System, Api })),
        },
        EnumSample {
            name: "enum_question_type",
            ts_type: "Core.QuestionType",
            values: values(every!(QuestionType { Confirmation, Choice, Input })),
        },
        EnumSample {
            name: "enum_pending_question_type",
            ts_type: "Core.PendingQuestion[\"type\"]",
            values: values(every!(QuestionType { Confirmation, Choice, Input })),
        },
        EnumSample {
            name: "enum_conversation_status",
            ts_type: "Core.ConversationStatus",
            values: values(every!(ConversationStatus { Active, Background, WaitingInput, Archived })),
        },
        EnumSample {
            name: "enum_schedule_type",
            ts_type: "Core.Schedule[\"type\"]",
            values: values(every!(ScheduleType { Cron, Scheduled, Immediate })),
        },
        EnumSample {
            name: "enum_line_role",
            ts_type: "Core.HistoryLine[\"role\"]",
            values: values(every!(LineRole { User, Assistant, System })),
        },
        EnumSample {
            name: "enum_approval_status",
            ts_type: "Core.ApprovalStatus",
            values: values(every!(ApprovalStatus { Pending, Approved, Rejected, Expired })),
        },
        EnumSample {
            name: "enum_settle_reason",
            ts_type: "Core.SettleReason",
            values: values(every!(SettleReason {
                Approved,
                Rejected,
                Timeout,
                Stopped,
                Restarted,
                NotAllowed,
                NotRequired,
                SessionGrant
            })),
        },
        EnumSample {
            name: "enum_approval_origin",
            ts_type: "Core.ApprovalRequest[\"origin\"]",
            values: values(every!(ApprovalOrigin { Tool, Api })),
        },
        EnumSample {
            name: "enum_approval_scope",
            ts_type: "NonNullable<Core.ApprovalRequest[\"scope\"]>",
            values: values(every!(ApprovalScope { Once, Conversation })),
        },
        EnumSample {
            name: "enum_change_kind",
            ts_type: "Core.ProposedChange[\"kind\"]",
            values: values(every!(ChangeKind { Edit, Overwrite, Create, Move, Delete })),
        },
        EnumSample {
            name: "enum_diff_line_kind",
            ts_type: "Core.DiffLine[\"kind\"]",
            values: values(every!(LineKind { Context, Removed, Added })),
        },
        EnumSample { name: "enum_approval_decision", ts_type: "Core.ApprovalDecision", values: values(decisions) },
        EnumSample {
            name: "enum_mcp_state",
            ts_type: "Core.McpServerInfo[\"state\"]",
            values: values(every!(McpState { Connected, Connecting, Failed, Unauthorized, Unsupported })),
        },
        EnumSample {
            name: "enum_log_level",
            ts_type: "Parameters<Core.CoreHost[\"log\"]>[0]",
            values: levels.iter().map(|l| Value::from(l.as_str())).collect(),
        },
    ]
}

/// The samples as a TypeScript module: each value `satisfies` its declaration, and the `Samples`
/// and `Enums` maps tell check.ts what to compare.
fn render(samples: &[Sample], enums: &[EnumSample]) -> String {
    let mut out = String::from(
        "// Generated by tests/contract.rs (`cargo test --test contract`); checked by tests/contract/check.ts.\n\
         // The core's JSON, one value of each shape, each against the declaration the shim reads it as.\n\
         import type * as Core from \"smarthole-core\";\n",
    );
    for s in samples {
        let json = serde_json::to_string_pretty(&s.json).unwrap();
        write!(out, "\nexport const {} = {json} satisfies {};\n", s.name, s.ts_type).unwrap();
    }
    for e in enums {
        let json = serde_json::to_string(&e.values).unwrap();
        write!(out, "\nexport const {} = {json} satisfies ({})[];\n", e.name, e.ts_type).unwrap();
    }
    out.push_str("\n/** Each sample: its type, the declaration, whether every optional field is present. */\n");
    out.push_str("export type Samples = {\n");
    for s in samples {
        writeln!(out, "  {0}: [typeof {0}, {1}, {2}];", s.name, s.ts_type, s.full).unwrap();
    }
    out.push_str("};\n\n/** Each enum: the values the core has, the union the declaration has. */\n");
    out.push_str("export type Enums = {\n");
    for e in enums {
        writeln!(out, "  {0}: [(typeof {0})[number], {1}];", e.name, e.ts_type).unwrap();
    }
    out.push_str("};\n");
    out
}

#[test]
fn every_event_and_content_block_has_a_sample() {
    let events = events();
    let count = event_variant(&events[0]).1;
    for variant in 0..count {
        assert!(events.iter().any(|e| event_variant(e).0 == variant), "Event variant #{variant} has no sample");
    }
    let blocks = blocks();
    for variant in 0..block_variant(&blocks[0]).1 {
        assert!(blocks.iter().any(|b| block_variant(b).0 == variant), "ContentBlock variant #{variant} has no sample");
    }
}

#[test]
fn samples_are_written_for_the_typescript_check() {
    let mut samples = outgoing();
    samples.extend(incoming());
    let mut names: Vec<&str> = samples.iter().map(|s| s.name.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), samples.len(), "sample names are unique");

    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/contract");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("samples.ts"), render(&samples, &enums())).unwrap();
}
