//! The note tools on the FakeHost vault, driven through the pipeline by a scripted model: each
//! tool's happy path and its errors, path safety as the tools apply it, and the case rule.

mod common;

use common::*;
use serde_json::{json, Value};
use smarthole_agent::testing::FakeHost;
use smarthole_agent::Event;
use smarthole_agent::{MessageProcessor, Settings};

/// Settings with the approval-needing tools approved in advance (approvals have their own tests).
fn trusting() -> Settings {
    Settings {
        auto_approve_tools: vec!["write_file".into(), "edit_file".into(), "delete_file".into(), "move_file".into()],
        protected_folders: vec!["Private".into()],
        ..settings()
    }
}

/// Runs one tool call through a turn; returns the result the model read next, and whether it
/// was an error.
fn call(host: &FakeHost, p: &MessageProcessor<FakeHost>, name: &str, input: Value) -> (String, bool) {
    let id = format!("m{}", host.requests().len());
    tool_call(host, p, &id, name, input)
}

fn ok(host: &FakeHost, p: &MessageProcessor<FakeHost>, name: &str, input: Value) -> String {
    let (out, is_error) = call(host, p, name, input.clone());
    assert!(!is_error, "{name} {input} failed: {out}");
    out
}

fn err(host: &FakeHost, p: &MessageProcessor<FakeHost>, name: &str, input: Value) -> String {
    let (out, is_error) = call(host, p, name, input.clone());
    assert!(is_error, "{name} {input} should have failed, answered: {out}");
    out
}

fn vault() -> (FakeHost, MessageProcessor<FakeHost>) {
    let host = FakeHost::new();
    host.put_note("Notes/Plan.md", "# Plan\nstep one\nstep two\n");
    host.put_note("Notes/Ideas.md", "idea: garden\nidea: bikes #hobby\n");
    host.put_note(".obsidian/app.json", "{}");
    host.put_note("Private/diary.md", "secret");
    let p = processor_with(&host, trusting());
    (host, p)
}

#[test]
fn every_tool_is_offered_with_a_schema() {
    let (host, p) = vault();
    host.run(p.process(direct("a", "hi")));
    let tools = host.requests()[0].body["tools"].clone();
    let names: Vec<&str> = tools.as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    for name in [
        "read_file",
        "write_file",
        "edit_file",
        "create_folder",
        "delete_file",
        "move_file",
        "search_files",
        "list_files",
        "get_file_info",
        "get_active_note",
    ] {
        let tool = tools.as_array().unwrap().iter().find(|t| t["name"] == name);
        let tool = tool.unwrap_or_else(|| panic!("{name} not offered; offered: {names:?}"));
        assert_eq!(tool["input_schema"]["type"], "object", "{name}");
        assert!(!tool["description"].as_str().unwrap().is_empty());
    }
}

#[test]
fn read_file_reads_whole_notes_ranges_and_long_notes_in_pieces() {
    let (host, p) = vault();
    let out = ok(&host, &p, "read_file", json!({"path": "notes/plan"}));
    assert!(out.starts_with("Notes/Plan.md (lines 1–3 of 3):\n# Plan\nstep one\nstep two\n"), "{out}");
    let out = ok(&host, &p, "read_file", json!({"path": "Notes/Plan.md", "start_line": 2, "end_line": 2}));
    assert_eq!(out, "Notes/Plan.md (lines 2–2 of 3):\nstep one\n");
    let long: String = (1..=1000).map(|i| format!("line {i}\n")).collect();
    host.put_note("Long.md", &long);
    let out = ok(&host, &p, "read_file", json!({"path": "Long.md"}));
    assert!(out.contains("(lines 1–400 of 1000)") && out.contains("read on with start_line 401"), "{out}");
    let out = ok(&host, &p, "read_file", json!({"path": "Long.md", "start_line": 401}));
    assert!(out.contains("line 401\n") && !out.contains("line 400\n"));

    assert!(err(&host, &p, "read_file", json!({"path": "Notes/Missing.md"})).contains("list_files or search_files"));
    assert!(err(&host, &p, "read_file", json!({"path": "Notes/Plan.md", "start_line": 9})).contains("has 3 lines"));
    assert!(err(&host, &p, "read_file", json!({"path": "Notes"})).contains("is a folder"));
    assert!(err(&host, &p, "read_file", json!({"file": "Notes/Plan.md"})).starts_with("Invalid input for read_file"));
}

#[test]
fn protected_and_escaping_paths_are_refused_by_every_tool() {
    let (host, p) = vault();
    let attempts = [
        ("read_file", json!({"path": ".obsidian/app.json"})),
        ("read_file", json!({"path": "Notes/../../etc/passwd"})),
        ("read_file", json!({"path": "/etc/passwd"})),
        ("read_file", json!({"path": "private/diary.md"})),
        ("write_file", json!({"path": ".smarthole/inbox/x.json", "content": "{}"})),
        ("write_file", json!({"path": "%2e%2e/x.md", "content": "x"})),
        (
            "edit_file",
            json!({"path": ".OBSIDIAN/app.json", "operation": "delete_lines", "start_line": 1, "end_line": 1}),
        ),
        ("delete_file", json!({"path": ".obsidian/app.json"})),
        ("move_file", json!({"from": "Notes/Plan.md", "to": ".trash/Plan.md"})),
        ("move_file", json!({"from": "Notes/Plan.md", "to": "../Plan.md"})),
        ("create_folder", json!({"path": ".git/hooks"})),
        ("search_files", json!({"query": "x", "folder": "Private"})),
        ("list_files", json!({"folder": "../"})),
        ("get_file_info", json!({"path": "\u{FF0E}\u{FF0E}/x.md"})),
    ];
    for (tool, input) in attempts {
        let out = err(&host, &p, tool, input);
        assert!(out.contains("refused"), "{tool}: {out}");
    }
    assert_eq!(host.note(".obsidian/app.json").as_deref(), Some("{}"));
    assert_eq!(host.note("Notes/Plan.md").as_deref(), Some("# Plan\nstep one\nstep two\n"));
    assert!(host.trashed().is_empty());
    // Listings and searches never show what is protected.
    let listed = ok(&host, &p, "list_files", json!({}));
    assert!(!listed.contains(".obsidian") && !listed.contains("diary"), "{listed}");
    let found = ok(&host, &p, "search_files", json!({"query": "secret"}));
    assert!(found.starts_with("No note matches"), "{found}");
}

#[test]
fn one_case_rule_exact_first_then_a_unique_case_insensitive_match() {
    let (host, p) = vault();
    host.put_note("Inbox/todo.md", "lower");
    host.put_note("Inbox/TODO.md", "upper");
    assert!(ok(&host, &p, "read_file", json!({"path": "Inbox/todo.md"})).contains("lower"));
    assert!(ok(&host, &p, "read_file", json!({"path": "Inbox/TODO.md"})).contains("upper"));
    let out = err(&host, &p, "read_file", json!({"path": "inbox/Todo.md"}));
    assert!(out.contains("Inbox/todo.md") && out.contains("Inbox/TODO.md"), "ambiguous names both: {out}");
    assert!(ok(&host, &p, "read_file", json!({"path": "NOTES/IDEAS.MD"})).contains("garden"));
}

#[test]
fn write_file_creates_notes_and_overwrites_existing_ones() {
    let (host, p) = vault();
    assert_eq!(
        ok(&host, &p, "write_file", json!({"path": "Ideas/New", "content": "a\nb"})),
        "Created Ideas/New.md (2 lines)."
    );
    assert_eq!(host.note("Ideas/New.md").as_deref(), Some("a\nb"));
    let out = ok(&host, &p, "write_file", json!({"path": "notes/plan.md", "content": "replaced"}));
    assert_eq!(out, "Replaced the content of Notes/Plan.md (1 lines).");
    assert_eq!(host.note("Notes/Plan.md").as_deref(), Some("replaced"));
    assert!(err(&host, &p, "write_file", json!({"path": "Notes", "content": "x"})).contains("is a folder"));
    assert!(err(&host, &p, "write_file", json!({"path": "", "content": "x"})).contains("file name"));
    assert!(err(&host, &p, "write_file", json!({"path": "a.md"})).starts_with("Invalid input for write_file"));
}

#[test]
fn edit_file_replaces_inserts_and_deletes_and_refuses_an_ambiguous_match() {
    let (host, p) = vault();
    let ideas = "Notes/Ideas.md";
    let out = err(
        &host,
        &p,
        "edit_file",
        json!({"path": ideas, "operation": "replace", "old_text": "idea:", "new_text": "plan:"}),
    );
    assert!(out.contains("2") && out.contains("replace_all") && out.contains("not changed"), "{out}");
    assert_eq!(
        host.note(ideas).as_deref(),
        Some("idea: garden\nidea: bikes #hobby\n"),
        "an ambiguous edit changes nothing"
    );
    ok(
        &host,
        &p,
        "edit_file",
        json!({"path": ideas, "operation": "replace", "old_text": "garden", "new_text": "pond"}),
    );
    assert_eq!(host.note(ideas).as_deref(), Some("idea: pond\nidea: bikes #hobby\n"));
    ok(
        &host,
        &p,
        "edit_file",
        json!({"path": ideas, "operation": "replace", "old_text": "idea:", "new_text": "plan:", "replace_all": true}),
    );
    assert_eq!(host.note(ideas).as_deref(), Some("plan: pond\nplan: bikes #hobby\n"));
    ok(
        &host,
        &p,
        "edit_file",
        json!({"path": ideas, "operation": "insert", "line": 1, "position": "after", "text": "plan: kites"}),
    );
    assert_eq!(host.note(ideas).as_deref(), Some("plan: pond\nplan: kites\nplan: bikes #hobby\n"));
    ok(
        &host,
        &p,
        "edit_file",
        json!({"path": ideas, "operation": "insert", "line": 1, "position": "before", "text": "# Ideas"}),
    );
    ok(&host, &p, "edit_file", json!({"path": ideas, "operation": "delete_lines", "start_line": 2, "end_line": 3}));
    assert_eq!(host.note(ideas).as_deref(), Some("# Ideas\nplan: bikes #hobby\n"));

    assert!(err(
        &host,
        &p,
        "edit_file",
        json!({"path": ideas, "operation": "replace", "old_text": "zzz", "new_text": "y"})
    )
    .contains("not found"));
    assert!(err(&host, &p, "edit_file", json!({"path": ideas, "operation": "replace", "old_text": "x"}))
        .contains("replace needs new_text"));
    assert!(err(
        &host,
        &p,
        "edit_file",
        json!({"path": ideas, "operation": "delete_lines", "start_line": 5, "end_line": 9})
    )
    .contains("not changed"));
    assert!(err(&host, &p, "edit_file", json!({"path": ideas, "operation": "rewrite"}))
        .contains("`operation` must be one of"));
    assert!(err(
        &host,
        &p,
        "edit_file",
        json!({"path": ideas, "operation": "insert", "line": 1, "text": "x", "position": "middle"})
    )
    .contains("position"));
    assert_eq!(host.note(ideas).as_deref(), Some("# Ideas\nplan: bikes #hobby\n"), "failed edits change nothing");
}

#[test]
fn folders_are_created_once_and_never_over_a_file() {
    let (host, p) = vault();
    assert_eq!(ok(&host, &p, "create_folder", json!({"path": "Projects/2026"})), "Created the folder Projects/2026.");
    assert!(host.folders().contains(&"Projects/2026".to_owned()));
    assert!(ok(&host, &p, "create_folder", json!({"path": "notes"})).contains("already exists"));
    assert!(err(&host, &p, "create_folder", json!({"path": "Notes/Plan.md"})).contains("as a file"));
    let out = err(&host, &p, "create_folder", json!({"path": "./"}));
    assert!(out.contains("folder name"), "{out}");
}

#[test]
fn delete_goes_to_the_trash_and_move_keeps_names_and_refuses_to_overwrite() {
    let (host, p) = vault();
    assert_eq!(ok(&host, &p, "delete_file", json!({"path": "notes/ideas"})), "Moved Notes/Ideas.md to the trash.");
    assert_eq!(host.trashed(), [("Notes/Ideas.md".to_owned(), "idea: garden\nidea: bikes #hobby\n".to_owned())]);
    let out = err(&host, &p, "delete_file", json!({"path": "Notes/Ideas.md"}));
    assert!(out.contains("is not a note or folder of this vault"), "{out}");

    host.put_note("Archive/old.md", "x");
    assert_eq!(
        ok(&host, &p, "move_file", json!({"from": "Notes/Plan.md", "to": "archive"})),
        "Moved Notes/Plan.md to Archive/Plan.md."
    );
    assert!(host.note("Archive/Plan.md").is_some() && host.note("Notes/Plan.md").is_none());
    assert_eq!(
        ok(&host, &p, "move_file", json!({"from": "Archive/Plan.md", "to": "Projects/Roadmap"})),
        "Moved Archive/Plan.md to Projects/Roadmap.md."
    );
    assert!(host.folders().contains(&"Projects".to_owned()), "the target folder is created");
    assert!(err(&host, &p, "move_file", json!({"from": "Projects/Roadmap.md", "to": "Archive/old.md"}))
        .contains("already exists"));
    assert!(err(&host, &p, "move_file", json!({"from": "Nope.md", "to": "x.md"})).contains("is not a note"));
}

#[test]
fn search_ranks_notes_with_excerpts_and_reports_bad_patterns() {
    let (host, p) = vault();
    host.put_note("Garden.md", "garden garden\nthe garden again");
    let out = ok(&host, &p, "search_files", json!({"query": "garden"}));
    assert!(out.starts_with("2 notes match \"garden\""), "{out}");
    let garden = out.find("Garden.md").unwrap();
    let ideas = out.find("Notes/Ideas.md").unwrap();
    assert!(garden < ideas, "more matches and a matching name rank first: {out}");
    assert!(out.contains("1: garden garden"), "{out}");
    let out = ok(&host, &p, "search_files", json!({"query": "^step (one|two)$", "regex": true, "folder": "notes"}));
    assert!(out.contains("Notes/Plan.md — 2 matches"), "{out}");
    assert!(ok(&host, &p, "search_files", json!({"query": "GARDEN", "case_sensitive": true}))
        .starts_with("No note matches"));
    assert!(err(&host, &p, "search_files", json!({"query": "(unclosed", "regex": true}))
        .starts_with("Invalid input for search_files"));

    // Catastrophic in a backtracking engine; linear here.
    host.put_note("Evil.md", &format!("{}!", "a".repeat(50_000)));
    // Each answers in full; a backtracking engine would not come back from either on 50,000
    // characters (no clock is read: the answer is the behaviour).
    for pattern in ["(a+)+$", "(a|aa)*c"] {
        let out = ok(&host, &p, "search_files", json!({"query": pattern, "regex": true}));
        assert!(out.starts_with("No note matches"), "{pattern}: {out}");
    }
}

#[test]
fn list_files_is_newest_first_filtered_and_capped() {
    let host = FakeHost::new();
    let p = processor_with(&host, trusting());
    for i in 0..60 {
        host.put_note(&format!("Daily/2026-01-{:02}.md", i % 28 + 1), "x");
        host.put_note(&format!("Other/{i}.txt"), "y");
        host.advance(1_000);
    }
    let out = ok(&host, &p, "list_files", json!({"glob": "Daily/2026-*"}));
    assert!(out.starts_with("28 files, newest first:"), "{out}");
    let out = ok(&host, &p, "list_files", json!({"folder": "Other", "limit": 5}));
    let shown: Vec<&str> = out.lines().skip(1).take(5).map(|l| l.split(' ').next().unwrap()).collect();
    assert_eq!(shown, ["Other/59.txt", "Other/58.txt", "Other/57.txt", "Other/56.txt", "Other/55.txt"]);
    assert!(out.contains("[55 more;"), "{out}");
    assert_eq!(ok(&host, &p, "list_files", json!({"glob": "**/*.pdf"})), "No files match.");
    assert!(err(&host, &p, "list_files", json!({"limit": "ten"})).starts_with("Invalid input for list_files"));
}

#[test]
fn file_info_and_the_active_note() {
    let (host, p) = vault();
    host.put_note("Topic.md", "# Title\n## Part\nSee [[Plan|the plan]] and [[Ideas]]. #project #2026 #project\n");
    let out = ok(&host, &p, "get_file_info", json!({"path": "Topic.md"}));
    for expected in ["Topic.md\n", "lines: 3", "headings: # Title | ## Part", "tags: #project", "links: Ideas, Plan"] {
        assert!(out.contains(expected), "{expected:?} missing from {out}");
    }
    assert!(!out.contains("#2026"), "a number is not a tag: {out}");
    assert_eq!(ok(&host, &p, "get_active_note", json!({})), "No note is open in the editor.");
    host.set_active_note(Some("Notes/Plan.md"));
    assert!(ok(&host, &p, "get_active_note", json!({})).starts_with("The open note is Notes/Plan.md:\n# Plan"));
    host.set_active_note(Some("Private/diary.md"));
    assert!(err(&host, &p, "get_active_note", json!({})).contains("may not read"));
}

#[test]
fn a_tool_that_changes_notes_reports_it_in_the_chat() {
    let (host, p) = vault();
    ok(&host, &p, "write_file", json!({"path": "Ideas/New", "content": "x"}));
    let finished = host.events().into_iter().any(|e| {
        matches!(e, Event::ToolFinished { name, is_error: false, output, .. } if name == "write_file" && output == "Created Ideas/New.md (1 lines).")
    });
    assert!(finished, "the chat shows what the tool did");
}
