//! The usage ledger counts every model call that was paid for: a stopped turn's finished calls
//! and the background calls (title and summary, retrospection), not only finished turns.

mod common;

use common::*;
use serde_json::json;
use smarthole_agent::testing::{FakeHost, Reply};
use smarthole_agent::{Host, Settings};

const MINUTE: u64 = 60_000;
/// The words of the summary's instructions (how its call is told apart from the chat).
const SUMMARY: &str = "You title and summarise conversations";
const RETROSPECTION: &str = "You review a finished conversation";
/// Output tokens the fake server reports for every answer.
const OUTPUT_PER_CALL: u64 = 5;

/// The ledger's lines, by purpose.
fn purposes(host: &FakeHost) -> Vec<String> {
    let text: String = host.paths_under("usage").iter().map(|f| host.file(f).unwrap()).collect();
    text.lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["purpose"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn a_stopped_turn_counts_the_calls_it_already_made() {
    let host = FakeHost::new();
    host.script([
        Reply::tools("Let me look.", &[("t1", "list_files", json!({}))]),
        Reply::hang(),
        Reply::text("the next one"),
    ]);
    let p = processor_with(&host, Settings { model: "claude-sonnet-4-5".into(), ..settings() });
    let (result, stopped) = host.run(async {
        let stop = async {
            host.sleep(2_000).await;
            p.cancel_current_processing()
        };
        futures::join!(p.process(direct("s1", "what is in my vault?")), stop)
    });
    assert!(stopped);
    assert_eq!(result, smarthole_agent::ProcessResult::cancelled("s1"));
    assert!(history(&host).is_empty(), "nothing recorded in the conversation");
    let totals = host.run(p.usage_totals()).unwrap();
    assert_eq!(totals.today.model_calls, 1, "the call that answered was paid for");
    assert_eq!(totals.today.output_tokens, OUTPUT_PER_CALL);
    // Output at $15 per million for this model; the fake server reports no input.
    let expected = OUTPUT_PER_CALL as f64 * 15.0 / 1e6;
    assert!(totals.today.cost_usd.is_some_and(|c| (c - expected).abs() < 1e-12), "priced from the table");
    // A finished turn adds its own call; the day and the month agree.
    let next = host.run(p.process(direct("s2", "again")));
    assert_eq!(next.usage.as_ref().map(|u| u.model_calls), Some(1));
    let totals = host.run(p.usage_totals()).unwrap();
    assert_eq!(totals.today.model_calls, 2);
    assert_eq!(totals.month, totals.today);
    assert_eq!(purposes(&host), ["turn", "turn"]);
}

#[test]
fn titles_summaries_and_retrospection_are_in_the_totals() {
    let host = FakeHost::new();
    host.script([Reply::tools("", &[("e", "end_conversation", json!({}))]), Reply::text("bye")]);
    host.script_matching(SUMMARY, Reply::text(&json!({"title": "Shed", "summary": "Planned the shed."}).to_string()));
    host.script_matching(RETROSPECTION, Reply::text("- a lesson"));
    let p = processor_with(&host, Settings { enable_conversation_retrospection: true, ..settings() });
    let result = host.run(p.process(direct("a", "plan the garden shed")));
    assert_eq!(result.usage.as_ref().map(|u| u.model_calls), Some(2), "the turn's own calls");
    host.run_for(MINUTE);
    assert!(host.file("retrospection.md").is_some_and(|f| f.contains("- a lesson")), "both background calls ran");
    let totals = host.run(p.usage_totals()).unwrap();
    assert_eq!(totals.today.model_calls, 4, "two turn calls, the summary and the retrospection");
    assert_eq!(totals.today.output_tokens, 4 * OUTPUT_PER_CALL);
    assert_eq!(purposes(&host), ["turn", "turn", "summary", "retrospection"]);
}

/// Issue 37: a ledger line holds what the totals add up and nothing twice — no counts of zero,
/// no `modelCalls` (a line is one call), no context filled (the turn's history line has it) —
/// and lines written before (with all of those) still count.
#[test]
fn a_ledger_line_holds_only_what_the_totals_add_up_and_older_lines_still_count() {
    let host = FakeHost::new();
    host.script([Reply::text("answer")]);
    let p = processor(&host);
    let result = host.run(p.process(direct("l1", "hello")));
    assert!(result.usage.as_ref().is_some_and(|u| u.context_tokens > 0), "{:?}", result.usage);
    let path = host.paths_under("usage").pop().unwrap();
    let written = host.file(&path).unwrap();
    let line: serde_json::Value = serde_json::from_str(written.trim()).unwrap();
    let usage = line["usage"].as_object().unwrap();
    for left_out in ["modelCalls", "contextTokens", "cacheReadInputTokens", "cacheCreationInputTokens"] {
        assert!(!usage.contains_key(left_out), "{left_out} in {line}");
    }
    assert_eq!(usage["outputTokens"], OUTPUT_PER_CALL);
    // A line as written before issue 37.
    let old = json!({"at": host.now_ms(), "purpose": "turn", "usage": {"inputTokens": 7, "cacheCreationInputTokens": 0,
        "cacheReadInputTokens": 0, "outputTokens": 3, "modelCalls": 1, "contextTokens": 10, "model": "m"}});
    host.put_file(&path, &format!("{written}{old}\n"));
    let totals = host.run(p.usage_totals()).unwrap();
    assert_eq!(totals.today.model_calls, 2);
    assert_eq!(totals.today.output_tokens, OUTPUT_PER_CALL + 3);
}
