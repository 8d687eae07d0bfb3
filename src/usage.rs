//! What model calls cost: the price table (per model, editable in settings, with defaults for the
//! current Claude models), the estimate of a turn's cost from its `usage`, and the usage ledger
//! (`.smarthole/usage/<UTC month>.jsonl`, one line appended per model call) that gives the day's
//! and the month's totals without reading any conversation. A line per call, not per turn, so
//! what a stopped or failed turn already spent, and the background calls (titles, summaries,
//! retrospection), are counted too.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::host::Host;
use crate::host_types::{HostError, LogLevel, Millis};
use crate::llm::stored_usage::StoredUsage;
use crate::llm::Usage;
use crate::time::format_iso;

/// A cache write with the default five-minute TTL costs this much fresh input.
const CACHE_WRITE_5M: f64 = 1.25;
/// A cache write with the one-hour TTL.
const CACHE_WRITE_1H: f64 = 2.0;
/// A cache read.
const CACHE_READ: f64 = 0.1;
/// Folder of the ledger, under `.smarthole/`.
const LEDGER_DIR: &str = "usage";

/// The price of one model (the user can edit the table): US dollars per million tokens, and the
/// context window its usage is shown against.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct ModelPrice {
    /// A model id, or the start of one: `claude-sonnet-4-5` prices `claude-sonnet-4-5-20250929`.
    pub model: String,
    /// Dollars per million fresh input tokens (cache writes and reads are priced from it).
    pub input_per_mtok: f64,
    /// Dollars per million output tokens.
    pub output_per_mtok: f64,
    /// Tokens the model's context window holds.
    pub context_window: u64,
}

/// The default table: Anthropic's list prices of the current Claude models (January 2026).
pub(crate) fn default_prices() -> Vec<ModelPrice> {
    [
        ("claude-opus-4-5", 5.0, 25.0),
        ("claude-opus-4-1", 15.0, 75.0),
        ("claude-opus-4", 15.0, 75.0),
        ("claude-sonnet-4-5", 3.0, 15.0),
        ("claude-sonnet-4", 3.0, 15.0),
        ("claude-3-7-sonnet", 3.0, 15.0),
        ("claude-haiku-4-5", 1.0, 5.0),
        ("claude-3-5-haiku", 0.8, 4.0),
    ]
    .into_iter()
    .map(|(model, input, output)| ModelPrice {
        model: model.to_owned(),
        input_per_mtok: input,
        output_per_mtok: output,
        context_window: 200_000,
    })
    .collect()
}

/// The table's entry for a model: the longest `model` the id starts with.
pub(crate) fn price_of<'a>(prices: &'a [ModelPrice], model: &str) -> Option<&'a ModelPrice> {
    prices.iter().filter(|p| !p.model.is_empty() && model.starts_with(&p.model)).max_by_key(|p| p.model.len())
}

/// What a price entry says is wrong with it, if anything.
pub(crate) fn price_problem(price: &ModelPrice) -> Option<String> {
    if price.model.trim().is_empty() {
        return Some("a price entry has no model".to_owned());
    }
    let ok = |n: f64| n.is_finite() && n >= 0.0;
    if !ok(price.input_per_mtok) || !ok(price.output_per_mtok) {
        return Some(format!("the prices of {} must be zero or more", price.model));
    }
    None
}

/// Why the price table's text does not read (the settings show it; nothing is saved).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PriceTableError {
    #[error("line {line} of the price table: {reason}")]
    Line { line: usize, reason: String },
}

/// The price table as the settings show it, one model per line: its name (or the start of it),
/// dollars per million input tokens, per million output tokens, and its context window
/// (`claude-sonnet-4-5 3 15 200000`).
pub fn price_table_text(prices: &[ModelPrice]) -> String {
    let line = |p: &ModelPrice| format!("{} {} {} {}", p.model, p.input_per_mtok, p.output_per_mtok, p.context_window);
    prices.iter().map(line).collect::<Vec<_>>().join("\n")
}

/// The table read back from its text: words separated by spaces, blank lines skipped, words after
/// the fourth ignored, a missing context window 0. A line whose prices are missing, not numbers
/// or below zero, or whose context window is not a whole number, is refused with its number.
pub fn parse_price_table(text: &str) -> Result<Vec<ModelPrice>, PriceTableError> {
    let mut prices = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let mut words = line.split_whitespace();
        let Some(model) = words.next() else { continue };
        let refused = |reason: String| PriceTableError::Line { line: i + 1, reason };
        let mut price = || words.next().and_then(|w| w.parse::<f64>().ok()).unwrap_or(f64::NAN);
        let (input_per_mtok, output_per_mtok) = (price(), price());
        let context_window = match words.next() {
            None => 0,
            Some(w) => w.parse::<u64>().map_err(|_| {
                refused(format!("the context window of {model} must be a whole number of tokens, not {w:?}"))
            })?,
        };
        let entry = ModelPrice { model: model.to_owned(), input_per_mtok, output_per_mtok, context_window };
        if let Some(problem) = price_problem(&entry) {
            return Err(refused(problem));
        }
        prices.push(entry);
    }
    Ok(prices)
}

/// The estimated cost in dollars of token counts at a price: fresh input, cache writes at 1.25x
/// (2x for the one-hour TTL), cache reads at 0.1x, output at its own price.
pub(crate) fn cost(usage: &Usage, price: &ModelPrice) -> f64 {
    let written_1h = usage.cache_creation_1h_tokens.min(usage.cache_creation_input_tokens);
    let written_5m = usage.cache_creation_input_tokens - written_1h;
    let input_equivalent = usage.input_tokens as f64
        + written_5m as f64 * CACHE_WRITE_5M
        + written_1h as f64 * CACHE_WRITE_1H
        + usage.cache_read_input_tokens as f64 * CACHE_READ;
    (input_equivalent * price.input_per_mtok + usage.output_tokens as f64 * price.output_per_mtok) / 1_000_000.0
}

/// A turn's usage with its model, context window and estimated cost filled in from the table.
pub(crate) fn priced(mut usage: Usage, model: &str, prices: &[ModelPrice]) -> Usage {
    usage.model = model.to_owned();
    let price = price_of(prices, model);
    usage.context_window = price.map(|p| p.context_window).unwrap_or(0);
    usage.cost_usd = price.map(|p| cost(&usage, p));
    usage
}

/// Why a model call was made, as the ledger records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CallPurpose {
    /// A call of a turn's agent loop.
    Turn,
    /// A conversation's title and summary.
    Summary,
    /// A conversation's retrospection.
    Retrospection,
}

impl CallPurpose {
    fn name(self) -> &'static str {
        match self {
            CallPurpose::Turn => "turn",
            CallPurpose::Summary => "summary",
            CallPurpose::Retrospection => "retrospection",
        }
    }
}

/// One ledger line: when, why, and what the call consumed.
#[derive(Serialize)]
struct LedgerLine<'a> {
    at: Millis,
    purpose: &'static str,
    /// Zero counts, the count of calls and a turn's context filled left out (issue 37: a line a
    /// call, down from 170 to about 100 bytes; the turn's history line holds its context).
    usage: StoredUsage<'a>,
}

/// The ledger file of the UTC month of `at_ms`.
fn ledger_path(at_ms: Millis) -> String {
    // format_iso gives YYYY-MM-DDTHH:MM:SS.mmmZ.
    format!("{LEDGER_DIR}/{}.jsonl", &format_iso(at_ms)[..7])
}

/// Prices one finished model call and appends it to the ledger (one short line: O(1) per call).
/// The ledger is an estimate beside the history, so a failed write is logged, never fatal.
pub(crate) async fn record_call<H: Host>(
    host: &H,
    (model, prices): (&str, &[ModelPrice]),
    purpose: CallPurpose,
    usage: &Usage,
) {
    append_call(host, purpose, priced(usage.clone(), model, prices)).await;
}

/// Appends an ACP agent's prompt (a turn, or a background prompt in a side session) to the
/// ledger as one call: the agent's label as the model, its tokens and its own cost figure as they
/// are (the price table does not know an agent).
pub(crate) async fn record_agent_call<H: Host>(host: &H, purpose: CallPurpose, usage: &Usage) {
    append_call(host, purpose, usage.clone()).await;
}

async fn append_call<H: Host>(host: &H, purpose: CallPurpose, usage: Usage) {
    let at = host.now_ms();
    let line = serde_json::to_string(&LedgerLine {
        at,
        purpose: purpose.name(),
        usage: StoredUsage::of_call(&usage, purpose != CallPurpose::Turn),
    })
    .unwrap_or_default();
    if let Err(e) = host.append_file(&ledger_path(at), &(line + "\n")).await {
        host.log(LogLevel::Warn, &format!("could not add to the usage ledger: {e}"));
    }
}

/// The day's and the month's totals, in the user's time zone.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct UsageTotals {
    /// Since local midnight.
    pub today: Usage,
    /// Since the first of the month, local time.
    pub month: Usage,
    /// When the day and the month began (ISO 8601, UTC).
    pub day_start: String,
    pub month_start: String,
}

/// The last time `expression` fired at or before `now` in `zone` (croner through the host), or
/// the UTC fallback when the host cannot say.
fn last_fire<H: Host>(host: &H, expression: &str, zone: &str, now: Millis, look_back: Millis) -> Option<Millis> {
    let mut at = now.saturating_sub(look_back);
    let mut last = None;
    for _ in 0..64 {
        match host.cron_next(expression, zone, at) {
            Ok(Some(next)) if next <= now => {
                last = Some(next);
                at = next;
            }
            _ => break,
        }
    }
    last
}

const DAY_MS: Millis = 86_400_000;

/// Adds up the ledger lines from the start of the local month (and of the day) to now. Reads at
/// most the two UTC months the local month overlaps.
pub(crate) async fn totals<H: Host>(host: &H) -> Result<UsageTotals, HostError> {
    let now = host.now_ms();
    let zone = host.time_zone();
    let zone = if zone.is_empty() { "UTC".to_owned() } else { zone };
    let day_start = last_fire(host, "0 0 * * *", &zone, now, DAY_MS + DAY_MS / 12).unwrap_or(now - now % DAY_MS);
    let month_start = last_fire(host, "0 0 1 * *", &zone, now, 32 * DAY_MS).unwrap_or(day_start);
    let mut totals =
        UsageTotals { day_start: format_iso(day_start), month_start: format_iso(month_start), ..Default::default() };
    let mut paths = vec![ledger_path(month_start)];
    if ledger_path(now) != paths[0] {
        paths.push(ledger_path(now));
    }
    for path in paths {
        let Some(text) = crate::bounded::read_within(host, &path, crate::bounded::MAX_LOG_BYTES).await? else {
            continue;
        };
        for line in text.lines() {
            let Ok(value) = serde_json::from_str::<Value>(line) else { continue };
            let (Some(at), Some(usage)) = (value.get("at").and_then(Value::as_u64), value.get("usage")) else {
                continue;
            };
            let Ok(mut usage) = crate::lean::from_value::<Usage>(usage) else { continue };
            // A line is one call (lines written before issue 37 say so, later ones leave it out).
            usage.model_calls = usage.model_calls.max(1);
            if at >= month_start && at <= now {
                totals.month.add(&usage);
            }
            if at >= day_start && at <= now {
                totals.today.add(&usage);
            }
        }
    }
    Ok(totals)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table's text reads back as the table it was printed from; a line that does not read
    /// is refused with its number and what is wrong.
    #[test]
    fn the_price_table_text_reads_back_and_a_bad_line_is_named() {
        let prices = default_prices();
        let text = price_table_text(&prices);
        assert!(text.starts_with("claude-opus-4-5 5 25 200000\nclaude-opus-4-1 15 75 200000\n"), "{text}");
        assert!(text.contains("claude-3-5-haiku 0.8 4 200000"), "{text}");
        assert_eq!(parse_price_table(&text), Ok(prices));
        let loose = parse_price_table("  local-llama  0 0\n\n   \nm 1.5 2e1 8000 extra words\n").unwrap();
        assert_eq!(loose[0], ModelPrice { model: "local-llama".into(), ..ModelPrice::default() });
        assert_eq!((loose[1].input_per_mtok, loose[1].output_per_mtok, loose[1].context_window), (1.5, 20.0, 8000));
        for (text, reason) in [
            ("ok 1 1\nclaude-x", "line 2 of the price table: the prices of claude-x must be zero or more"),
            ("m 1 cheap", "line 1 of the price table: the prices of m must be zero or more"),
            ("m -1 1", "line 1 of the price table: the prices of m must be zero or more"),
            ("m inf 1", "line 1 of the price table: the prices of m must be zero or more"),
            (
                "m 1 1 1.5",
                "line 1 of the price table: the context window of m must be a whole number of tokens, not \"1.5\"",
            ),
        ] {
            assert_eq!(parse_price_table(text).map_err(|e| e.to_string()), Err(reason.to_owned()), "{text}");
        }
    }

    #[test]
    fn the_longest_matching_entry_prices_a_model() {
        let prices = default_prices();
        assert_eq!(price_of(&prices, "claude-opus-4-5-20251101").map(|p| p.input_per_mtok), Some(5.0));
        assert_eq!(price_of(&prices, "claude-opus-4-20250514").map(|p| p.input_per_mtok), Some(15.0));
        assert!(price_of(&prices, "llama-3").is_none());
    }

    #[test]
    fn cache_reads_cost_a_tenth_and_writes_a_quarter_more() {
        let price = ModelPrice { model: "m".into(), input_per_mtok: 10.0, output_per_mtok: 50.0, context_window: 1 };
        let usage = Usage {
            input_tokens: 1_000_000,
            cache_creation_input_tokens: 2_000_000,
            cache_creation_1h_tokens: 1_000_000,
            cache_read_input_tokens: 1_000_000,
            output_tokens: 100_000,
            ..Default::default()
        };
        // 10 + 12.5 + 20 + 1 + 5
        assert!((cost(&usage, &price) - 48.5).abs() < 1e-9);
        let priced = priced(usage, "m-1", &[price]);
        assert_eq!((priced.model.as_str(), priced.context_window), ("m-1", 1));
        assert!(priced.cost_usd.is_some());
        assert_eq!(super::priced(Usage::default(), "x", &[]).cost_usd, None);
    }
}
