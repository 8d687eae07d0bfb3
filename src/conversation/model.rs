//! The conversation model of seed 001: status, schedule, state with its pending question, title,
//! summary and timestamps — and the one pure function every status change goes through.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use thiserror::Error;

/// What a conversation is doing (seed 001).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum ConversationStatus {
    /// A normal chat with no background work.
    #[default]
    Active,
    /// Scheduled work runs in it; the worker picks it up when `next_run_at` comes.
    Background,
    /// The agent asked a question and waits for the answer.
    WaitingInput,
    /// Complete or inactive.
    Archived,
}

impl ConversationStatus {
    /// Every status, for tables.
    pub const ALL: [ConversationStatus; 4] = [
        ConversationStatus::Active,
        ConversationStatus::Background,
        ConversationStatus::WaitingInput,
        ConversationStatus::Archived,
    ];
}

/// What happened to a conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StatusEvent {
    /// The agent scheduled background work.
    ScheduleCreated,
    /// The schedule ended (a one-time run finished, or it was deleted).
    ScheduleCleared,
    /// The agent asked the user something.
    QuestionAsked,
    /// The user's reply was processed.
    QuestionAnswered,
    /// The pending question went stale and was cleared.
    QuestionExpired,
    /// The conversation ended (`end_conversation`, idle rollover, the user).
    Ended,
    /// The user opened an archived conversation to go on with it.
    Reopened,
}

impl StatusEvent {
    /// Every event, for tables.
    pub const ALL: [StatusEvent; 7] = [
        StatusEvent::ScheduleCreated,
        StatusEvent::ScheduleCleared,
        StatusEvent::QuestionAsked,
        StatusEvent::QuestionAnswered,
        StatusEvent::QuestionExpired,
        StatusEvent::Ended,
        StatusEvent::Reopened,
    ];
}

/// A status change that is not allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("a conversation that is {from:?} cannot take {event:?}")]
pub struct TransitionError {
    pub from: ConversationStatus,
    pub event: StatusEvent,
}

/// The next status. `has_schedule` tells where a conversation goes when it stops waiting or
/// ends: back to its background work, or to a plain chat (or the archive).
///
/// Rules worth knowing: a question can be asked again while one waits (the agent re-presents
/// it); a schedule created while a question waits keeps the conversation waiting (the answer
/// then sends it to `background`); a conversation with a schedule is not archived when it ends —
/// its work goes on; only an archived conversation can be reopened.
pub(crate) fn transition(
    from: ConversationStatus,
    event: StatusEvent,
    has_schedule: bool,
) -> Result<ConversationStatus, TransitionError> {
    use ConversationStatus::*;
    use StatusEvent::*;
    let resting = if has_schedule { Background } else { Active };
    let next = match (from, event) {
        (Active | Background, ScheduleCreated) => Background,
        (WaitingInput, ScheduleCreated) => WaitingInput,
        (Background, ScheduleCleared) => Active,
        (WaitingInput, ScheduleCleared) => WaitingInput,
        (Active | Background | WaitingInput, QuestionAsked) => WaitingInput,
        (WaitingInput, QuestionAnswered | QuestionExpired) => resting,
        (Active | WaitingInput, Ended) => {
            if has_schedule {
                Background
            } else {
                Archived
            }
        }
        (Background, Ended) => Background,
        (Archived, Reopened) => Active,
        _ => return Err(TransitionError { from, event }),
    };
    Ok(next)
}

/// How a scheduled conversation runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScheduleType {
    /// Repeatedly, at the times of a 5-field cron expression in an IANA time zone.
    Cron,
    /// Once, at `run_at`.
    Scheduled,
    /// Once, at the worker's next tick.
    Immediate,
}

/// A conversation's schedule: what the worker runs, when, and how it has gone so far.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Schedule {
    #[serde(rename = "type")]
    pub kind: ScheduleType,
    /// The cron expression (`cron`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expression: Option<String>,
    /// The IANA time zone the expression is read in (`cron`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_zone: Option<String>,
    /// When a one-time run happens (`scheduled`), ISO 8601.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_at: Option<String>,
    /// When the worker runs it next, ISO 8601; none while a run is under way or when paused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_run_at: Option<String>,
    /// What each run does: the instruction the worker hands the agent.
    #[serde(default)]
    pub task: String,
    /// No run after this time, ISO 8601.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_at: Option<String>,
    /// No more runs than this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_runs: Option<u32>,
    /// Runs started so far.
    #[serde(default)]
    pub runs: u32,
    /// Failed runs in a row (a success resets it).
    #[serde(default)]
    pub failures: u32,
    /// Stopped by the user, or after too many failures; resumable.
    #[serde(default)]
    pub paused: bool,
    /// Why the last run failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    /// When the last run started, ISO 8601.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_run_at: Option<String>,
    /// The integrations (MCP servers) each run needs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub integrations: Vec<String>,
    /// The model its runs use, when the job names one (else the background model).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The agent its runs use, when the job names one (else the built-in agent: an unattended
    /// run on a subscription is the user's choice).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<crate::acp::AgentKind>,
    /// The message of the run under way (claimed, not finished): a restart finishes that run
    /// instead of claiming another.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_run: Option<String>,
}

impl Schedule {
    /// A schedule of `kind` for `task`, nothing else set.
    pub fn new(kind: ScheduleType, task: impl Into<String>) -> Self {
        Schedule {
            kind,
            expression: None,
            time_zone: None,
            run_at: None,
            next_run_at: None,
            task: task.into(),
            end_at: None,
            max_runs: None,
            runs: 0,
            failures: 0,
            paused: false,
            last_error: None,
            last_run_at: None,
            integrations: Vec::new(),
            model: None,
            agent: None,
            current_run: None,
        }
    }
}

/// The kind of a pending question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum QuestionType {
    Confirmation,
    Choice,
    #[default]
    Input,
}

/// A question the agent asked and waits on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PendingQuestion {
    #[serde(rename = "type")]
    pub kind: QuestionType,
    pub prompt: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<String>,
    /// When it was asked, ISO 8601 (stale cleanup measures from here).
    pub created_at: String,
}

/// Structured state for the work a conversation carries (seed 001).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct ConversationState {
    /// What the task is about.
    #[serde(default)]
    pub context: Map<String, Value>,
    /// Where the workflow is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<String>,
    /// Results accumulated so far.
    #[serde(default)]
    pub data: Map<String, Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending_question: Option<PendingQuestion>,
}

/// Everything the index knows of a conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Conversation {
    pub id: String,
    #[serde(default)]
    pub status: ConversationStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    pub created_at: String,
    /// When it stopped being the current conversation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<Schedule>,
    #[serde(default)]
    pub state: ConversationState,
    /// A model provider's own session id, for providers that keep sessions server-side (the
    /// Messages API does not: history is sent with every call, so this stays empty there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_session_id: Option<String>,
    /// An ACP session's cumulative cost (USD) as the usage ledger last counted it, kept beside
    /// the session it belongs to so a turn after a restart counts only what it added.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_session_cost: Option<f64>,
    /// The vault path of its Markdown copy, once one is written (issue 19).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub markdown_copy: Option<String>,
    /// The conversation whose scheduled job this one took over (it grew too long to keep).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub continues: Option<String>,
    /// The conversation its scheduled job went on in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub continued_in: Option<String>,
}

impl Conversation {
    /// A new, empty chat.
    pub fn new(id: String, created_at: String) -> Self {
        Conversation {
            id,
            status: ConversationStatus::Active,
            title: None,
            summary: None,
            created_at,
            ended_at: None,
            end_reason: None,
            schedule: None,
            state: ConversationState::default(),
            provider_session_id: None,
            agent_session_cost: None,
            markdown_copy: None,
            continues: None,
            continued_in: None,
        }
    }

    /// Applies a status event.
    pub fn apply(&mut self, event: StatusEvent) -> Result<ConversationStatus, TransitionError> {
        self.status = transition(self.status, event, self.schedule.is_some())?;
        Ok(self.status)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ConversationStatus::*;
    use StatusEvent::*;

    /// Every (status, event) pair, with and without a schedule: the expected next status, or
    /// `None` when the change is refused.
    #[test]
    fn transition_table() {
        #[rustfmt::skip]
        let table: [(ConversationStatus, StatusEvent, Option<ConversationStatus>, Option<ConversationStatus>); 28] = [
            //  from          event             no schedule          with schedule
            (Active,       ScheduleCreated,  Some(Background),    Some(Background)),
            (Active,       ScheduleCleared,  None,                None),
            (Active,       QuestionAsked,    Some(WaitingInput),  Some(WaitingInput)),
            (Active,       QuestionAnswered, None,                None),
            (Active,       QuestionExpired,  None,                None),
            (Active,       Ended,            Some(Archived),      Some(Background)),
            (Active,       Reopened,         None,                None),
            (Background,   ScheduleCreated,  Some(Background),    Some(Background)),
            (Background,   ScheduleCleared,  Some(Active),        Some(Active)),
            (Background,   QuestionAsked,    Some(WaitingInput),  Some(WaitingInput)),
            (Background,   QuestionAnswered, None,                None),
            (Background,   QuestionExpired,  None,                None),
            (Background,   Ended,            Some(Background),    Some(Background)),
            (Background,   Reopened,         None,                None),
            (WaitingInput, ScheduleCreated,  Some(WaitingInput),  Some(WaitingInput)),
            (WaitingInput, ScheduleCleared,  Some(WaitingInput),  Some(WaitingInput)),
            (WaitingInput, QuestionAsked,    Some(WaitingInput),  Some(WaitingInput)),
            (WaitingInput, QuestionAnswered, Some(Active),        Some(Background)),
            (WaitingInput, QuestionExpired,  Some(Active),        Some(Background)),
            (WaitingInput, Ended,            Some(Archived),      Some(Background)),
            (WaitingInput, Reopened,         None,                None),
            (Archived,     ScheduleCreated,  None,                None),
            (Archived,     ScheduleCleared,  None,                None),
            (Archived,     QuestionAsked,    None,                None),
            (Archived,     QuestionAnswered, None,                None),
            (Archived,     QuestionExpired,  None,                None),
            (Archived,     Ended,            None,                None),
            (Archived,     Reopened,         Some(Active),        Some(Active)),
        ];
        // The table covers every pair exactly once.
        for from in ConversationStatus::ALL {
            for event in StatusEvent::ALL {
                assert_eq!(
                    table.iter().filter(|(f, e, _, _)| *f == from && *e == event).count(),
                    1,
                    "{from:?} {event:?}"
                );
            }
        }
        for (from, event, without, with) in table {
            for (has_schedule, expected) in [(false, without), (true, with)] {
                let got = transition(from, event, has_schedule);
                match expected {
                    Some(next) => assert_eq!(got, Ok(next), "{from:?} + {event:?} (schedule: {has_schedule})"),
                    None => {
                        assert_eq!(got, Err(TransitionError { from, event }), "{from:?} + {event:?} must be refused")
                    }
                }
            }
        }
    }

    #[test]
    fn conversation_round_trips_with_the_seed_field_names() {
        let mut c = Conversation::new("c-1".into(), "2026-01-01T00:00:00.000Z".into());
        c.schedule = Some(Schedule {
            expression: Some("0 8 * * 1-5".into()),
            next_run_at: Some("2026-01-02T08:00:00.000Z".into()),
            ..Schedule::new(ScheduleType::Cron, "summarise")
        });
        c.state.pending_question = Some(PendingQuestion {
            kind: QuestionType::Choice,
            prompt: "Which?".into(),
            options: vec!["a".into(), "b".into()],
            created_at: "2026-01-01T00:00:00.000Z".into(),
        });
        c.apply(StatusEvent::QuestionAsked).unwrap();
        let v = serde_json::to_value(&c).unwrap();
        assert_eq!(v["status"], "waiting_input");
        assert_eq!(v["schedule"]["type"], "cron");
        assert_eq!(v["schedule"]["nextRunAt"], "2026-01-02T08:00:00.000Z");
        assert_eq!(v["state"]["pendingQuestion"]["type"], "choice");
        let back: Conversation = serde_json::from_value(v).unwrap();
        assert_eq!(back, c);
    }
}
