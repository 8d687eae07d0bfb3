//! The contract test's full samples: one value of each shape with every optional field set
//! (`contract.rs` checks them against the declarations).

use super::*;

pub(super) const TS: &str = "2026-03-01T09:30:00.000Z";

pub(super) fn message_full() -> RoutedMessage {
    RoutedMessage {
        id: "msg-1".into(),
        text: "Add milk to the shopping list".into(),
        timestamp: TS.into(),
        // From the agent API: a source that may carry attachments, with metadata too.
        source: MessageSource::Api,
        metadata: Some(json!({"inputMethod": "voice", "conversationId": "conv-1"}).as_object().cloned().unwrap()),
        attachments: vec![attachment_full()],
        // Made by editInPlace only: a message from outside never carries it (see edit_started).
        edit: None,
    }
}

pub(super) fn edit_target_full() -> EditTarget {
    EditTarget {
        path: "Notes/Trip.md".into(),
        start_line: 3,
        lines: "We leave on monday.\n".into(),
        from: 0,
        to: 19,
        scope: EditScope::Selection,
        instruction: "fix the day".into(),
    }
}

pub(super) fn result_full() -> ProcessResult {
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

pub(super) fn usage_full() -> Usage {
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

pub(super) fn schedule_full() -> Schedule {
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

pub(super) fn conversation_full() -> Conversation {
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
        agent_session_cost: Some(0.25),
        markdown_copy: Some("Chats/2026-03-01 Weekly plan (conv1).md".into()),
        continues: Some("conv-0".into()),
        continued_in: Some("conv-2".into()),
    }
}

pub(super) fn approval_full() -> ApprovalRequest {
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
        whole_only: true,
    }
}

pub(super) fn change_full() -> ProposedChange {
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

pub(super) fn undo_full() -> UndoReport {
    UndoReport {
        message_id: "msg-1".into(),
        restored: vec!["Notes/Old.md".into()],
        refused: vec![UndoRefusal { path: "Notes/New.md".into(), reason: "it has changed since".into() }],
    }
}

pub(super) fn blocks() -> Vec<ContentBlock> {
    vec![
        ContentBlock::Text { text: "Done.".into() },
        ContentBlock::ToolUse { id: "toolu_1".into(), name: "read_file".into(), input: json!({"path": "Shopping.md"}) },
        ContentBlock::ToolResult { tool_use_id: "toolu_1".into(), content: "- eggs".into(), is_error: true },
        ContentBlock::image("image/png", "iVBORw0KGgo="),
        ContentBlock::document("application/pdf", "JVBERi0=", "Papers/paper.pdf"),
        ContentBlock::Attachment { attachment: attachment_full() },
    ]
}

pub(super) fn attachment_full() -> Attachment {
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

pub(super) fn history_line_full() -> HistoryLine {
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

pub(super) fn settings_full() -> Settings {
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
        embeddings_base_url: "http://127.0.0.1:11434".into(),
        embeddings_model: "nomic-embed-text".into(),
        embeddings_format: smarthole_agent::EmbeddingsFormat::Ollama,
        embeddings_api_key: "embed-key".into(),
        meaning_index_max_mb: 96,
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
pub(super) fn mcp_config_full() -> McpServerConfig {
    McpServerConfig {
        name: "everything".into(),
        command: Some("npx".into()),
        args: vec!["server-everything".into()],
        env: BTreeMap::from([("DEBUG".into(), "1".into())]),
        url: Some("http://127.0.0.1:3001/mcp".into()),
        headers: BTreeMap::from([("authorization".into(), "Bearer t".into())]),
    }
}
