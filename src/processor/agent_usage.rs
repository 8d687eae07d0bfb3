//! An ACP agent's turn in the usage ledger, as the built-in agent's model calls are: one line
//! when its prompt ends (or the agent stops mid-turn after reporting what it spent; or, for a
//! turn the user stopped, when its cancelled prompt ends or the agent does), with the
//! agent's label as the model, the tokens `session/prompt`'s result carries in `usage`, and the
//! agent's own cost figure. The agent reports a session's cost cumulatively (`usage_update`),
//! so a line holds what the turn added: the figure less the one counted last for that session,
//! kept in memory across turns, journaled with the turn, so a retry counts nothing twice, and
//! kept with the conversation beside its session when the turn is recorded, so a turn in the
//! session loaded after a restart counts only what it added.

use serde_json::Value;

use super::handle::MessageProcessor;
use super::state::{loaded, StoppedSpend};
use crate::acp::client::Delivery;
use crate::acp::progress::{AgentUsage, TurnProgress};
use crate::acp::session::stored_session;
use crate::host::Host;
use crate::host_types::LogLevel;
use crate::journal::{Journal, JournalRecord};
use crate::llm::Usage;

/// The tokens a `session/prompt` result reports (`usage: {inputTokens, outputTokens,
/// cachedReadTokens, cachedWriteTokens}`), if it has them.
pub(super) fn prompt_tokens(result: &Value) -> Option<Usage> {
    let usage = result.get("usage")?;
    let count = |field: &str| usage.get(field).and_then(Value::as_u64).unwrap_or(0);
    Some(Usage {
        input_tokens: count("inputTokens"),
        output_tokens: count("outputTokens"),
        cache_read_input_tokens: count("cachedReadTokens"),
        cache_creation_input_tokens: count("cachedWriteTokens"),
        ..Usage::default()
    })
}

/// What a turn spent: `cumulative`, the session's cost now, less `counted` (the figure counted
/// before); a figure below it means the agent began counting again, so all of it is new.
fn turn_cost(cumulative: f64, counted: Option<f64>) -> f64 {
    match counted {
        Some(counted) if cumulative >= counted => cumulative - counted,
        _ => cumulative,
    }
}

impl<H: Host + 'static> MessageProcessor<H> {
    /// Takes the costs an earlier run of the turn counted (from its journal) as the sessions'.
    pub(super) fn counted_costs_from(&self, records: &[JournalRecord]) {
        for record in records {
            if let JournalRecord::AgentCost { session, cost_usd } = record {
                self.set_counted_cost(session, *cost_usd);
            }
        }
    }

    /// Takes the cost the conversation keeps for `session` as counted, unless this process
    /// counted the session's cost already (its figure is as new or newer): a session loaded
    /// after a restart counts only what its next turn adds.
    pub(super) fn counted_cost_kept(&self, session: &str, kept: Option<f64>) {
        if let (None, Some(kept)) = (self.counted_cost(session), kept) {
            self.set_counted_cost(session, kept);
        }
    }

    /// The session's cumulative cost as the ledger last counted it, kept with the conversation
    /// when the turn is recorded.
    pub(super) fn counted_cost(&self, session: &str) -> Option<f64> {
        self.inner.acp.counted_costs.borrow().iter().find(|(s, _)| s == session).map(|(_, c)| *c)
    }

    fn set_counted_cost(&self, session: &str, cost: f64) {
        let mut costs = self.inner.acp.counted_costs.borrow_mut();
        costs.retain(|(s, _)| s != session);
        costs.push((session.to_owned(), cost));
    }

    /// Writes a turn of `agent` in `session` to the ledger: its tokens (when its prompt's result
    /// gave them) and the cost it added (when the agent reported one), journaled with the turn.
    /// Nothing when the agent reported neither an end nor a figure.
    pub(super) async fn ledger_agent_turn(
        &self,
        (message_id, session, agent): (&str, &str, &str),
        tokens: Option<Usage>,
        reported: Option<&AgentUsage>,
        ended: bool,
    ) {
        let Some(usage) = self.count_agent_turn(session, agent, tokens, reported, ended) else { return };
        crate::usage::record_agent_call(&self.inner.host, crate::usage::CallPurpose::Turn, &usage).await;
        if let Some(cumulative) = reported.and_then(|r| r.cost_usd) {
            let record = JournalRecord::AgentCost { session: session.to_owned(), cost_usd: cumulative };
            Journal::new(&self.inner.host, message_id).record(&record).await;
        }
    }

    /// The ledger line of a turn, its cost counted for the session at once (so a turn after it
    /// never counts it again, even before the line is written).
    fn count_agent_turn(
        &self,
        session: &str,
        agent: &str,
        tokens: Option<Usage>,
        reported: Option<&AgentUsage>,
        ended: bool,
    ) -> Option<Usage> {
        if !ended && reported.is_none() {
            return None;
        }
        let mut usage = tokens.unwrap_or_default();
        usage.model = agent.to_owned();
        if let Some(cumulative) = reported.and_then(|r| r.cost_usd) {
            usage.cost_usd = Some(turn_cost(cumulative, self.counted_cost(session)));
            self.set_counted_cost(session, cumulative);
        }
        Some(usage)
    }

    /// Takes in what the agent still sends for the prompt the user stopped: its usage reports
    /// (the spend grows until it has cancelled), and the prompt's answer, whose `usage` it
    /// counts with the spend — once, on the ledger.
    pub(super) fn stopped_turn_heard(&self, delivery: &Delivery) {
        match delivery {
            Delivery::Update(update) => {
                let mut stopped = self.inner.acp.stopped_spend.borrow_mut();
                if let Some(spend) = stopped.as_mut().filter(|s| s.session == update.session_id) {
                    let mut progress = TurnProgress::default();
                    progress.usage = spend.reported.take();
                    progress.apply(update.update.clone());
                    spend.reported = progress.usage;
                }
            }
            Delivery::Reply { id, outcome } => {
                let stopped = self.inner.acp.stopped_spend.borrow().as_ref().is_some_and(|s| s.prompt == *id);
                if stopped {
                    self.count_stopped_turn(outcome.as_ref().ok());
                }
            }
            Delivery::Failed(_) => self.count_stopped_turn(None),
            Delivery::Permission { .. } | Delivery::Ready => {}
        }
    }

    /// Counts the stopped turn's spend now, if one waits: its prompt ended with `result`, or
    /// the agent ended (`None`). The counted cost is kept with the conversation resuming the
    /// session, as a recorded turn's is (a stopped turn records nothing else).
    pub(super) fn count_stopped_turn(&self, result: Option<&Value>) {
        let Some(spend) = self.inner.acp.stopped_spend.borrow_mut().take() else { return };
        let StoppedSpend { session, kind, reported, .. } = spend;
        let tokens = result.and_then(prompt_tokens);
        let Some(usage) = self.count_agent_turn(&session, kind.label(), tokens, reported.as_ref(), result.is_some())
        else {
            return;
        };
        let counted = self.counted_cost(&session);
        self.spawn(move |p| async move {
            crate::usage::record_agent_call(&p.inner.host, crate::usage::CallPurpose::Turn, &usage).await;
            if let Some(counted) = counted {
                p.keep_counted_cost(&stored_session(kind, &session), counted).await;
            }
        });
    }

    /// Keeps `counted` with the live conversation whose session is `stored`, if one is.
    async fn keep_counted_cost(&self, stored: &str, counted: f64) {
        let host = &self.inner.host;
        let mut guard = self.inner.store.lock().await;
        let Ok(store) = loaded(&mut guard) else { return };
        let Some(id) =
            store.live().iter().find(|c| c.provider_session_id.as_deref() == Some(stored)).map(|c| c.id.clone())
        else {
            return;
        };
        let kept = store.update(host, &id, |c| {
            c.agent_session_cost = Some(counted);
            Ok(())
        });
        if let Err(e) = kept.await {
            host.log(LogLevel::Warn, &format!("could not keep the agent session's counted cost: {e}"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_prompts_tokens_and_a_turns_share_of_the_sessions_cost() {
        let result = json!({"stopReason": "end_turn", "usage": {"inputTokens": 100, "outputTokens": 10,
            "cachedReadTokens": 5, "cachedWriteTokens": 7, "totalTokens": 122}});
        let usage = prompt_tokens(&result).expect("usage");
        assert_eq!(
            (usage.input_tokens, usage.output_tokens, usage.cache_read_input_tokens, usage.cache_creation_input_tokens),
            (100, 10, 5, 7)
        );
        assert!(prompt_tokens(&json!({"stopReason": "end_turn"})).is_none());
        assert_eq!(turn_cost(0.5, None), 0.5);
        assert!((turn_cost(0.5, Some(0.2)) - 0.3).abs() < 1e-12);
        assert_eq!(turn_cost(0.1, Some(0.2)), 0.1, "the agent began counting again");
    }
}
