//! The conversation side of the pipeline: the idle boundary decided before a message is
//! processed, the pending question restored into the prompt and updated after the turn, what
//! happens in the background once a conversation ends (title, summary, retrospection), and the
//! periodic cleanup of stale questions.
use std::rc::Rc;

use super::error::ProcessorError;
use super::handle::MessageProcessor;
use super::state::loaded;
use super::worker::target_of;
use crate::agent::TurnOutcome;
use crate::conversation::boundary::{question_is_stale, starts_new_conversation};
use crate::conversation::transcript::render_transcript;
use crate::conversation::{
    Conversation, ConversationStatus, HistoryLine, LineRole, PendingQuestion, StatusEvent, TurnEnd,
};
use crate::event::Event;
use crate::host::Host;
use crate::host_types::LogLevel;
use crate::llm::{ApiMessage, MessagesJson, Role};
use crate::mcp::McpServer;
use crate::message::RoutedMessage;
use crate::prompt::{PromptContext, RecentConversation};
use crate::retrospection::{prepend_section, reflect, RETROSPECTION_PATH};
use crate::settings::Settings;
use crate::store::{StoreError, Target};
use crate::summary::summarize;
use crate::time::format_iso;

/// How often stale questions are looked for.
pub(super) const CLEANUP_INTERVAL_MS: u64 = 15 * 60_000;
/// Longest transcript sent for a summary or a retrospection, in characters.
const TRANSCRIPT_CHARS: usize = 24_000;
/// How many ended conversations the system prompt recalls.
const RECALLED_CONVERSATIONS: usize = 2;

/// What a turn is answered with.
pub(super) struct TurnContext {
    pub history: Rc<MessagesJson>,
    pub prompt: PromptContext,
    /// The conversation's provider session id (an ACP agent's session).
    pub session: Option<String>,
    /// Its session's cost as the ledger last counted it (`agent_usage.rs`).
    pub session_cost: Option<f64>,
}

impl<H: Host + 'static> MessageProcessor<H> {
    /// Before the turn: finds an earlier recording of the message; otherwise starts a new
    /// conversation if the current one has been idle too long, and gathers the context of the
    /// conversation the message goes to (the current one, or a scheduled run's own).
    pub(super) async fn prepare(
        &self,
        message: &RoutedMessage,
        target: &Target,
        settings: &Settings,
        integrations: &[McpServer],
    ) -> Result<Prepared, ProcessorError> {
        let host = &self.inner.host;
        let budget = settings.context_token_budget as usize;
        let mut ended = None;
        let prepared = {
            let mut guard = self.inner.store.lock().await;
            let store = loaded(&mut guard)?;
            let now = host.now_ms();
            let (conversation, history) = match target {
                Target::Conversation(id) => {
                    if let Some(turn) = store.find_recorded(host, target, &message.id).await? {
                        return Ok(Prepared::Recorded(turn));
                    }
                    let conversation = store.find(host, id).await?.ok_or_else(|| StoreError::Unknown(id.clone()))?;
                    (Some(conversation), store.history(host, target, budget).await?)
                }
                Target::Current => {
                    if let Some(turn) = store.find_recorded(host, target, &message.id).await? {
                        return Ok(Prepared::Recorded(turn));
                    }
                    if let (Some(current), Some(last)) = (store.current(), store.last_activity_ms()) {
                        if starts_new_conversation(
                            current,
                            last,
                            now,
                            settings.idle_timeout_ms(),
                            settings.state_timeout_ms(),
                        ) {
                            ended = store.end_current(host, "idle").await?;
                        }
                    }
                    store.forget_unsendable(budget);
                    (store.current().cloned(), store.history(host, target, budget).await?)
                }
            };
            // A scheduled run does not answer the question its conversation may be waiting on.
            let pending_question = conversation
                .as_ref()
                .filter(|c| *target == Target::Current && !question_is_stale(c, now, settings.state_timeout_ms()))
                .and_then(|c| c.state.pending_question.clone());
            let recent = store
                .recently_ended(RECALLED_CONVERSATIONS)
                .into_iter()
                .filter_map(|c| {
                    Some(RecentConversation {
                        title: c.title.clone().unwrap_or_else(|| "Untitled".to_owned()),
                        summary: c.summary.clone()?,
                        ended_at: c.ended_at.clone().unwrap_or_default(),
                    })
                })
                .collect();
            let session = conversation.as_ref().and_then(|c| c.provider_session_id.clone());
            Prepared::Fresh(Box::new(TurnContext {
                session,
                session_cost: conversation.as_ref().and_then(|c| c.agent_session_cost),
                history,
                prompt: PromptContext {
                    pending_question,
                    recent,
                    status: conversation.as_ref().map(|c| c.status),
                    schedule: conversation.as_ref().and_then(|c| c.schedule.clone()),
                    state: conversation.map(|c| c.state).unwrap_or_default(),
                    integrations: integrations.to_vec(),
                    time_zone: host.time_zone(),
                },
            }))
        };
        if let Some(ended) = ended {
            host.log(LogLevel::Info, &format!("conversation {} ended after being idle", ended.id));
            self.conversation_ended(ended);
        }
        Ok(prepared)
    }

    /// After the turn: appends it to its conversation, then applies what the turn decided —
    /// the question it asked (or clears the one it answered, unless the agent kept it open), the
    /// schedule it created, its state changes — in one index write, and ends the conversation
    /// if the agent asked to.
    pub(super) async fn record(&self, message: &RoutedMessage, outcome: &TurnOutcome) -> Result<(), ProcessorError> {
        let host = &self.inner.host;
        let target = target_of(message);
        let mut updated = Vec::new();
        let mut ended = None;
        let id_recorded = {
            let mut guard = self.inner.store.lock().await;
            let store = loaded(&mut guard)?;
            let lines = history_lines(host, message, outcome);
            let (id, before) = match &target {
                Target::Current => {
                    let before = store.current().cloned();
                    store.append_turn(host, &target, lines).await?;
                    let id = store.current().map(|c| c.id.clone());
                    (id.ok_or_else(|| StoreError::Encode("no current conversation".to_owned()))?, before)
                }
                Target::Conversation(id) => {
                    let before = store.find(host, id).await?;
                    store.append_turn(host, &target, lines).await?;
                    (id.clone(), before)
                }
            };
            let asked_at = format_iso(host.now_ms());
            let conversation = store
                .update(host, &id, |c| {
                    if let Some(schedule) = &outcome.schedule {
                        // A run that creates a schedule replaces its own: its bookkeeping ends here.
                        c.schedule = Some(schedule.clone());
                        c.apply(StatusEvent::ScheduleCreated)?;
                    }
                    outcome.state.apply(&mut c.state);
                    if let Some(session) = &outcome.agent_session {
                        c.provider_session_id = Some(session.clone());
                        c.agent_session_cost = outcome.agent_session_cost;
                    }
                    if outcome.end_conversation.is_some() && target != Target::Current {
                        // A scheduled run that is done with its task ends the schedule.
                        c.schedule = None;
                        if c.status == ConversationStatus::Background {
                            c.apply(StatusEvent::ScheduleCleared)?;
                        }
                    }
                    if let Some(q) = &outcome.question {
                        c.state.pending_question = Some(PendingQuestion {
                            kind: q.question_type,
                            prompt: q.prompt.clone(),
                            options: q.options.clone(),
                            created_at: asked_at.clone(),
                        });
                        c.apply(StatusEvent::QuestionAsked)?;
                    } else if c.status == ConversationStatus::WaitingInput
                        && target == Target::Current
                        && !outcome.keep_question
                    {
                        c.state.pending_question = None;
                        c.apply(StatusEvent::QuestionAnswered)?;
                    }
                    Ok(())
                })
                .await?;
            // Opened, titled or changed by this turn (an approval may have opened it mid-turn).
            if before.as_ref() != Some(&conversation) {
                updated.push(conversation);
            }
            if let Some(reason) = &outcome.end_conversation {
                if target == Target::Current {
                    ended = store.end_current(host, reason).await?;
                }
            }
            id
        };
        for conversation in updated {
            self.conversation_changed(conversation);
        }
        self.copy_turn_to_markdown(id_recorded);
        if let Some(ended) = ended {
            self.conversation_ended(ended);
        }
        Ok(())
    }

    /// A conversation ended: the UI is told, and its title, summary and retrospection are made
    /// in the background — never in the way of the user's reply.
    pub(super) fn conversation_ended(&self, ended: Conversation) {
        self.conversation_changed(ended.clone());
        self.spawn(|this| async move { this.after_end(ended).await });
    }

    async fn after_end(&self, ended: Conversation) {
        let host = &self.inner.host;
        let lines = {
            let mut guard = self.inner.store.lock().await;
            match guard.as_mut() {
                Some(store) => store.read_lines(host, &ended.id).await,
                None => return,
            }
        };
        let lines = match lines {
            Ok(lines) if lines.iter().any(|l| l.visible) => lines,
            Ok(_) => return,
            Err(e) => return host.log(LogLevel::Warn, &format!("could not read conversation {}: {e}", ended.id)),
        };
        let transcript = render_transcript(&lines, TRANSCRIPT_CHARS);
        let settings = self.settings();
        let mut title = ended.title.clone().unwrap_or_else(|| "Untitled conversation".to_owned());
        match summarize(&self.background_writer(&settings), &transcript).await {
            Ok(Some(summary)) => {
                let updated = {
                    let mut guard = self.inner.store.lock().await;
                    match guard.as_mut() {
                        Some(store) => {
                            store
                                .update(host, &ended.id, |c| {
                                    if let Some(t) = &summary.title {
                                        c.title = Some(t.clone());
                                    }
                                    c.summary = Some(summary.summary.clone());
                                    Ok(())
                                })
                                .await
                        }
                        None => return,
                    }
                };
                match updated {
                    Ok(conversation) => {
                        title = conversation.title.clone().unwrap_or(title);
                        self.conversation_changed(conversation);
                    }
                    Err(e) => host.log(LogLevel::Warn, &format!("could not save the summary of {}: {e}", ended.id)),
                }
            }
            Ok(None) => host.log(LogLevel::Warn, &format!("the model gave no summary of conversation {}", ended.id)),
            Err(e) => host.log(LogLevel::Warn, &format!("could not summarise conversation {}: {e}", ended.id)),
        }
        if settings.enable_conversation_retrospection {
            self.retrospect(&ended.id, &title, &transcript, &settings).await;
        }
    }

    /// Reflects on an ended conversation into `retrospection.md`. A failure is logged and ignored.
    async fn retrospect(&self, conversation_id: &str, title: &str, transcript: &str, settings: &Settings) {
        let host = &self.inner.host;
        let content = match reflect(&self.background_writer(settings), settings, transcript).await {
            Ok(content) if !content.trim().is_empty() => content,
            Ok(_) => return host.log(LogLevel::Warn, "the retrospection came back empty"),
            Err(e) => return host.log(LogLevel::Warn, &format!("retrospection of {conversation_id} failed: {e}")),
        };
        let written = {
            let _file = self.inner.background.retrospection_file.lock().await;
            let existing =
                match crate::bounded::read_bounded(host, RETROSPECTION_PATH, crate::bounded::MAX_RECORD_BYTES).await {
                    Ok(crate::bounded::Bounded::TooLarge(size)) => {
                        // Too large to prepend to: set aside whole, and a new file begins.
                        let reason =
                            crate::bounded::too_large(RETROSPECTION_PATH, size, crate::bounded::MAX_RECORD_BYTES);
                        crate::bounded::set_aside(host, RETROSPECTION_PATH, "oversized", &reason).await.map(|_| None)
                    }
                    Ok(crate::bounded::Bounded::Text(text)) => Ok(Some(text)),
                    Ok(crate::bounded::Bounded::Missing) => Ok(None),
                    Err(e) => Err(e),
                };
            match existing {
                Ok(existing) => {
                    let text =
                        prepend_section(&existing.unwrap_or_default(), &format_iso(host.now_ms()), title, &content);
                    host.write_file_atomic(RETROSPECTION_PATH, &text).await
                }
                Err(e) => Err(e),
            }
        };
        match written {
            Ok(()) => host.emit(&Event::Retrospection {
                conversation_id: conversation_id.to_owned(),
                conversation_title: title.to_owned(),
                content,
            }),
            Err(e) => host.log(LogLevel::Warn, &format!("could not write {RETROSPECTION_PATH}: {e}")),
        }
    }

    /// Drops pending questions older than `conversationStateTimeoutMinutes`; returns the ids of
    /// the conversations that had one. Runs in `initialize()` and every 15 minutes.
    pub async fn cleanup_stale_states(&self) -> Result<Vec<String>, ProcessorError> {
        let host = &self.inner.host;
        let timeout = self.settings().state_timeout_ms();
        let now = host.now_ms();
        let mut updated = Vec::new();
        {
            let mut guard = self.inner.store.lock().await;
            let Some(store) = guard.as_mut() else { return Ok(Vec::new()) };
            let stale: Vec<String> =
                store.live().iter().filter(|c| question_is_stale(c, now, timeout)).map(|c| c.id.clone()).collect();
            for id in stale {
                let conversation = store
                    .update(host, &id, |c| {
                        c.state.pending_question = None;
                        if c.status == ConversationStatus::WaitingInput {
                            c.apply(StatusEvent::QuestionExpired)?;
                        }
                        Ok(())
                    })
                    .await?;
                updated.push(conversation);
            }
        }
        for conversation in &updated {
            host.log(LogLevel::Info, &format!("dropped the stale question of conversation {}", conversation.id));
            self.conversation_changed(conversation.clone());
        }
        Ok(updated.into_iter().map(|c| c.id).collect())
    }

    /// Starts the periodic cleanup (every 15 minutes, on the host's timer).
    pub(super) fn start_maintenance(&self) {
        self.spawn(|this| async move {
            loop {
                this.inner.host.sleep(CLEANUP_INTERVAL_MS).await;
                if let Err(e) = this.cleanup_stale_states().await {
                    this.inner.host.log(LogLevel::Warn, &format!("stale cleanup failed: {e}"));
                }
                this.prune_approvals().await;
            }
        });
    }
}

/// What `prepare` found: the message was already recorded, or the context to answer it with.
pub(super) enum Prepared {
    Recorded(crate::store::RecordedTurn),
    Fresh(Box<TurnContext>),
}

/// The history lines of a finished turn: the user's message, then what the turn added; the last
/// line closes the turn.
fn history_lines<H: Host>(host: &H, message: &RoutedMessage, outcome: &TurnOutcome) -> Vec<HistoryLine> {
    let ts = format_iso(host.now_ms());
    let user =
        ApiMessage { role: Role::User, content: crate::attachment::user_content(&message.text, &message.attachments) };
    let mut lines: Vec<HistoryLine> = std::iter::once(&user)
        .chain(outcome.messages.iter())
        .enumerate()
        .map(|(n, m)| HistoryLine {
            id: format!("{}#{n}", message.id),
            message_id: message.id.clone(),
            role: match m.role {
                Role::User => LineRole::User,
                Role::Assistant => LineRole::Assistant,
            },
            content: m.content.clone(),
            source: message.source,
            visible: true,
            ts: ts.clone(),
            turn: None,
            context: (n == 0 && !outcome.context.is_empty()).then(|| outcome.context.clone()),
        })
        .collect();
    if let Some(last) = lines.last_mut() {
        last.turn = Some(TurnEnd {
            tools_used: outcome.tools_used.clone(),
            waiting: outcome.waiting(),
            ends_conversation: outcome.end_conversation.clone(),
            usage: (outcome.usage.model_calls > 0).then(|| outcome.usage.clone()),
        });
    }
    lines
}
