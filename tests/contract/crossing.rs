//! The contract test's samples of what crosses the boundary: what the core sends out (values,
//! every event, and events with their optional fields left out) and what the shim sends in.

use super::*;

/// What the core sends: events, results and the answers of the exported methods.
pub(super) fn outgoing() -> Vec<Sample> {
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
    let started = EditStarted {
        message: RoutedMessage { edit: Some(Box::new(edit_target_full())), ..message_full() },
        scope: EditScope::Paragraph,
        start_line: 3,
        end_line: 6,
        said: "No selection: editing the paragraph at the cursor (lines 3–6).".into(),
    };
    add("edit_started", "Core.EditStarted", to_json(&started), true);
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
pub(super) fn events() -> Vec<Event> {
    vec![
        // An edit in place's message, the one kind that carries `edit`.
        Event::MessageReceived {
            message: RoutedMessage { edit: Some(Box::new(edit_target_full())), ..message_full() },
            conversation_id: Some("conv-1".into()),
        },
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
        Event::MeaningIndex {
            state: "paused".into(),
            done: 0,
            total: 0,
            notes: 120,
            passages: 480,
            bytes: 200_000,
            detail: Some("search by meaning paused: the key was refused".into()),
        },
        Event::HubStatus { status: HubStatus::Error, detail: Some("registration refused".into()) },
        Event::EditProposal { message_id: "msg-1".into(), path: "Notes/Trip.md".into(), hunks: change_full().hunks },
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
        Event::AgentToolsWanted { wanted: true },
        Event::Retrospection {
            conversation_id: "conv-1".into(),
            conversation_title: "Shopping".into(),
            content: "- went well".into(),
        },
    ]
}

/// Events with their optional fields absent, as the core sends them most of the time.
pub(super) fn sparse_events() -> Vec<Event> {
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
pub(super) fn incoming() -> Vec<Sample> {
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
    // Every field a message from outside may carry (not `edit`, which only editInPlace makes).
    samples.push(Sample { name: "routed_message".into(), ts_type: "Core.RoutedMessage", json: message, full: false });
    let mention = to_json(&Mention { path: "Projects".into(), is_folder: true });
    samples.push(Sample { name: "mention".into(), ts_type: "Core.Mention", json: mention, full: true });
    samples
}
