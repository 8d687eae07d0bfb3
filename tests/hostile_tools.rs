//! Bounded tools (issue 14) on the FakeHost: a scripted model calls the note tools with hostile
//! input — globs that would expand or backtrack for ever, regexes that compile huge or run slowly
//! over a 1 MB note, a replacement whose result would fill memory, scans longer than the 10 s
//! budget — and each call is answered or refused with a reason the model can act on. After each
//! case the vault is as it was, no history line is lost, and the next message is answered. Stop
//! during a long search ends the search before it completes.

mod common;

use std::task::Poll;

use common::*;
use serde_json::{json, Value};
use smarthole_agent::testing::{FakeHost, Reply};
use smarthole_agent::{Event, ProcessResult, Settings};

fn trusting() -> Settings {
    Settings { auto_approve_tools: vec!["write_file".into(), "edit_file".into()], ..settings() }
}

/// Every note and its text.
fn vault_state(host: &FakeHost) -> Vec<(String, Option<String>)> {
    host.notes().into_iter().map(|n| (n.clone(), host.note(&n))).collect()
}

/// 1 MB of text: 1,000 lines of 1,000 `a`.
fn megabyte_of_lines() -> String {
    format!("{}\n", "a".repeat(1_000)).repeat(1_000)
}

/// The same with a `b` ending each line: every line holds `a{0,1000}b`'s literal, so its literal
/// prefilter passes over none of them and the pattern runs on each.
fn megabyte_of_lines_ending_in_b() -> String {
    format!("{}b\n", "a".repeat(999)).repeat(1_000)
}

struct Case {
    name: &'static str,
    notes: Vec<(String, String)>,
    tool: &'static str,
    input: Value,
    /// Virtual ms each reading of the clock costs (a slow machine), to reach the budget.
    clock_step: u64,
    /// Virtual ms listing the vault takes (a big vault on a slow disk).
    list_ms: u64,
    error: bool,
    says: &'static [&'static str],
}

fn cases() -> Vec<Case> {
    let ten_groups = "{a,b,c,d}".repeat(10) + "*.md";
    let many_folders = "**/".repeat(50) + "*.md";
    let mb_line = "a".repeat(1_000_000);
    let many: Vec<(String, String)> =
        (0..200).map(|i| (format!("Many/n{i:03}.md"), format!("note {i}\n{}", "text line\n".repeat(50)))).collect();
    vec![
        Case {
            name: "ten brace groups",
            notes: vec![("Notes/abcdabcdab.md".into(), "x".into())],
            tool: "list_files",
            input: json!({"glob": format!("**/{ten_groups}")}),
            clock_step: 0,
            list_ms: 0,
            error: false,
            says: &["1 files, newest first:", "Notes/abcdabcdab.md"],
        },
        Case {
            name: "**/ fifty times",
            notes: vec![(format!("{}x.md", "d/".repeat(60)), "x".into())],
            tool: "list_files",
            input: json!({"glob": many_folders}),
            clock_step: 0,
            list_ms: 0,
            error: false,
            says: &["2 files, newest first:", "d/d/x.md", "Notes/Plan.md"],
        },
        Case {
            name: "**/ fifty times, no match",
            notes: vec![(format!("{}x.md", "d/".repeat(60)), "x".into())],
            tool: "list_files",
            input: json!({"glob": "**/".repeat(50) + "*.pdf"}),
            clock_step: 0,
            list_ms: 0,
            error: false,
            says: &["No files match."],
        },
        Case {
            name: "a glob too long",
            notes: vec![],
            tool: "list_files",
            input: json!({"glob": "*".repeat(5_000)}),
            clock_step: 0,
            list_ms: 0,
            error: true,
            says: &["5000 characters long; at most 1000"],
        },
        Case {
            name: "too many brace groups",
            notes: vec![],
            tool: "list_files",
            input: json!({"glob": "{a,b}".repeat(40)}),
            clock_step: 0,
            list_ms: 0,
            error: true,
            says: &["40 brace groups; at most 32"],
        },
        Case {
            name: "braces nested too deep",
            notes: vec![],
            tool: "list_files",
            input: json!({"glob": "{a,".repeat(20) + &"}".repeat(20)}),
            clock_step: 0,
            list_ms: 0,
            error: true,
            says: &["nests braces 20 deep"],
        },
        Case {
            name: "a{0,1000}b over a 1 MB one-line note",
            notes: vec![("Big.md".into(), mb_line.clone())],
            tool: "search_files",
            input: json!({"query": "a{0,1000}b", "regex": true, "case_sensitive": true}),
            clock_step: 0,
            list_ms: 0,
            error: false,
            says: &["No note matches", "long lines were searched in their first"],
        },
        Case {
            name: "a{0,1000}b over 1 MB of lines on a slow machine",
            notes: vec![("Big.md".into(), megabyte_of_lines_ending_in_b())],
            tool: "search_files",
            input: json!({"query": "a{0,1000}b", "regex": true, "case_sensitive": true}),
            clock_step: 1_000,
            list_ms: 0,
            error: false,
            says: &["search stopped after", "0 of 2 notes searched"],
        },
        Case {
            name: "nested counted repetition",
            notes: vec![("Big.md".into(), mb_line.clone())],
            tool: "search_files",
            input: json!({"query": "(a{0,100}){0,100}b", "regex": true}),
            clock_step: 0,
            list_ms: 0,
            error: true,
            says: &["too large once compiled", "plain-text search"],
        },
        Case {
            name: "nested stars over 1 MB",
            notes: vec![("Big.md".into(), megabyte_of_lines())],
            tool: "search_files",
            input: json!({"query": "(a*)*b|(a|aa)*c", "regex": true, "case_sensitive": true}),
            clock_step: 0,
            list_ms: 0,
            error: false,
            says: &["No note matches \"(a*)*b|(a|aa)*c\" (2 notes searched)."],
        },
        Case {
            name: "a search longer than the budget",
            notes: many.clone(),
            tool: "search_files",
            input: json!({"query": "text line"}),
            clock_step: 100,
            list_ms: 0,
            error: false,
            says: &["search stopped after 10 s:", "of 201 notes searched"],
        },
        Case {
            name: "a search whose vault takes 5 s to list, then longer than the budget",
            notes: many.clone(),
            tool: "search_files",
            input: json!({"query": "text line"}),
            clock_step: 100,
            list_ms: 5_000,
            error: false,
            says: &["search stopped after 10 s:", "of 201 notes searched"],
        },
        Case {
            name: "a listing longer than the budget",
            notes: many,
            tool: "list_files",
            input: json!({"glob": "**/*.md"}),
            clock_step: 100,
            list_ms: 0,
            error: false,
            says: &["listing stopped after 10 s:", "entries looked at"],
        },
        Case {
            name: "replace-all of a with 1 MB in a 1 MB note",
            notes: vec![("Big.md".into(), mb_line.clone())],
            tool: "edit_file",
            input: json!({"path": "Big.md", "operation": "replace", "old_text": "a", "new_text": mb_line, "replace_all": true}),
            clock_step: 0,
            list_ms: 0,
            error: true,
            says: &["would make Big.md 1000000000000 bytes long", "The note was not changed."],
        },
        Case {
            name: "an insert growing a 9 MB note past 10 MB",
            notes: vec![("Big.md".into(), megabyte_of_lines().repeat(9))],
            tool: "edit_file",
            input: json!({"path": "Big.md", "operation": "insert", "line": 1, "text": "x".repeat(2 * 1024 * 1024)}),
            clock_step: 0,
            list_ms: 0,
            error: true,
            says: &["over the 10485760 bytes a note may have", "The note was not changed."],
        },
    ]
}

#[test]
fn hostile_tool_calls_are_answered_or_refused_and_the_host_goes_on() {
    for (n, case) in cases().into_iter().enumerate() {
        let host = FakeHost::new();
        host.put_note("Notes/Plan.md", "# Plan\nwater the plants\n");
        for (path, text) in &case.notes {
            host.put_note(path, text);
        }
        let p = processor_with(&host, trusting());
        // A conversation already on disk, whose lines must all survive.
        host.script([Reply::text("earlier answer")]);
        host.run(p.process(direct(&format!("before-{n}"), "earlier")));
        let (vault_before, history_before) = (vault_state(&host), history(&host));

        host.set_clock_step(case.clock_step);
        host.set_list_ms(case.list_ms);
        let started = host.now();
        let (out, is_error) = tool_call(&host, &p, &format!("case-{n}"), case.tool, case.input);
        if case.list_ms > 0 {
            // The tool's 10 s include the listing: it answers with what it found by then, not
            // 10 s after a slow listing (past the 12 s after which the host gives up on it).
            let took = host.now() - started;
            assert!(took < 12_000, "{}: answered after {took} virtual ms", case.name);
        }
        host.set_clock_step(0);
        host.set_list_ms(0);
        assert_eq!(is_error, case.error, "{}: {out}", case.name);
        for needle in case.says {
            assert!(out.contains(needle), "{}: expected {needle:?} in {out}", case.name);
        }
        assert_eq!(vault_state(&host), vault_before, "{}: the vault changed", case.name);
        let history_after = history(&host);
        for line in &history_before {
            assert!(history_after.contains(line), "{}: a history line was lost", case.name);
        }
        host.script([Reply::text("still here")]);
        let next = host.run(p.process(direct(&format!("after-{n}"), "are you there?")));
        assert_eq!(next.response.as_deref(), Some("still here"), "{}: the next message", case.name);
    }
}

#[test]
fn stop_during_a_long_search_ends_it_before_it_completes() {
    let host = FakeHost::new();
    for i in 0..2_000 {
        host.put_note(&format!("Archive/n{i:04}.md"), &"lorem ipsum dolor sit amet\n".repeat(100));
    }
    let p = processor_with(&host, trusting());
    let before = vault_state(&host);
    host.script([
        Reply::tools("", &[("s", "search_files", json!({"query": "needle that is nowhere"}))]),
        Reply::text("the answer after the stop"),
    ]);
    let search_started = |host: &FakeHost| {
        host.events().iter().any(|e| matches!(e, Event::ToolStarted { name, .. } if name == "search_files"))
    };
    let (result, stopped) = host.run(async {
        let stop = async {
            // As soon as the search runs (the user presses Stop while it scans).
            futures::future::poll_fn(|cx| {
                if search_started(&host) {
                    Poll::Ready(())
                } else {
                    cx.waker().wake_by_ref();
                    Poll::Pending
                }
            })
            .await;
            p.cancel_current_processing()
        };
        futures::join!(p.process(direct("long", "find the needle")), stop)
    });
    assert!(stopped, "Stop was acknowledged");
    assert_eq!(result, ProcessResult::cancelled("long"));
    assert!(
        !host.events().iter().any(|e| matches!(e, Event::ToolFinished { .. })),
        "the search ended before it completed"
    );
    assert_eq!(host.requests().len(), 1, "the model never saw a search result");
    assert_eq!(vault_state(&host), before);
    let next = host.run(p.process(direct("next", "hello again")));
    assert_eq!(next.response.as_deref(), Some("the answer after the stop"));
}
