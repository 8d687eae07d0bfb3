//! [`Usage`] as the files keep it (the usage ledger, a turn's closing history line): counts of
//! zero left out, since a reader's `Usage` defaults every missing count to zero, and the context
//! a turn of one call filled, which is that call's input and output. The wire form the host reads
//! (`ProcessResult.usage`) keeps every count (issue 37: bytes per message).

use serde::de::{Deserializer, Error};
use serde::{Deserialize, Serialize};

use super::types::Usage;

/// A usage with zero counts, no model and no cost left out.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct StoredUsage<'a> {
    #[serde(skip_serializing_if = "is_zero")]
    input_tokens: u64,
    #[serde(skip_serializing_if = "is_zero")]
    cache_creation_input_tokens: u64,
    #[serde(skip_serializing_if = "is_zero")]
    cache_creation_1h_tokens: u64,
    #[serde(skip_serializing_if = "is_zero")]
    cache_read_input_tokens: u64,
    #[serde(skip_serializing_if = "is_zero")]
    output_tokens: u64,
    #[serde(skip_serializing_if = "is_zero")]
    model_calls: u64,
    /// Written even when zero if a reader would work out another figure.
    #[serde(skip_serializing_if = "Option::is_none")]
    context_tokens: Option<u64>,
    #[serde(skip_serializing_if = "str::is_empty")]
    model: &'a str,
    #[serde(skip_serializing_if = "is_zero")]
    context_window: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    cost_usd: Option<f64>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl<'a> StoredUsage<'a> {
    /// Everything `usage` holds but what [`read_turn_usage`] works out.
    pub(crate) fn of(usage: &'a Usage) -> Self {
        let derived = usage.model_calls == 1 && usage.context_tokens == usage.total_input() + usage.output_tokens;
        StoredUsage {
            input_tokens: usage.input_tokens,
            cache_creation_input_tokens: usage.cache_creation_input_tokens,
            cache_creation_1h_tokens: usage.cache_creation_1h_tokens,
            cache_read_input_tokens: usage.cache_read_input_tokens,
            output_tokens: usage.output_tokens,
            model_calls: u64::from(usage.model_calls),
            context_tokens: (!derived).then_some(usage.context_tokens),
            model: &usage.model,
            context_window: usage.context_window,
            cost_usd: usage.cost_usd,
        }
    }

    /// One call as the ledger keeps it: no count of calls (a line is one call) and no context
    /// window; the context a call filled only when `keep_context` (a turn's is in its history).
    pub(crate) fn of_call(usage: &'a Usage, keep_context: bool) -> Self {
        StoredUsage {
            model_calls: 0,
            context_window: 0,
            context_tokens: (keep_context && usage.context_tokens > 0).then_some(usage.context_tokens),
            ..StoredUsage::of(usage)
        }
    }
}

/// A turn's usage as read: one call's context filled, left out, is its input and output (a line
/// written before this form left the figure out only when it was zero).
pub(crate) fn read_turn_usage<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Usage>, D::Error> {
    let Some(value) = Option::<serde_json::Value>::deserialize(deserializer)? else { return Ok(None) };
    let mut usage: Usage = crate::lean::from_value(&value).map_err(D::Error::custom)?;
    if value.get("contextTokens").is_none() && usage.model_calls == 1 {
        usage.context_tokens = usage.total_input() + usage.output_tokens;
    }
    Ok(Some(usage))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_counts_are_left_out_and_read_back_as_zero() {
        let usage = Usage { input_tokens: 7, output_tokens: 2, model_calls: 2, model: "m".into(), ..Usage::default() };
        let text = serde_json::to_string(&StoredUsage::of(&usage)).unwrap();
        assert_eq!(text, r#"{"inputTokens":7,"outputTokens":2,"modelCalls":2,"contextTokens":0,"model":"m"}"#);
        assert_eq!(serde_json::from_str::<Usage>(&text).unwrap(), usage);
    }

    fn turn_round_trip(usage: &Usage) -> String {
        let text = serde_json::to_string(&StoredUsage::of(usage)).unwrap();
        let mut d = serde_json::Deserializer::from_str(&text);
        assert_eq!(read_turn_usage(&mut d).unwrap().as_ref(), Some(usage), "{text}");
        text
    }

    #[test]
    fn one_calls_context_is_worked_out_and_any_other_kept() {
        let one = Usage {
            input_tokens: 7,
            cache_read_input_tokens: 3,
            output_tokens: 2,
            model_calls: 1,
            context_tokens: 12,
            ..Usage::default()
        };
        assert!(!turn_round_trip(&one).contains("contextTokens"));
        // An agent that reported tokens but not the context it filled; a turn of two calls.
        assert!(turn_round_trip(&Usage { context_tokens: 0, ..one.clone() }).contains(r#""contextTokens":0"#));
        assert!(turn_round_trip(&Usage { model_calls: 2, context_tokens: 9, ..one }).contains(r#""contextTokens":9"#));
    }
}
