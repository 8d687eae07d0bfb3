//! When a conversation is over by itself: the idle boundary and stale questions. Pure decisions,
//! taken before a message is processed so the reply uses the right context.

use super::model::{Conversation, ConversationStatus};
use crate::host_types::Millis;
use crate::time::parse_iso;

/// Whether a pending question is older than the state timeout.
pub(crate) fn question_is_stale(conversation: &Conversation, now_ms: Millis, state_timeout_ms: Millis) -> bool {
    conversation
        .state
        .pending_question
        .as_ref()
        .is_some_and(|q| parse_iso(&q.created_at).is_none_or(|asked| now_ms.saturating_sub(asked) >= state_timeout_ms))
}

/// Whether a new message should start a new conversation: the current one has been idle longer
/// than the timeout — unless it waits for the answer to a question that is still live, which
/// this message most likely is.
pub(crate) fn starts_new_conversation(
    current: &Conversation,
    last_activity_ms: Millis,
    now_ms: Millis,
    idle_timeout_ms: Millis,
    state_timeout_ms: Millis,
) -> bool {
    let idle = now_ms.saturating_sub(last_activity_ms) > idle_timeout_ms;
    let live_question =
        current.status == ConversationStatus::WaitingInput && !question_is_stale(current, now_ms, state_timeout_ms);
    idle && !live_question
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conversation::model::{PendingQuestion, QuestionType};
    use crate::time::format_iso;

    const MIN: Millis = 60_000;
    const T0: Millis = 1_770_285_600_000;

    fn waiting(asked_at: Millis) -> Conversation {
        let mut c = Conversation::new("c".into(), format_iso(T0));
        c.status = ConversationStatus::WaitingInput;
        c.state.pending_question = Some(PendingQuestion {
            kind: QuestionType::Input,
            prompt: "?".into(),
            options: vec![],
            created_at: format_iso(asked_at),
        });
        c
    }

    #[test]
    fn idle_boundary_and_the_live_question_exception() {
        let plain = Conversation::new("c".into(), format_iso(T0));
        let decide =
            |c: &Conversation, idle_for: Millis| starts_new_conversation(c, T0, T0 + idle_for, 30 * MIN, 60 * MIN);
        assert!(!decide(&plain, 30 * MIN), "exactly the timeout is not over it");
        assert!(decide(&plain, 30 * MIN + 1));
        assert!(!decide(&waiting(T0), 45 * MIN), "a live question keeps the conversation");
        assert!(decide(&waiting(T0), 60 * MIN), "a stale one does not");
        assert!(question_is_stale(&waiting(T0), T0 + 60 * MIN, 60 * MIN));
        assert!(!question_is_stale(&waiting(T0), T0 + 59 * MIN, 60 * MIN));
        assert!(!question_is_stale(&plain, T0 + 999 * MIN, 60 * MIN), "no question, nothing stale");
    }
}
