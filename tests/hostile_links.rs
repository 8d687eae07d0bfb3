//! Real locations on the FakeHost vault (issue 14): every symlink form and special file the host
//! can report, through every note tool, driven by a scripted model. After each case: the core
//! never handed the host a path on or through a link or special file (except reading a file of
//! a followed linked folder), the protected note is untouched, nothing went to the trash that
//! should not, and the processor answers the next message.

mod common;

use common::*;
use serde_json::{json, Value};
use smarthole_agent::testing::internals::{locate, protected_folders, Access};
use smarthole_agent::testing::{FakeHost, Reply};
use smarthole_agent::{EntryKind, MessageProcessor, Settings, VaultEntry};

fn settings_for(follow: bool) -> Settings {
    Settings {
        auto_approve_tools: vec!["write_file".into(), "edit_file".into(), "delete_file".into(), "move_file".into()],
        follow_linked_folders: follow,
        ..settings()
    }
}

fn link(path: &str, is_folder: bool, kind: EntryKind, real: Option<&str>) -> VaultEntry {
    VaultEntry { path: path.into(), is_folder, kind, real_path: real.map(str::to_owned), ..VaultEntry::default() }
}

/// A vault with every link form and special file next to two plain notes and a protected one.
fn world(follow: bool) -> (FakeHost, MessageProcessor<FakeHost>) {
    let host = FakeHost::new();
    host.put_note("notes/a.md", "alpha note\n");
    host.put_note("notes/b.md", "beta note\n");
    host.put_note(".obsidian/app.json", "{}");
    host.put_note(".git/config", "[core]");
    for (entry, text) in [
        (link("self", true, EntryKind::Plain, Some("")), None),
        (link("alias.md", false, EntryKind::Plain, Some("notes/a.md")), None),
        (link("chain.md", false, EntryKind::Plain, Some("notes/b.md")), None),
        (link("cfg.md", false, EntryKind::Plain, Some(".obsidian/app.json")), None),
        (link("gitlink", true, EntryKind::Plain, Some(".git")), None),
        (link("etc.md", false, EntryKind::Outside, None), None),
        (link("ext", true, EntryKind::Outside, None), None),
        (link("ext/n.md", false, EntryKind::Linked, None), Some("linked text\n")),
        (link("gone.md", false, EntryKind::Dangling, None), None),
        (link("loop", false, EntryKind::Loop, None), None),
        (link("pipe.md", false, EntryKind::Fifo, None), None),
        (link("sock.md", false, EntryKind::Socket, None), None),
        (link("dev.md", false, EntryKind::Device, None), None),
    ] {
        host.put_unusual(entry, text);
    }
    let p = processor_with(&host, settings_for(follow));
    (host, p)
}

/// Runs one tool call through a turn; returns the result the model read next, and whether it
/// was an error.
fn call(host: &FakeHost, p: &MessageProcessor<FakeHost>, name: &str, input: Value) -> (String, bool) {
    let id = format!("m{}", host.requests().len());
    tool_call(host, p, &id, name, input)
}

/// What a case expects: success with these words in the result, or a refusal with them.
enum Expect {
    Ok(&'static [&'static str]),
    Refused(&'static [&'static str]),
}

struct Case {
    tool: &'static str,
    input: Value,
    follow: bool,
    expect: Expect,
    /// Words that must not appear in the result (what lies behind a refused entry).
    absent: &'static [&'static str],
}

fn case(tool: &'static str, input: Value, follow: bool, expect: Expect) -> Case {
    Case { tool, input, follow, expect, absent: &[] }
}

fn cases() -> Vec<Case> {
    use Expect::*;
    let protected = Refused(&["protected folder"]);
    vec![
        // Links inside the vault: the real location is used, and checked.
        case("read_file", json!({"path": "self/notes/a.md"}), false, Ok(&["notes/a.md", "alpha"])),
        case("read_file", json!({"path": "alias.md"}), false, Ok(&["notes/a.md", "alpha"])),
        case("read_file", json!({"path": "chain.md"}), false, Ok(&["notes/b.md", "beta"])),
        case("read_file", json!({"path": "self/self/notes/b"}), false, Ok(&["beta"])),
        case("write_file", json!({"path": "self/notes/new.md", "content": "x"}), false, Ok(&["Created notes/new.md"])),
        case("write_file", json!({"path": "Self/Notes/A.md", "content": "x"}), false, Ok(&["Replaced", "notes/a.md"])),
        case(
            "edit_file",
            json!({"path": "alias.md", "operation": "insert", "line": 1, "text": "top"}),
            false,
            Ok(&["Edited notes/a.md"]),
        ),
        case("create_folder", json!({"path": "self/made"}), false, Ok(&["Created the folder made"])),
        case("delete_file", json!({"path": "self/notes/b.md"}), false, Ok(&["Moved notes/b.md to the trash"])),
        case(
            "move_file",
            json!({"from": "self/notes/b.md", "to": "self/archive/b.md"}),
            false,
            Ok(&["to archive/b.md"]),
        ),
        // Links into protected folders, in every form.
        case("read_file", json!({"path": "cfg.md"}), false, Refused(&["cfg.md is a link that leads into .obsidian"])),
        case("get_file_info", json!({"path": "cfg"}), false, Refused(&["leads into .obsidian"])),
        case(
            "edit_file",
            json!({"path": "cfg.md", "operation": "insert", "line": 0, "text": "x"}),
            false,
            Refused(&["leads into .obsidian"]),
        ),
        case("read_file", json!({"path": "self/.obsidian/app.json"}), false, Refused(&["leads into .obsidian"])),
        case(
            "write_file",
            json!({"path": "self/.obsidian/evil.json", "content": "x"}),
            false,
            Refused(&["leads into .obsidian"]),
        ),
        case(
            "write_file",
            json!({"path": "self/.git/hooks/pre-commit", "content": "x"}),
            false,
            Refused(&["leads into .git"]),
        ),
        case("write_file", json!({"path": "gitlink/config", "content": "x"}), false, Refused(&["leads into .git"])),
        case("create_folder", json!({"path": "self/.trash/x"}), false, Refused(&["leads into .trash"])),
        case(
            "move_file",
            json!({"from": "notes/a.md", "to": "self/.obsidian/a.md"}),
            false,
            Refused(&["leads into .obsidian"]),
        ),
        case("move_file", json!({"from": "notes/a.md", "to": "gitlink"}), false, Refused(&["leads into .git"])),
        case("search_files", json!({"query": "core", "folder": "gitlink"}), false, Refused(&["leads into .git"])),
        case("list_files", json!({"folder": "self/.obsidian"}), false, protected),
        // Links out of the vault: a file never; a folder only when followed, and only to read.
        case("read_file", json!({"path": "etc.md"}), true, Refused(&["outside the vault"])),
        case("write_file", json!({"path": "etc.md", "content": "x"}), true, Refused(&["outside the vault"])),
        case(
            "edit_file",
            json!({"path": "etc", "operation": "delete_lines", "start_line": 1, "end_line": 1}),
            true,
            Refused(&["outside the vault"]),
        ),
        case("delete_file", json!({"path": "etc.md"}), true, Refused(&["outside the vault"])),
        case("move_file", json!({"from": "etc.md", "to": "notes/etc.md"}), true, Refused(&["outside the vault"])),
        case("read_file", json!({"path": "ext/n.md"}), false, Refused(&["followLinkedFolders setting is off"])),
        case("read_file", json!({"path": "ext/n.md"}), true, Ok(&["linked text"])),
        case("write_file", json!({"path": "ext/n.md", "content": "x"}), true, Refused(&["never change it"])),
        case("write_file", json!({"path": "ext/new.md", "content": "x"}), true, Refused(&["never change it"])),
        case("write_file", json!({"path": "ext/new.md", "content": "x"}), false, Refused(&["followLinkedFolders"])),
        case(
            "edit_file",
            json!({"path": "ext/n.md", "operation": "insert", "line": 0, "text": "x"}),
            true,
            Refused(&["never change it"]),
        ),
        case("create_folder", json!({"path": "ext/sub"}), true, Refused(&["never change it"])),
        case("delete_file", json!({"path": "ext/n.md"}), true, Refused(&["never change it"])),
        case("move_file", json!({"from": "notes/a.md", "to": "ext/a.md"}), true, Refused(&["never change it"])),
        case("move_file", json!({"from": "ext/n.md", "to": "notes/n.md"}), true, Refused(&["never change it"])),
        case("list_files", json!({"folder": "ext"}), false, Refused(&["followLinkedFolders"])),
        case("list_files", json!({"folder": "ext"}), true, Ok(&["ext/n.md"])),
        // Links on their own: moving or deleting one is left to the user.
        case("delete_file", json!({"path": "alias.md"}), false, Refused(&["alias.md is a link"])),
        case("move_file", json!({"from": "alias.md", "to": "notes/c.md"}), false, Refused(&["alias.md is a link"])),
        // Dangling and looping links, FIFOs, sockets, devices: never opened.
        case("read_file", json!({"path": "gone.md"}), false, Refused(&["dangling link"])),
        case("write_file", json!({"path": "gone", "content": "x"}), false, Refused(&["dangling link"])),
        case("read_file", json!({"path": "loop/x.md"}), false, Refused(&["loops"])),
        case("create_folder", json!({"path": "loop/x"}), false, Refused(&["loops"])),
        case("read_file", json!({"path": "pipe.md"}), false, Refused(&["FIFO"])),
        case("read_file", json!({"path": "PIPE"}), false, Refused(&["FIFO"])),
        case(
            "edit_file",
            json!({"path": "pipe.md", "operation": "replace", "old_text": "a", "new_text": "b"}),
            false,
            Refused(&["FIFO"]),
        ),
        case("get_file_info", json!({"path": "sock.md"}), false, Refused(&["socket"])),
        case("write_file", json!({"path": "dev.md", "content": "x"}), false, Refused(&["device"])),
        case("move_file", json!({"from": "notes/a.md", "to": "pipe.md"}), false, Refused(&["FIFO"])),
        // Listing and searching skip what they must not open, and say so.
        Case {
            tool: "list_files",
            input: json!({}),
            follow: false,
            expect: Ok(&[
                "notes/a.md",
                "alias.md",
                "entries skipped",
                "1 dangling link",
                "1 FIFO",
                "1 socket",
                "1 device",
                "1 looping link",
                "2 links into protected folders",
                "1 link out of the vault",
            ]),
            absent: &["etc.md", "pipe.md", "gone.md", "cfg.md", "ext/n.md"],
        },
        Case {
            tool: "list_files",
            input: json!({}),
            follow: true,
            expect: Ok(&["ext/n.md", "entries skipped"]),
            absent: &["etc.md", "pipe.md"],
        },
        Case {
            tool: "search_files",
            input: json!({"query": "note"}),
            follow: false,
            expect: Ok(&["2 notes match", "notes/a.md", "notes/b.md", "entries skipped", "1 FIFO"]),
            absent: &["alias.md", "chain.md", "ext/n.md", "{}"],
        },
        Case {
            tool: "search_files",
            input: json!({"query": "linked"}),
            follow: true,
            expect: Ok(&["ext/n.md"]),
            absent: &[],
        },
        case("search_files", json!({"query": "alpha", "folder": "self/notes"}), false, Ok(&["notes/a.md"])),
    ]
}

#[test]
fn every_link_form_through_every_tool() {
    let mut failures = Vec::new();
    for (i, c) in cases().into_iter().enumerate() {
        let (host, p) = world(c.follow);
        let label = format!("#{i} {} {} follow={}", c.tool, c.input, c.follow);
        let (out, is_error) = call(&host, &p, c.tool, c.input.clone());
        let (want_error, words) = match c.expect {
            Expect::Ok(w) => (false, w),
            Expect::Refused(w) => (true, w),
        };
        if is_error != want_error {
            failures.push(format!("{label}: is_error={is_error}: {out}"));
        }
        for w in words {
            if !out.contains(w) {
                failures.push(format!("{label}: {w:?} missing from: {out}"));
            }
        }
        for w in c.absent {
            if out.contains(w) {
                failures.push(format!("{label}: {w:?} shown in: {out}"));
            }
        }
        let touches = host.unusual_touches();
        if !touches.is_empty() {
            failures.push(format!("{label}: the core reached through links or special files: {touches:?}"));
        }
        assert_eq!(host.note(".obsidian/app.json").as_deref(), Some("{}"), "{label}");
        assert_eq!(host.note(".git/config").as_deref(), Some("[core]"), "{label}");
        if want_error {
            assert!(host.trashed().is_empty(), "{label}: something was trashed");
            assert_eq!(host.note("notes/a.md").as_deref(), Some("alpha note\n"), "{label}");
        }
        assert_eq!(host.listed_following(), c.follow, "{label}: the host was asked to follow as the setting says");
        // The processor answers the next message.
        host.script([Reply::text("still here")]);
        let next = host.run(p.process(direct("next", "hello")));
        assert!(next.success && next.response.as_deref().unwrap_or("").contains("still here"), "{label}: {next:?}");
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn the_active_note_is_located_too() {
    let (host, p) = world(false);
    for (active, refused) in [("cfg.md", "leads into .obsidian"), ("pipe.md", "FIFO"), ("etc.md", "outside the vault")]
    {
        host.set_active_note(Some(active));
        let (out, is_error) = call(&host, &p, "get_active_note", json!({}));
        assert!(is_error && out.contains(refused), "{active}: {out}");
    }
    host.set_active_note(Some("alias.md"));
    let (out, is_error) = call(&host, &p, "get_active_note", json!({}));
    assert!(!is_error && out.contains("alpha"), "{out}");
    assert!(host.unusual_touches().is_empty(), "{:?}", host.unusual_touches());
}

#[test]
fn follow_linked_folders_is_off_by_default_and_read_from_settings() {
    assert!(!Settings::default().follow_linked_folders);
    let on: Settings = serde_json::from_value(json!({"followLinkedFolders": true})).expect("settings");
    assert!(on.follow_linked_folders);
    on.validate().expect("valid");
}

/// The decision itself, without a pipeline: a table of paths × accesses.
#[test]
fn locate_table() {
    let entries = vec![
        link("self", true, EntryKind::Plain, Some("")),
        link("a.md", false, EntryKind::Plain, Some(".obsidian/app.json")),
        link("out", true, EntryKind::Outside, None),
    ];
    let protected = protected_folders(".obsidian", &["Private".into()]);
    for (path, access, follow, ok) in [
        ("self/x.md", Access::Write, false, Some("x.md")),
        ("self/Private/x.md", Access::Read, false, None),
        ("self/.smarthole/inbox/m.json", Access::Write, false, None),
        ("a.md", Access::Read, false, None),
        ("out/x.md", Access::Read, false, None),
        ("out/x.md", Access::Read, true, Some("out/x.md")),
        ("out/x.md", Access::Write, true, None),
        ("out", Access::Entry, true, None),
    ] {
        let got = locate(path, &entries, &protected, access, follow);
        assert_eq!(got.as_deref().ok(), ok, "{path} {access:?} follow={follow}: {got:?}");
    }
}
