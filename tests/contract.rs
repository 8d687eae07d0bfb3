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
        Event::HubStatus { .. },
        Event::ApprovalRequested { .. },
        Event::ApprovalResolved { .. },
        Event::ChangeApplied { .. },
        Event::TurnUndone { .. },
        Event::ScheduledRun { .. },
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

const TS: &str = "2026-03-01T09:30:00.000Z";

fn message_full() -> RoutedMessage {
    RoutedMessage {
        id: "msg-1".into(),
        text: "Add milk to the shopping list".into(),
        timestamp: TS.into(),
        // From the agent API: a source that may carry attachments, with metadata too.
        source: MessageSource::Api,
        metadata: Some(json!({"inputMethod": "voice", "conversationId": "conv-1"}).as_object().cloned().unwrap()),
        attachments: vec![attachment_full()],
    }
}

fn result_full() -> ProcessResult {
    ProcessResult {
        success: false,
        message_id: "msg-1".into(),
        response: Some("Partly done.".into()),
        tools_used: Some(vec!["read_file".into()]),
        error: Some("The model is overloaded.".into()),
        error_code: Some("overloaded".into()),
        is_waiting_for_response: Some(true),
        cancelled: true,
        notice: Some("Stopped after 10 model calls.".into()),
        retryable: true,
        usage: Some(usage_full()),
    }
}

fn usage_full() -> Usage {
    Usage {
        input_tokens: 20,
        cache_creation_input_tokens: 900,
        cache_creation_1h_tokens: 300,
        cache_read_input_tokens: 12_000,
        output_tokens: 450,
        model_calls: 2,
        context_tokens: 13_370,
        model: "claude-sonnet-4-5".into(),
        context_window: 200_000,
        cost_usd: Some(0.0133),
    }
}

fn schedule_full() -> Schedule {
    Schedule {
        kind: ScheduleType::Cron,
        expression: Some("0 8 * * 1-5".into()),
        time_zone: Some("Europe/Berlin".into()),
        run_at: Some(TS.into()),
        next_run_at: Some("2026-03-02T07:00:00.000Z".into()),
        task: "Summarise yesterday's notes".into(),
        end_at: Some("2026-12-31T00:00:00.000Z".into()),
        max_runs: Some(30),
        runs: 3,
        failures: 1,
        paused: true,
        last_error: Some("the model timed out".into()),
        last_run_at: Some(TS.into()),
        integrations: vec!["calendar".into()],
        model: Some("claude-haiku-4-5".into()),
        agent: Some(smarthole_agent::AgentKind::ClaudeCode),
        current_run: Some("sched-conv-1-3".into()),
    }
}

fn conversation_full() -> Conversation {
    Conversation {
        id: "conv-1".into(),
        status: ConversationStatus::WaitingInput,
        title: Some("Shopping".into()),
        summary: Some("Milk added to the list.".into()),
        created_at: TS.into(),
        ended_at: Some(TS.into()),
        end_reason: Some("idle".into()),
        schedule: Some(schedule_full()),
        state: ConversationState {
            context: json!({"list": "Shopping.md"}).as_object().cloned().unwrap(),
            step: Some("confirm".into()),
            data: json!({"added": ["milk"]}).as_object().cloned().unwrap(),
            pending_question: Some(PendingQuestion {
                kind: QuestionType::Choice,
                prompt: "Which list?".into(),
                options: vec!["Shopping".into(), "Groceries".into()],
                created_at: TS.into(),
            }),
        },
        provider_session_id: Some("session-1".into()),
        markdown_copy: Some("Chats/2026-03-01 Weekly plan (conv1).md".into()),
        continues: Some("conv-0".into()),
        continued_in: Some("conv-2".into()),
    }
}

fn approval_full() -> ApprovalRequest {
    ApprovalRequest {
        id: "apr-1".into(),
        action: "delete_file".into(),
        summary: "Delete Notes/Old.md (to the trash)".into(),
        reason: Some("the user asked to clean up".into()),
        details: Some(json!({"path": "Notes/Old.md"})),
        origin: ApprovalOrigin::Api,
        conversation_id: Some("conv-1".into()),
        message_id: Some("msg-1".into()),
        session: Some("api:default".into()),
        created_ms: 1_772_357_400_000,
        expires_ms: 1_772_357_700_000,
        status: ApprovalStatus::Approved,
        scope: Some(ApprovalScope::Conversation),
        note: Some("approved by the user".into()),
        settle_reason: Some(SettleReason::Approved),
        change: Some(Box::new(change_full())),
        accepted_hunks: Some(vec![1]),
        tool_use_id: Some("toolu_1".into()),
    }
}

fn change_full() -> ProposedChange {
    ProposedChange {
        kind: ChangeKind::Move,
        path: "Notes/Old.md".into(),
        to: Some("Archive/Old.md".into()),
        base_hash: "ab12".into(),
        hunks: vec![Hunk {
            number: 1,
            old_start: 1,
            old_lines: 2,
            new_start: 1,
            new_lines: 2,
            lines: vec![
                DiffLine { kind: LineKind::Context, text: "# Old\n".into(), words: vec![] },
                DiffLine {
                    kind: LineKind::Removed,
                    text: "the quick fox\n".into(),
                    words: vec![
                        WordSpan { text: "the ".into(), changed: false },
                        WordSpan { text: "quick".into(), changed: true },
                        WordSpan { text: " fox\n".into(), changed: false },
                    ],
                },
                DiffLine { kind: LineKind::Added, text: "the slow fox\n".into(), words: vec![] },
            ],
        }],
    }
}

fn undo_full() -> UndoReport {
    UndoReport {
        message_id: "msg-1".into(),
        restored: vec!["Notes/Old.md".into()],
        refused: vec![UndoRefusal { path: "Notes/New.md".into(), reason: "it has changed since".into() }],
    }
}

fn blocks() -> Vec<ContentBlock> {
    vec![
        ContentBlock::Text { text: "Done.".into() },
        ContentBlock::ToolUse { id: "toolu_1".into(), name: "read_file".into(), input: json!({"path": "Shopping.md"}) },
        ContentBlock::ToolResult { tool_use_id: "toolu_1".into(), content: "- eggs".into(), is_error: true },
        ContentBlock::image("image/png", "iVBORw0KGgo="),
        ContentBlock::document("application/pdf", "JVBERi0=", "Papers/paper.pdf"),
        ContentBlock::Attachment { attachment: attachment_full() },
    ]
}

fn attachment_full() -> Attachment {
    Attachment {
        kind: AttachmentKind::Image,
        path: "Pasted image.png".into(),
        hash: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad".into(),
        media_type: "image/png".into(),
        bytes: 2048,
        pasted: true,
        cut: Some("cut at line 812 of 3000".into()),
        pixels: Some((640, 480)),
        pages: Some(3),
    }
}

fn history_line_full() -> HistoryLine {
    HistoryLine {
        id: "msg-1#1".into(),
        message_id: "msg-1".into(),
        role: LineRole::Assistant,
        content: blocks(),
        source: MessageSource::Direct,
        visible: true,
        ts: TS.into(),
        turn: Some(TurnEnd {
            tools_used: vec!["read_file".into()],
            waiting: true,
            ends_conversation: Some("the user said goodbye".into()),
            usage: Some(usage_full()),
        }),
        context: Some("<context>\nCurrent time (UTC): 2026-03-01T09:30:00.000Z.\n</context>".into()),
    }
}

fn settings_full() -> Settings {
    Settings {
        base_url: "http://127.0.0.1:8092".into(),
        api_format: smarthole_agent::ApiFormat::Openai,
        auth_style: smarthole_agent::AuthStyle::Bearer,
        model: "local-model".into(),
        max_tokens: 2048,
        api_key: "sk-test".into(),
        background_model: "qwen3".into(),
        background_base_url: "http://127.0.0.1:11434".into(),
        background_api_format: smarthole_agent::ApiFormat::Openai,
        background_auth_style: smarthole_agent::AuthStyle::Bearer,
        background_api_key: "local".into(),
        streaming: false,
        max_iterations: 5,
        stream_idle_timeout_ms: 30_000,
        response_start_timeout_ms: 20_000,
        notification_title: "Vault".into(),
        context_token_budget: 20_000,
        information_architecture: "Projects/ for projects".into(),
        verbose_logging: true,
        conversation_idle_timeout_minutes: 15,
        conversation_state_timeout_minutes: 30,
        markdown_copies: true,
        markdown_copies_folder: "Notes/Chats".into(),
        enable_conversation_retrospection: true,
        retrospection_prompt: "What went well?".into(),
        hub_enabled: false,
        hub_url: "ws://127.0.0.1:9000".into(),
        hub_client_name: "vault-agent".into(),
        hub_description: "Notes".into(),
        protected_folders: vec!["Private".into()],
        auto_approve_tools: vec!["write_file".into()],
        follow_linked_folders: true,
        search_index_max_mb: 128,
        mcp_servers: vec![mcp_config_full()],
        agent_api_enabled: true,
        agent_api_port: 8123,
        agent_api_token: "0123456789abcdef0123456789abcdef".into(),
        verification_timeout_seconds: 60,
        agent_contexts: vec![AgentContext {
            name: "coder".into(),
            port: Some(8124),
            system: "A vault".into(),
            role: "A coding agent".into(),
            base_instruction: "Ask first.".into(),
            allowed_actions: vec!["git_push".into()],
            verification_required: false,
        }],
        model_prices: vec![ModelPrice {
            model: "local-model".into(),
            input_per_mtok: 0.5,
            output_per_mtok: 1.5,
            context_window: 32_768,
        }],
        agent: smarthole_agent::AgentKind::ClaudeCode,
        agent_command: "/opt/bin/claude-agent-acp --verbose".into(),
        agent_own_tools: true,
        agent_env_hidden: vec!["ANTHROPIC_API_KEY".into()],
    }
}

/// Not a real server (it has both a command and a URL): every field is set.
fn mcp_config_full() -> McpServerConfig {
    McpServerConfig {
        name: "everything".into(),
        command: Some("npx".into()),
        args: vec!["server-everything".into()],
        env: BTreeMap::from([("DEBUG".into(), "1".into())]),
        url: Some("http://127.0.0.1:3001/mcp".into()),
        headers: BTreeMap::from([("authorization".into(), "Bearer t".into())]),
    }
}

/// What the core sends: events, results and the answers of the exported methods.
fn outgoing() -> Vec<Sample> {
    let mut samples = Vec::new();
    let mut add = |name: &str, ts_type: &'static str, json: Value, full: bool| {
        samples.push(Sample { name: name.to_owned(), ts_type, json, full });
    };

    for (events, full, suffix) in [(events(), true, ""), (sparse_events(), false, "_sparse")] {
        for event in events {
            let json = to_json(&event);
            let tag = json["type"].as_str().expect("events are tagged").to_owned();
            add(&format!("event_{tag}{suffix}"), "Core.CoreEvent", json, full);
        }
    }
    let waiting = ProcessResult::success("msg-2", "Which list?".into(), vec!["send_message".into()], true);
    let failed = ProcessResult::failure("msg-3", "auth_error", "The API key was refused.".into());
    add("result_full", "Core.ProcessResult", to_json(&result_full()), true);
    add("result_success", "Core.ProcessResult", to_json(&waiting), false);
    add("result_failure", "Core.ProcessResult", to_json(&failed), false);
    add("result_cancelled", "Core.ProcessResult", to_json(&ProcessResult::cancelled("msg-4")), false);
    let summary = ReprocessSummary { results: vec![result_full()], moved_to_failed: vec!["broken.json".into()] };
    add("reprocess_summary", "Core.ReprocessSummary", to_json(&summary), true);
    add("conversation_full", "Core.Conversation", to_json(&conversation_full()), true);
    let fresh = Conversation::new("conv-2".into(), TS.into());
    add("conversation_new", "Core.Conversation", to_json(&fresh), false);
    add("history_line", "Core.HistoryLine", to_json(&history_line_full()), true);
    let page = ConversationPage { lines: vec![history_line_full()], before: Some(4096) };
    add("conversation_page", "Core.ConversationPage", to_json(&page), true);
    add("conversation_page_first", "Core.ConversationPage", to_json(&ConversationPage::default()), false);
    let phone = PlatformFacts { mobile: true, can_start_programs: false, can_listen: false };
    let job = InFlightMessage { message_id: "msg-2".into(), conversation_id: Some("conv-2".into()) };
    let stop = StopAnswer { stopped: Some("msg-1".into()), in_flight: vec![job] };
    add("stop_answer", "Core.StopAnswer", to_json(&stop), true);
    add("stop_answer_idle", "Core.StopAnswer", to_json(&StopAnswer { stopped: None, in_flight: vec![] }), false);
    add("platform_phone", "Core.PlatformFeatures", to_json(&platform_features(phone)), true);
    add("platform_computer", "Core.PlatformFeatures", to_json(&platform_features(PlatformFacts::default())), false);
    for block in blocks() {
        let json = to_json(&block);
        let tag = json["type"].as_str().expect("blocks are tagged").to_owned();
        add(&format!("content_block_{tag}"), "Core.ContentBlock", json, true);
    }
    add("approval_full", "Core.ApprovalRequest", to_json(&approval_full()), true);
    add("undo_report", "Core.UndoReport", to_json(&undo_full()), true);
    let review = TurnReview {
        approvals: vec![approval_full()],
        changes: vec![AppliedChange {
            tool_use_id: "toolu_1".into(),
            change: change_full(),
            applied_hunks: vec![1],
            undone: true,
        }],
    };
    add("turn_review", "Core.TurnReview", to_json(&review), true);
    add(
        "api_response",
        "Core.ApiResponse",
        to_json(&ApiResponse {
            status: 429,
            body: r#"{"error":"busy"}"#.into(),
            headers: vec![("retry-after".into(), "5".into())],
        }),
        true,
    );
    add("api_response_plain", "Core.ApiResponse", to_json(&ApiResponse::json(200, &json!({"ok": true}))), false);
    add(
        "api_listeners",
        "ReturnType<Core.MessageProcessor[\"agentApiListeners\"]>",
        to_json(&listeners(&settings_full())),
        true,
    );
    add("settings_default", "ReturnType<typeof Core.defaultSettings>", to_json(&Settings::default()), false);
    let totals = UsageTotals {
        today: usage_full(),
        month: usage_full(),
        day_start: TS.into(),
        month_start: "2026-02-28T23:00:00.000Z".into(),
    };
    add("usage_totals", "Core.UsageTotals", to_json(&totals), true);
    add("usage_sparse", "Core.Usage", to_json(&Usage::default()), false);
    let check = ConnectionCheck {
        lines: vec![
            CheckLine {
                step: "reachable".into(),
                ok: true,
                text: "http://127.0.0.1:8092 answers".into(),
                optional: false,
            },
            CheckLine { step: "images".into(), ok: false, text: "smollm2 does not take images".into(), optional: true },
        ],
        models: vec!["smollm2".into()],
        ok: true,
    };
    add("connection_check", "Core.ConnectionCheck", to_json(&check), true);
    add(
        "provider_presets",
        "ReturnType<typeof Core.providerPresets>",
        to_json(&smarthole_agent::provider_presets()),
        false,
    );
    add("agent_presets", "ReturnType<typeof Core.agentPresets>", to_json(&smarthole_agent::agent_presets()), false);
    samples
}

/// One event of each variant (every optional field present), in declaration order.
fn events() -> Vec<Event> {
    vec![
        Event::MessageReceived { message: message_full(), conversation_id: Some("conv-1".into()) },
        Event::Stage { message_id: "msg-1".into(), conversation_id: Some("conv-1".into()), stage: Stage::ModelRequest },
        Event::TextDelta { message_id: "msg-1".into(), conversation_id: Some("conv-1".into()), text: "Added".into() },
        Event::Retrying {
            message_id: "msg-1".into(),
            conversation_id: Some("conv-1".into()),
            attempt: 2,
            delay_ms: 4000,
            delay_seconds: 4,
            error_code: "overloaded".into(),
            error: "The model is overloaded.".into(),
        },
        Event::Waiting {
            message_id: "msg-1".into(),
            conversation_id: Some("conv-1".into()),
            text: "Waiting for api.example.com to begin answering (10 s so far; gives up at 90 s)…".into(),
        },
        Event::ToolStarted {
            message_id: "msg-1".into(),
            conversation_id: Some("conv-1".into()),
            tool_use_id: "toolu_1".into(),
            name: "read_file".into(),
            words: "Read Shopping.md".into(),
            input: json!({"path": "Shopping.md"}),
        },
        Event::InFlight {
            messages: vec![InFlightMessage { message_id: "msg-1".into(), conversation_id: Some("conv-1".into()) }],
        },
        Event::ToolFinished {
            message_id: "msg-1".into(),
            conversation_id: Some("conv-1".into()),
            tool_use_id: "toolu_1".into(),
            name: "read_file".into(),
            is_error: true,
            output: "no such note".into(),
        },
        Event::Plan {
            message_id: "msg-1".into(),
            conversation_id: Some("conv-1".into()),
            entries: vec![smarthole_agent::PlanEntry {
                content: "Read the list".into(),
                status: "in_progress".into(),
                priority: "high".into(),
            }],
        },
        Event::AgentMessage {
            message_id: "msg-1".into(),
            conversation_id: Some("conv-1".into()),
            content: "Which list?".into(),
            is_question: true,
            question_type: Some(QuestionType::Choice),
            options: vec!["Shopping".into(), "Groceries".into()],
        },
        Event::Response { result: result_full(), conversation_id: Some("conv-1".into()) },
        Event::Notice { level: NoticeLevel::Warning, text: "msg-9 moved to failed/".into() },
        Event::ConversationUpdated { conversation: Box::new(conversation_full()) },
        Event::SearchIndex { state: "building".into(), done: 500, total: 20_000, bytes: 1_048_576 },
        Event::HubStatus { status: HubStatus::Error, detail: Some("registration refused".into()) },
        Event::ApprovalRequested { request: Box::new(approval_full()) },
        Event::ApprovalResolved { request: Box::new(approval_full()) },
        Event::ChangeApplied {
            message_id: "msg-1".into(),
            conversation_id: Some("conv-1".into()),
            tool_use_id: "toolu_1".into(),
            change: Box::new(change_full()),
            applied_hunks: vec![1],
        },
        Event::TurnUndone { report: Box::new(undo_full()) },
        Event::ScheduledRun {
            conversation_id: "conv-1".into(),
            message_id: "sched-1".into(),
            ok: false,
            text: "x".into(),
        },
        Event::Retrospection {
            conversation_id: "conv-1".into(),
            conversation_title: "Shopping".into(),
            content: "- went well".into(),
        },
    ]
}

/// Events with their optional fields absent, as the core sends them most of the time.
fn sparse_events() -> Vec<Event> {
    vec![
        Event::AgentMessage {
            message_id: "msg-1".into(),
            conversation_id: None,
            content: "On it.".into(),
            is_question: false,
            question_type: None,
            options: vec![],
        },
        Event::HubStatus { status: HubStatus::Connected, detail: None },
    ]
}

/// What the shim sends: each sample is the JSON the declaration allows, with every field, and
/// the value the core must read from it.
fn incoming() -> Vec<Sample> {
    let mut samples = Vec::new();

    // Read as `Settings::from_json` reads them, without its validation: `mcp_config_full` has
    // both a command and a URL so that every field is present.
    let settings = to_json(&settings_full());
    assert_eq!(read::<Settings>(&settings), settings_full());
    let defaults = to_json(&Settings::default());
    for (key, value) in settings.as_object().unwrap() {
        assert_ne!(Some(value), defaults.get(key), "settings_full must set {key} to something other than its default");
    }
    let facts = PlatformFacts { mobile: true, can_start_programs: false, can_listen: false };
    assert_eq!(read::<PlatformFacts>(&to_json(&facts)), facts);
    samples.push(Sample {
        name: "platform_facts".into(),
        ts_type: "Required<Core.PlatformFacts>",
        json: to_json(&facts),
        full: true,
    });
    samples.push(Sample {
        name: "settings_full".into(),
        ts_type: "Required<Core.CoreSettings>",
        json: settings,
        full: true,
    });

    let request = json!({
        "method": "POST",
        "url": "/verify?wait=10",
        "headers": {"authorization": "Bearer t"},
        "body": "{}",
        "bodyTooLarge": true,
        "localPort": 8123,
    });
    let expected = ApiRequest {
        method: "POST".into(),
        url: "/verify?wait=10".into(),
        headers: BTreeMap::from([("authorization".into(), "Bearer t".into())]),
        body: "{}".into(),
        body_too_large: true,
        local_port: 8123,
    };
    assert_eq!(read::<ApiRequest>(&request), expected);
    samples.push(Sample { name: "api_request".into(), ts_type: "Core.ApiRequest", json: request, full: true });

    let entry = json!({"path": "Notes", "isFolder": true, "size": 12, "createdMs": 1, "modifiedMs": 2});
    let expected = VaultEntry {
        path: "Notes".into(),
        is_folder: true,
        size: 12,
        created_ms: 1,
        modified_ms: 2,
        kind: EntryKind::Plain,
        real_path: None,
    };
    assert_eq!(read::<VaultEntry>(&entry), expected);
    samples.push(Sample {
        name: "vault_entry_without_kind".into(),
        ts_type: "Core.VaultEntry",
        json: entry,
        full: false,
    });
    let entry = json!({"path": "Self", "isFolder": true, "size": 0, "createdMs": 1, "modifiedMs": 2, "kind": "plain", "realPath": "Notes"});
    let expected = VaultEntry {
        path: "Self".into(),
        is_folder: true,
        size: 0,
        created_ms: 1,
        modified_ms: 2,
        kind: EntryKind::Plain,
        real_path: Some("Notes".into()),
    };
    assert_eq!(read::<VaultEntry>(&entry), expected);
    samples.push(Sample { name: "vault_entry".into(), ts_type: "Core.VaultEntry", json: entry, full: true });
    for (text, kind) in [
        ("plain", EntryKind::Plain),
        ("outside", EntryKind::Outside),
        ("linked", EntryKind::Linked),
        ("dangling", EntryKind::Dangling),
        ("loop", EntryKind::Loop),
        ("fifo", EntryKind::Fifo),
        ("socket", EntryKind::Socket),
        ("device", EntryKind::Device),
    ] {
        let entry =
            json!({"path": "x.md", "isFolder": false, "size": 0, "createdMs": 0, "modifiedMs": 0, "kind": text});
        assert_eq!(read::<VaultEntry>(&entry).kind, kind, "{text}");
        samples.push(Sample {
            name: format!("vault_entry_{text}"),
            ts_type: "Core.VaultEntry",
            json: entry,
            full: false,
        });
    }

    let server = json!({
        "name": "everything",
        "state": "failed",
        "error": "spawn npx ENOENT",
        "tools": [{"name": "echo", "description": "Echoes", "inputSchema": {"type": "object"}}],
    });
    let expected = McpServer {
        name: "everything".into(),
        state: McpState::Failed,
        error: Some("spawn npx ENOENT".into()),
        tools: vec![McpTool {
            name: "echo".into(),
            description: "Echoes".into(),
            input_schema: json!({"type": "object"}),
        }],
    };
    assert_eq!(read::<McpServer>(&server), expected);
    samples.push(Sample { name: "mcp_server".into(), ts_type: "Core.McpServerInfo", json: server, full: true });

    let message = to_json(&message_full());
    assert_eq!(parse_routed(&message, "unused").unwrap(), message_full());
    samples.push(Sample { name: "routed_message".into(), ts_type: "Core.RoutedMessage", json: message, full: true });
    let mention = to_json(&Mention { path: "Projects".into(), is_folder: true });
    samples.push(Sample { name: "mention".into(), ts_type: "Core.Mention", json: mention, full: true });
    samples
}

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
