//! Damaged files never cost data (DESIGN.md §4), on the FakeHost: one table of damaged-file
//! shapes — a bad index entry, lines of a newer version, a torn tail, oversized inbox files and
//! index, bytes that were not UTF-8, empty files, truncated JSON in the middle — each applied to
//! the same world of three conversations. After each: every history line that was on disk before
//! is still on disk (in its file, or in the copy set aside), what was set aside is where the docs
//! say, the good conversations are all listed, and the next message is answered.

mod common;

use std::collections::BTreeMap;

use common::*;
use serde_json::{json, Value};
use smarthole_agent::testing::internals::{log_path, parse_index, INDEX_PATH, QUARANTINE_PATH};
use smarthole_agent::testing::{FakeHost, Reply};
use smarthole_agent::{ConversationStatus, Event, LineRole, MessageProcessor};

/// Three conversations: `ids[0]` and `ids[1]` ended, `ids[2]` current, two turns each.
struct World {
    host: FakeHost,
    ids: Vec<String>,
    /// Every file before the damage.
    before: BTreeMap<String, String>,
}

fn world() -> World {
    let host = FakeHost::new();
    // Every model call (answers, titles, summaries) gets the same short answer.
    host.script_until("", "\u{0}never\u{0}", Reply::text("ok"));
    let p = processor(&host);
    let mut ids = Vec::new();
    for c in 0..3 {
        for m in 0..2 {
            let result = host.run(p.process(direct(&format!("m{c}{m}"), &format!("conversation {c} message {m}"))));
            assert!(result.success, "{result:?}");
        }
        ids.push(host.run(p.current_conversation()).expect("a current conversation").id);
        if c < 2 {
            host.run(p.new_conversation()).expect("new conversation");
        }
    }
    host.run_for(1_000);
    drop(p);
    let before = host.paths().into_iter().map(|p| (p.clone(), host.file(&p).unwrap_or_default())).collect();
    World { host, ids, before }
}

/// What a case checks after the restart and the next message.
type Check = fn(&World, &MessageProcessor<smarthole_agent::testing::FakeHost>);

struct Case {
    name: &'static str,
    damage: fn(&World),
    /// Conversations that must still be listed (by index into `World::ids`).
    listed: &'static [usize],
    check: Check,
}

fn current_log(w: &World) -> String {
    log_path(&w.ids[2])
}

fn lines_of(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

/// Files under `conversations/` whose name starts like `stem` and says `why`.
fn set_aside(w: &World, stem: &str, why: &str) -> Vec<String> {
    w.host.paths_under("conversations").into_iter().filter(|p| p.starts_with(stem) && p.contains(why)).collect()
}

fn notices(w: &World) -> Vec<String> {
    w.host
        .events()
        .into_iter()
        .filter_map(|e| match e {
            Event::Notice { text, .. } => Some(text),
            _ => None,
        })
        .collect()
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "one index entry with a wrong-typed field",
            damage: |w| {
                let mut index: Value = serde_json::from_str(&w.host.file(INDEX_PATH).unwrap()).unwrap();
                let entry = index["conversations"].as_array_mut().unwrap().iter_mut().find(|c| c["id"] == w.ids[0]);
                entry.unwrap()["status"] = json!(42);
                w.host.put_file(INDEX_PATH, &index.to_string());
            },
            listed: &[1, 2],
            check: |w, _| {
                let quarantine = w.host.file(QUARANTINE_PATH).expect("the quarantine file");
                let records: Vec<Value> = quarantine.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
                assert_eq!(records.len(), 1, "{quarantine}");
                assert_eq!(records[0]["raw"]["id"], json!(w.ids[0]));
                assert_eq!(records[0]["raw"]["status"], json!(42), "kept as it was");
                assert!(records[0]["reason"].as_str().unwrap().contains("unreadable conversation entry"));
                assert_eq!(records[0]["from"], json!(INDEX_PATH));
                assert!(notices(w).iter().any(|n| n.contains("quarantine")), "{:?}", notices(w));
                // Its history is untouched.
                assert_eq!(w.host.file(&log_path(&w.ids[0])), w.before.get(&log_path(&w.ids[0])).cloned());
            },
        },
        Case {
            name: "the current conversation's entry is unreadable",
            damage: |w| {
                let mut index: Value = serde_json::from_str(&w.host.file(INDEX_PATH).unwrap()).unwrap();
                let entry = index["conversations"].as_array_mut().unwrap().iter_mut().find(|c| c["id"] == w.ids[2]);
                entry.unwrap()["createdAt"] = json!({"a newer": "shape"});
                w.host.put_file(INDEX_PATH, &index.to_string());
            },
            listed: &[0, 1],
            check: |w, _| {
                let quarantine = w.host.file(QUARANTINE_PATH).expect("the quarantine file");
                assert!(quarantine.contains(&w.ids[2]));
                assert!(w.host.file(&current_log(w)).unwrap().starts_with(&w.before[&current_log(w)]));
            },
        },
        Case {
            name: "the index's conversations is not a list",
            damage: |w| w.host.put_file(INDEX_PATH, &json!({"current": null, "conversations": {"x": 1}}).to_string()),
            listed: &[],
            check: |w, _| {
                let quarantine = w.host.file(QUARANTINE_PATH).expect("the quarantine file");
                assert!(quarantine.contains("not a list"), "{quarantine}");
            },
        },
        Case {
            name: "lines of a newer version between turns",
            damage: |w| {
                let text = w.host.file(&current_log(w)).unwrap();
                let lines = lines_of(&text);
                let future = "{\"id\":\"f#0\",\"messageId\":\"f\",\"role\":\"planner\",\"content\":[{\"type\":\"plan\"}],\"v\":3}\n";
                let damaged = lines[..2].concat() + future + &lines[2..].concat() + future.trim_end();
                w.host.put_file(&current_log(w), &damaged);
            },
            listed: &[0, 1, 2],
            check: |w, p| {
                let text = w.host.file(&current_log(w)).unwrap();
                assert_eq!(text.matches("\"planner\"").count(), 2, "both kept on disk: {text}");
                let shown = w.host.run(p.conversation_lines(&w.ids[2])).unwrap();
                assert_eq!(shown[0].role, LineRole::System);
                assert!(shown[0].visible);
                assert!(format!("{:?}", shown[0].content).contains("2 lines of this conversation could not be read"));
                // The model still got the readable turns.
                let sent = w.host.requests_matching("\"next message\"");
                assert!(sent[0].body.to_string().contains("conversation 2 message 1"));
            },
        },
        Case {
            name: "a torn tail",
            damage: |w| {
                let text = w.host.file(&current_log(w)).unwrap();
                w.host.put_file(&current_log(w), &format!("{text}{{\"id\":\"t#0\",\"messageId\":\"t\",\"ro"));
            },
            listed: &[0, 1, 2],
            check: |w, _| {
                let torn = set_aside(w, &format!("conversations/{}.jsonl.torn-", w.ids[2]), "torn");
                assert_eq!(torn.len(), 1, "{:?}", w.host.paths());
                assert_eq!(w.host.file(&torn[0]).unwrap(), "{\"id\":\"t#0\",\"messageId\":\"t\",\"ro");
            },
        },
        Case {
            name: "a line cut short in the middle",
            damage: |w| {
                let text = w.host.file(&current_log(w)).unwrap();
                let lines = lines_of(&text);
                let cut = format!("{}\n", &lines[1][..lines[1].len() / 2]);
                w.host.put_file(&current_log(w), &(lines[0].to_owned() + &cut + &lines[2..].concat()));
            },
            listed: &[0, 1, 2],
            check: |w, p| {
                let shown = w.host.run(p.conversation_lines(&w.ids[2])).unwrap();
                assert!(format!("{:?}", shown[0].content).contains("1 line of this conversation could not be read"));
                assert!(shown.iter().any(|l| l.message_id == "m21"), "the next turn is still read");
            },
        },
        Case {
            name: "bytes that were not UTF-8, and a torn tail after them",
            damage: |w| {
                // What the hosts hand over for bytes that are not UTF-8: U+FFFD.
                let text = w.host.file(&current_log(w)).unwrap();
                let lines = lines_of(&text);
                let garbled = format!("\u{FFFD}\u{FFFD}{}", &lines[1][2..]);
                let damaged = lines[0].to_owned() + &garbled + &lines[2..].concat() + "{\"id\":\"t";
                w.host.put_file(&current_log(w), &damaged);
            },
            listed: &[0, 1, 2],
            check: |w, _| {
                let text = w.host.file(&current_log(w)).unwrap();
                // Never rewritten (that could change the bytes the host could not decode): the
                // torn line is ended and kept, and a copy of it set aside.
                assert!(text.contains("\u{FFFD}\u{FFFD}"));
                assert!(text.contains("{\"id\":\"t\n"), "{text}");
                assert_eq!(set_aside(w, &format!("conversations/{}.jsonl.torn-", w.ids[2]), "torn").len(), 1);
            },
        },
        Case {
            name: "an empty index",
            damage: |w| w.host.put_file(INDEX_PATH, ""),
            listed: &[0, 1, 2],
            check: |w, p| {
                let aside = set_aside(w, "conversations/index.json.unreadable-", "unreadable");
                assert_eq!(aside.len(), 1, "{:?}", w.host.paths());
                assert_eq!(w.host.file(&aside[0]).unwrap(), "");
                // The three conversations are listed again from their history files, archived.
                let all = w.host.run(p.conversations()).unwrap();
                let recovered: Vec<_> =
                    all.iter().filter(|c| c.title.as_deref() == Some("Recovered conversation")).collect();
                assert_eq!(recovered.len(), 3, "{all:?}");
                assert!(recovered.iter().all(|c| c.status == ConversationStatus::Archived && c.ended_at.is_some()));
                assert!(notices(w).iter().any(|n| n.contains("3 conversations were listed again")), "{:?}", notices(w));
            },
        },
        Case {
            name: "an empty history and an empty inbox file",
            damage: |w| {
                w.host.put_file(&log_path(&w.ids[1]), "");
                w.host.put_file("inbox/empty.json", "");
            },
            listed: &[0, 1, 2],
            check: |w, _| {
                assert!(w.host.file("failed/empty.json").unwrap().contains("unreadable inbox file"));
                assert_eq!(w.host.file(&log_path(&w.ids[1])).unwrap(), "");
            },
        },
        Case {
            name: "an oversized inbox file next to a good one",
            damage: |w| {
                w.host.put_sized_file("inbox/huge.json", "{}", 600 * 1024 * 1024);
                let entry = json!({"message": direct("left", "left by the last run"), "attempts": 1, "receivedAt": 1});
                w.host.put_file("inbox/left.json", &entry.to_string());
            },
            listed: &[0, 1, 2],
            check: |w, _| {
                assert!(!w.host.reads().iter().any(|r| r == "inbox/huge.json"), "never read");
                assert!(w.host.file("failed/huge.json").is_some(), "moved whole to failed/");
                let reason: Value =
                    serde_json::from_str(&w.host.file("failed/huge.json.reason.json").unwrap()).unwrap();
                assert!(reason["error"].as_str().unwrap().contains("over the"), "{reason}");
                assert_eq!(recorded_count(&w.host, "left"), 1, "the good entry was processed");
                assert!(inbox(&w.host).is_empty(), "{:?}", inbox(&w.host));
            },
        },
        Case {
            name: "an oversized index",
            damage: |w| {
                let text = w.host.file(INDEX_PATH).unwrap();
                w.host.put_sized_file(INDEX_PATH, &text, 600 * 1024 * 1024);
            },
            listed: &[0, 1, 2],
            check: |w, _| {
                assert!(!w.host.reads().iter().any(|r| r == INDEX_PATH), "never read");
                let aside = set_aside(w, "conversations/index.json.oversized-", "oversized");
                assert_eq!(aside.len(), 1, "{:?}", w.host.paths());
                assert_eq!(w.host.file(&aside[0]), w.before.get(INDEX_PATH).cloned(), "kept, unchanged");
            },
        },
        Case {
            name: "an oversized history",
            damage: |w| {
                let text = w.host.file(&current_log(w)).unwrap();
                w.host.put_sized_file(&current_log(w), &text, 600 * 1024 * 1024);
            },
            listed: &[0, 1, 2],
            check: |w, _| {
                assert!(!w.host.reads().iter().any(|r| *r == current_log(w)), "never read");
                let aside = set_aside(w, &format!("conversations/{}.jsonl.oversized-", w.ids[2]), "oversized");
                assert_eq!(aside.len(), 1, "{:?}", w.host.paths());
            },
        },
    ]
}

#[test]
fn damaged_files_never_cost_data() {
    for case in cases() {
        let w = world();
        (case.damage)(&w);
        let damaged: BTreeMap<String, String> =
            w.host.paths().into_iter().map(|p| (p.clone(), w.host.file(&p).unwrap_or_default())).collect();
        w.host.clear_records();
        let p = processor(&w.host);
        w.host.run(p.reprocess_pending()).unwrap_or_else(|e| panic!("{}: reprocess: {e}", case.name));
        let next = w.host.run(p.process(direct("next", "next message")));
        assert!(next.success, "{}: the next message is answered: {next:?}", case.name);
        assert_eq!(next.response.as_deref(), Some("ok"), "{}", case.name);

        // No history line that was on disk before the damage is gone: each is still in its file
        // or in a copy set aside beside it.
        let now: String = w
            .host
            .paths_under("conversations")
            .iter()
            .filter(|p| p.ends_with(".jsonl") || p.contains(".jsonl."))
            .map(|p| w.host.file(p).unwrap_or_default())
            .collect();
        for (path, text) in damaged.iter().filter(|(p, _)| p.starts_with("conversations/c-")) {
            for line in text.lines().filter(|l| !l.is_empty()) {
                assert!(now.contains(line), "{}: a line of {path} was lost: {line}", case.name);
            }
        }
        // Every conversation is still listed: its index entry if that was readable, else
        // recovered from its history file.
        let listed: Vec<String> = w.host.run(p.conversations()).unwrap().into_iter().map(|c| c.id).collect();
        for &i in case.listed {
            assert!(listed.contains(&w.ids[i]), "{}: conversation {i} dropped out: {listed:?}", case.name);
        }
        // The index on disk is readable again, without anything left to set aside.
        let (_, quarantined) = parse_index(&w.host.file(INDEX_PATH).unwrap()).expect("the index is JSON");
        assert!(quarantined.is_empty(), "{}", case.name);
        (case.check)(&w, &p);
        // And the start after that meets nothing new to set aside.
        drop(p);
        let paths = w.host.paths();
        let p = processor(&w.host);
        w.host.run(p.reprocess_pending()).unwrap();
        assert_eq!(w.host.paths(), paths, "{}: a second start changes nothing", case.name);
    }
}

/// Issue 32, point 8: a FIFO at `.smarthole/search-index.txt` or at an undo journal hung the host.
#[test]
fn a_fifo_where_the_search_index_or_an_undo_journal_belongs_is_set_aside_never_opened() {
    let host = FakeHost::new();
    host.put_note("Plan.md", "# Plan\nalpha\n");
    host.put_special_file("search-index.txt", "fifo");
    host.put_special_file("undo/m1.jsonl", "fifo");
    let p =
        processor_with(&host, smarthole_agent::Settings { auto_approve_tools: vec!["edit_file".into()], ..settings() });
    p.start_search_index();
    for _ in 0..200 {
        if p.search_index_status().0 == "ready" {
            break;
        }
        host.run_for(50);
    }
    assert_eq!(p.search_index_status().0, "ready", "built from the notes instead");
    // A change whose undo record belongs where the other FIFO is.
    let edit = json!({"path": "Plan.md", "operation": "replace", "old_text": "alpha", "new_text": "beta"});
    let (out, is_error) = tool_call(&host, &p, "m1", "edit_file", edit);
    assert!(!is_error, "{out}");
    let report = host.run(p.undo_turn("m1"));
    assert_eq!(report.restored, vec!["Plan.md".to_owned()], "{report:?}");
    assert_eq!(host.note("Plan.md").unwrap(), "# Plan\nalpha\n");
    assert!(host.unusual_touches().is_empty(), "never opened: {:?}", host.unusual_touches());
    let aside: Vec<String> = host.special_files().into_iter().map(|(path, _)| path).collect();
    assert_eq!(aside.len(), 2, "{aside:?}");
    for (file, moved) in ["search-index.txt", "undo/m1.jsonl"].iter().zip(&aside) {
        assert!(moved.starts_with(&format!("{file}.not-a-file-")), "{file} kept aside, renamed: {aside:?}");
        let warned = format!("{file} set aside as {moved}: {file} is a FIFO (named pipe), not a regular file");
        assert!(host.logs().iter().any(|(_, l)| l.starts_with(&warned)), "{warned}: {:?}", host.logs());
    }
}
