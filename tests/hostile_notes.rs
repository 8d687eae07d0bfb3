//! Notes and undo that must not be trusted (issue 32, points 5–7), on the FakeHost vault: a note
//! that is not valid UTF-8 is never rewritten where an edit did not touch it, undo of a move
//! moves back only what the agent moved, and a forged or stale undo journal is held to the same
//! path rules as the tools.

mod common;

use common::*;
use serde_json::{json, Value};
use smarthole_agent::testing::internals::content_hash;
use smarthole_agent::testing::FakeHost;
use smarthole_agent::{EntryKind, Event, MessageProcessor, Settings, VaultEntry};

/// The tools that change notes, auto-approved: each change is applied at once.
fn trusting() -> Settings {
    Settings {
        auto_approve_tools: vec!["write_file".into(), "edit_file".into(), "delete_file".into(), "move_file".into()],
        protected_folders: vec!["Private".into()],
        ..settings()
    }
}

/// A Latin-1 note: `é` as the single byte 0xE9, and a stray 0xFF — not UTF-8.
const LATIN1: &[u8] = b"# Caf\xe9\nalpha\nbeta \xff end\n";

fn approvals_asked(host: &FakeHost) -> usize {
    host.events().iter().filter(|e| matches!(e, Event::ApprovalRequested { .. })).count()
}

fn changes_applied(host: &FakeHost) -> usize {
    host.events().iter().filter(|e| matches!(e, Event::ChangeApplied { .. })).count()
}

#[test]
fn an_edit_or_overwrite_of_a_note_that_is_not_utf8_is_refused_and_leaves_every_byte() {
    for settings in [trusting(), settings()] {
        let host = FakeHost::new();
        host.put_note_bytes("Latin.md", LATIN1);
        let p = processor_with(&host, settings);
        let calls: [(&str, Value); 3] = [
            (
                "edit_file",
                json!({"path": "Latin.md", "operation": "replace", "old_text": "alpha", "new_text": "ALPHA"}),
            ),
            ("edit_file", json!({"path": "Latin.md", "operation": "insert", "line": 1, "text": "top"})),
            ("write_file", json!({"path": "Latin.md", "content": "all new\n"})),
        ];
        for (i, (tool, input)) in calls.into_iter().enumerate() {
            let (out, is_error) = tool_call(&host, &p, &format!("m{i}"), tool, input);
            assert!(is_error, "{tool}: {out}");
            assert!(out.contains("Latin.md is not valid UTF-8 text") && out.contains("Nothing was changed"), "{out}");
            assert_eq!(host.note_bytes("Latin.md").unwrap(), LATIN1, "{tool}: every byte as it was");
        }
        assert_eq!(approvals_asked(&host), 0, "the user is never asked to approve what cannot be applied exactly");
        assert_eq!(changes_applied(&host), 0);
        // Reading it is still possible (what is not UTF-8 shows as U+FFFD).
        let (out, is_error) = tool_call(&host, &p, "r", "read_file", json!({"path": "Latin.md"}));
        assert!(!is_error && out.contains("alpha"), "{out}");
    }
}

#[test]
fn a_valid_note_with_a_byte_order_mark_and_crlf_is_still_edited_byte_exactly() {
    let host = FakeHost::new();
    host.put_note("Bom.md", "\u{feff}# Title\r\nalpha\r\nomega");
    let p = processor_with(&host, trusting());
    let (out, is_error) = tool_call(
        &host,
        &p,
        "m1",
        "edit_file",
        json!({"path": "Bom.md", "operation": "replace", "old_text": "alpha", "new_text": "beta"}),
    );
    assert!(!is_error, "{out}");
    assert_eq!(host.note("Bom.md").unwrap(), "\u{feff}# Title\r\nbeta\r\nomega");
    let report = host.run(p.undo_turn("m1"));
    assert_eq!(report.restored, vec!["Bom.md".to_owned()], "{report:?}");
    assert_eq!(host.note("Bom.md").unwrap(), "\u{feff}# Title\r\nalpha\r\nomega");
}

#[test]
fn undo_of_a_deleted_note_that_is_not_utf8_never_recreates_it_with_other_bytes() {
    let host = FakeHost::new();
    host.put_note_bytes("Latin.md", LATIN1);
    let p = processor_with(&host, trusting());
    let (out, is_error) = tool_call(&host, &p, "m1", "delete_file", json!({"path": "Latin.md"}));
    assert!(!is_error, "{out}");
    assert_eq!(host.note("Latin.md"), None, "deleted (to the trash, whole)");
    let report = host.run(p.undo_turn("m1"));
    assert!(report.restored.is_empty(), "{report:?}");
    assert_eq!(report.refused.len(), 1, "{report:?}");
    assert!(report.refused[0].reason.contains("restore it from the trash"), "{report:?}");
    assert_eq!(host.note_bytes("Latin.md"), None, "no copy with U+FFFD in place of its bytes");
}

#[test]
fn undo_of_a_move_never_moves_a_note_the_user_put_at_the_target() {
    let host = FakeHost::new();
    host.put_note("A.md", "the agent moved me\n");
    let p = processor_with(&host, trusting());
    let (out, is_error) = tool_call(&host, &p, "m1", "move_file", json!({"from": "A.md", "to": "B.md"}));
    assert!(!is_error, "{out}");
    // The user moves the note on and makes a new one where it was put.
    assert!(host.rename_note("B.md", "C.md"));
    host.put_note("B.md", "the user's own new note\n");
    let report = host.run(p.undo_turn("m1"));
    assert!(report.restored.is_empty(), "{report:?}");
    assert_eq!(report.refused.len(), 1, "{report:?}");
    assert!(report.refused[0].reason.contains("not the note the agent moved"), "{report:?}");
    assert_eq!(host.note("B.md").unwrap(), "the user's own new note\n");
    assert_eq!(host.note("A.md"), None);
    // Once the note the agent moved is back at the target, undo moves it back.
    host.remove_note("B.md");
    assert!(host.rename_note("C.md", "B.md"));
    let report = host.run(p.undo_turn("m1"));
    assert_eq!(report.restored, vec!["A.md".to_owned()], "{report:?}");
    assert_eq!(host.note("A.md").unwrap(), "the agent moved me\n");
}

/// A journal line as the tools write them.
fn record(kind: &str, path: &str, to: Option<&str>, before: Option<&str>, after: Option<&str>) -> String {
    let mut change = json!({"kind": kind, "path": path, "baseHash": "", "hunks": []});
    if let Some(to) = to {
        change["to"] = json!(to);
    }
    let mut line = json!({"change": change});
    if let Some(before) = before {
        line["before"] = json!(before);
    }
    if let Some(after) = after {
        line["afterHash"] = json!(content_hash(after));
    }
    line.to_string()
}

#[test]
fn a_forged_undo_journal_is_held_to_the_tools_path_rules() {
    let host = FakeHost::new();
    host.put_note(".obsidian/app.json", "{}");
    host.put_note(".git/config", "[core]");
    host.put_note("Private/diary.md", "dear diary\n");
    host.put_note("Notes/x.md", "x\n");
    host.put_unusual(
        VaultEntry {
            path: "cfg".into(),
            is_folder: true,
            kind: EntryKind::Plain,
            real_path: Some(".obsidian".into()),
            ..VaultEntry::default()
        },
        None,
    );
    let p = processor_with(&host, trusting());
    let lines = [
        record("edit", ".obsidian/app.json", None, Some("{\"pwned\":true}"), Some("{}")),
        record("overwrite", "Private/diary.md", None, Some("rewritten"), Some("dear diary\n")),
        record("edit", "cfg/app.json", None, Some("through a link"), Some("{}")),
        record("create", ".git/config", None, None, Some("[core]")),
        record("delete", "Private/new.md", None, Some("planted"), None),
        record("move", ".trash/x.md", Some("Notes/x.md"), None, Some("x\n")),
        record("edit", "Notes/../../outside.md", None, Some("out"), Some("")),
        // A move recorded without what was moved (an older version): nothing to check it by.
        record("move", "Notes/y.md", Some("Notes/x.md"), None, None),
    ];
    host.put_file("undo/forged.jsonl", &(lines.join("\n") + "\n"));
    let report = host.run(p.undo_turn("forged"));
    assert!(report.restored.is_empty(), "{report:?}");
    assert_eq!(report.refused.len(), lines.len(), "{report:?}");
    let reason = |path: &str| report.refused.iter().find(|r| r.path == path).map(|r| r.reason.clone()).unwrap();
    assert!(reason(".obsidian/app.json").contains("protected folder"), "{report:?}");
    assert!(reason("Private/diary.md").contains("protected folder"), "{report:?}");
    assert!(reason("cfg/app.json").contains("protected folder"), "{report:?}");
    assert!(reason(".git/config").contains("protected folder"), "{report:?}");
    assert!(reason("Private/new.md").contains("protected folder"), "{report:?}");
    assert!(reason(".trash/x.md").contains("protected folder"), "{report:?}");
    assert!(reason("Notes/../../outside.md").contains("leaves the vault"), "{report:?}");
    assert!(reason("Notes/y.md").contains("cannot check"), "{report:?}");
    assert_eq!(host.note(".obsidian/app.json").unwrap(), "{}");
    assert_eq!(host.note(".git/config").unwrap(), "[core]");
    assert_eq!(host.note("Private/diary.md").unwrap(), "dear diary\n");
    assert_eq!(host.note("Private/new.md"), None);
    assert_eq!(host.note("Notes/x.md").unwrap(), "x\n");
    assert!(host.trashed().is_empty());
    assert!(host.unusual_touches().is_empty(), "{:?}", host.unusual_touches());
    answers_again(&host, &p);
}

fn answers_again(host: &FakeHost, p: &MessageProcessor<FakeHost>) {
    host.script([smarthole_agent::testing::Reply::text("still here")]);
    let result = host.run(p.process(direct("next", "hello")));
    assert!(result.success && result.response.as_deref() == Some("still here"), "{result:?}");
}

#[test]
fn a_host_that_leaves_the_byte_order_mark_out_of_a_notes_text_can_still_edit_and_undo_it() {
    let host = FakeHost::new();
    host.strip_bom_from_text();
    host.put_note("Bom.md", "\u{feff}# Title\nalpha\n");
    let p = processor_with(&host, trusting());
    let edit = json!({"path": "Bom.md", "operation": "replace", "old_text": "alpha", "new_text": "beta"});
    let (out, is_error) = tool_call(&host, &p, "m1", "edit_file", edit);
    assert!(!is_error, "{out}");
    assert_eq!(host.note("Bom.md").unwrap(), "# Title\nbeta\n", "written as the host writes its text");
    let report = host.run(p.undo_turn("m1"));
    assert_eq!(report.restored, vec!["Bom.md".to_owned()], "{report:?}");
    assert_eq!(host.note("Bom.md").unwrap(), "# Title\nalpha\n");
}

/// The vault's configuration folder is whatever the host says it is (Obsidian's `configDir`):
/// the tools, the `@` picker and attaching keep out of it, and out of `.obsidian` still (another
/// device syncing the vault may use it), as the core's one list says.
#[test]
fn the_hosts_configuration_folder_is_out_of_reach_whatever_its_name() {
    let host = FakeHost::new();
    host.set_config_folder(".config-phone");
    host.put_note(".config-phone/app.json", "{\"phone\": true}");
    host.put_note(".obsidian/app.json", "{}");
    host.put_note("Notes/a.md", "alpha");
    let p = processor_with(&host, trusting());
    for (i, (tool, input)) in [
        ("read_file", json!({"path": ".config-phone/app.json"})),
        ("read_file", json!({"path": ".CONFIG-PHONE/app.json"})),
        ("write_file", json!({"path": ".config-phone/evil.json", "content": "x"})),
        ("list_files", json!({"folder": ".config-phone"})),
        ("read_file", json!({"path": ".obsidian/app.json"})),
    ]
    .into_iter()
    .enumerate()
    {
        let (out, is_error) = tool_call(&host, &p, &format!("m{i}"), tool, input);
        assert!(is_error && out.contains("protected"), "{tool}: {out}");
    }
    let (out, _) = tool_call(&host, &p, "all", "list_files", json!({}));
    assert!(out.contains("Notes/a.md") && !out.contains("config-phone"), "{out}");
    assert_eq!(host.note(".config-phone/evil.json"), None);
    let offered: Vec<String> = host.run(p.mentions("json", 10)).into_iter().map(|m| m.path).collect();
    assert!(offered.is_empty(), "{offered:?}");
    let refused = common::attachments::attach(&host, &trusting(), ".config-phone/app.json").unwrap_err();
    assert!(refused.to_string().contains("protected"), "{refused}");
}
