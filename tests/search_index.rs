//! The search index (issue 18): `search_files` and `list_files` answered from it give what a
//! brute-force scan of the same vault gives — after any sequence of creates, edits, renames and
//! deletes (each reported as a host event), and after a restart that loads the persisted index
//! and repairs it against changes made while the core was not running. A search before the index
//! is ready scans and says so; a damaged persisted index is rebuilt, never trusted.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::vault_ops::{op, Op};
use common::*;
use proptest::prelude::*;
use serde_json::{json, Value};
use smarthole_agent::testing::FakeHost;
use smarthole_agent::{Event, Host, MessageProcessor, Settings};

/// The processor answering from the index, once built.
fn indexed(host: &FakeHost) -> MessageProcessor<FakeHost> {
    let p = processor_with(host, Settings { protected_folders: vec!["Private".into()], ..settings() });
    p.start_search_index();
    for _ in 0..1_000 {
        if p.search_index_status().0 == "ready" {
            return p;
        }
        host.run_for(50);
    }
    panic!("the index was not ready: {:?}", p.search_index_status());
}

/// The processor that scans every time (the index off): the brute force to compare with.
fn scanning(host: &FakeHost) -> MessageProcessor<FakeHost> {
    processor_with(host, Settings { protected_folders: vec!["Private".into()], search_index_max_mb: 0, ..settings() })
}

/// A tool run directly (the property test's many calls).
fn quick(host: &FakeHost, p: &MessageProcessor<FakeHost>, name: &str, input: Value) -> String {
    host.run(p.run_tool(name, &input)).0
}

fn call(host: &FakeHost, p: &MessageProcessor<FakeHost>, name: &str, input: Value) -> String {
    let id = format!("m{}", host.requests().len());
    let (out, _) = tool_call(host, p, &id, name, input);
    out
}

/// Every query of the comparison, answered by both processors.
fn queries() -> Vec<(&'static str, Value)> {
    vec![
        ("search_files", json!({"query": "milk"})),
        ("search_files", json!({"query": "ilk"})),
        ("search_files", json!({"query": "Garden", "case_sensitive": true})),
        ("search_files", json!({"query": "oat milk"})),
        ("search_files", json!({"query": "tea, milk"})),
        ("search_files", json!({"query": "#tag"})),
        ("search_files", json!({"query": "garden", "folder": "a"})),
        ("search_files", json!({"query": "bike", "max_results": 2})),
        ("search_files", json!({"query": r"gard\w+ (bike|tea)", "regex": true})),
        ("search_files", json!({"query": r"oat\s+milk", "regex": true})),
        ("search_files", json!({"query": "^tea", "regex": true, "case_sensitive": true})),
        ("search_files", json!({"query": "b.ke|zzz", "regex": true})),
        ("search_files", json!({"query": "note"})),
        ("list_files", json!({})),
        ("list_files", json!({"glob": "**/*.md"})),
        ("list_files", json!({"folder": "a", "limit": 3})),
    ]
}

/// Asserts both processors answer every query alike, and that the indexed one used its index.
fn same_answers(host: &FakeHost, index: &MessageProcessor<FakeHost>, scan: &MessageProcessor<FakeHost>) {
    for (tool, input) in queries() {
        let from_index = quick(host, index, tool, input.clone());
        let from_scan = quick(host, scan, tool, input.clone());
        assert!(!from_index.contains("full scan"), "{tool} {input} did not use the index: {from_index}");
        if from_index.starts_with("No note holds") {
            // Words no note holds as written, ranked by the index (a scan cannot rank them).
            assert!(from_scan.starts_with("No note matches"), "{tool} {input}: {from_index} / {from_scan}");
        } else {
            assert_eq!(from_index, from_scan, "{tool} {input}");
        }
    }
}

const WORDS: [&str; 10] = ["milk", "Oat", "buttermilk", "garden", "Garden", "bike", "tea", "#tag", "note", "zebra"];

fn text_of(words: &[u8]) -> String {
    let mut out = String::new();
    for (i, w) in words.iter().enumerate() {
        out.push_str(WORDS[*w as usize % WORDS.len()]);
        out.push_str(match i % 5 {
            4 => "\n",
            2 => ", ",
            _ => " ",
        });
    }
    out
}

const FOLDERS: [&str; 3] = ["", "a/", "a/b/"];

fn path_of(n: u8) -> String {
    format!("{}note {}.md", FOLDERS[n as usize % 3], n % 12)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn the_index_answers_what_a_scan_answers(
        start in proptest::collection::vec((any::<u8>(), proptest::collection::vec(0u8..10, 0..20)), 1..8),
        ops in proptest::collection::vec(op(10, 14), 1..8),
    ) {
        let host = FakeHost::new();
        host.put_note("Private/secret.md", "milk garden");
        for (n, words) in &start {
            host.put_note(&path_of(*n), &text_of(words));
            host.advance(1_000);
        }
        let mut index = indexed(&host);
        let scan = scanning(&host);
        same_answers(&host, &index, &scan);
        for op in ops {
            host.advance(1_000);
            match op {
                Op::Write(n, words) => change_vault(&host, &index, VaultChange::Write(&path_of(n), &text_of(&words))),
                Op::Rename(a, b) => change_vault(&host, &index, VaultChange::Rename(&path_of(a), &path_of(b))),
                Op::Delete(n) => change_vault(&host, &index, VaultChange::Delete(&path_of(n))),
                Op::Restart(n, words) => {
                    index.dispose();
                    drop(index);
                    host.put_note(&path_of(n), &text_of(&words));
                    index = indexed(&host);
                }
            }
            same_answers(&host, &index, &scan);
        }
    }
}

#[test]
fn a_search_before_the_index_is_ready_scans_and_says_so() {
    let host = FakeHost::new();
    host.put_note("Garden.md", "garden garden");
    let p = processor_with(&host, settings());
    let out = call(&host, &p, "search_files", json!({"query": "garden"}));
    assert!(out.starts_with("1 notes match"), "{out}");
    assert!(out.contains("this answer comes from a full scan"), "{out}");
    // That search started the index in the background; it reports its progress.
    host.run_for(1_000);
    assert_eq!(p.search_index_status().0, "ready");
    let states: Vec<String> = host
        .events()
        .iter()
        .filter_map(|e| match e {
            Event::SearchIndex { state, .. } => Some(state.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(states.first().map(String::as_str), Some("building"), "{states:?}");
    assert_eq!(states.last().map(String::as_str), Some("ready"), "{states:?}");
    let out = call(&host, &p, "search_files", json!({"query": "garden"}));
    assert!(!out.contains("full scan"), "{out}");
}

#[test]
fn an_edit_made_by_a_tool_is_found_by_the_next_search() {
    let host = FakeHost::new();
    host.put_note("Plan.md", "step one\n");
    let p = processor_with(
        &host,
        Settings { auto_approve_tools: vec!["write_file".into(), "edit_file".into()], ..settings() },
    );
    p.start_search_index();
    host.run_for(1_000);
    assert!(call(&host, &p, "search_files", json!({"query": "zebra"})).starts_with("No note matches"));
    call(
        &host,
        &p,
        "edit_file",
        json!({"path": "Plan.md", "operation": "replace", "old_text": "one", "new_text": "zebra"}),
    );
    call(&host, &p, "write_file", json!({"path": "New.md", "content": "a zebra too"}));
    let out = call(&host, &p, "search_files", json!({"query": "zebra"}));
    assert!(out.starts_with("2 notes match") && !out.contains("full scan"), "{out}");
}

fn read_count(host: &FakeHost) -> Vec<String> {
    host.logs().into_iter().map(|(_, l)| l).filter(|l| l.starts_with("search index:")).collect()
}

/// The persisted index's pieces (`.smarthole/search-index/`), by path.
fn pieces(host: &FakeHost) -> Vec<String> {
    host.paths().into_iter().filter(|p| p.starts_with("search-index/")).collect()
}

/// A processor made, its index built or loaded, then disposed of (a restart).
fn restart(host: &FakeHost) {
    let p = indexed(host);
    p.dispose();
    drop(p);
}

#[test]
fn the_persisted_index_is_loaded_at_restart_and_a_damaged_one_rebuilt() {
    let host = FakeHost::new();
    for i in 0..30 {
        host.put_note(&format!("n{i}.md"), &format!("note {i} milk"));
    }
    restart(&host);
    let saved = host.file("search-index.txt").expect("the index is persisted under .smarthole/");
    assert!(saved.starts_with("smarthole-search-index-3 30 "), "{}", &saved[..40]);
    let piece = pieces(&host);
    assert_eq!(piece.len(), 1, "{piece:?}");
    // The piece is bytes (written with write_file_atomic_bytes), not base64 text.
    let bytes = host.file_bytes(&piece[0]).unwrap();
    assert!(piece[0].ends_with(".bin") && std::str::from_utf8(&bytes).is_err(), "{}", piece[0]);
    assert!(saved.contains(&piece[0]), "the manifest names its piece: {saved}");

    // A restart with nothing changed reads no note.
    let second = indexed(&host);
    assert!(
        read_count(&host).last().is_some_and(|l| l.starts_with("search index: 0 notes read, 30 held")),
        "{:?}",
        read_count(&host)
    );
    assert!(call(&host, &second, "search_files", json!({"query": "milk"})).starts_with("30 notes match"));
    second.dispose();
    drop(second);

    // Damaged (a byte of the piece changed, its checksum no longer fits): never trusted, rebuilt.
    let mut bytes = host.file_bytes(&piece[0]).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 1;
    host.put_file_bytes(&piece[0], &bytes);
    let third = indexed(&host);
    assert!(host.logs().iter().any(|(_, l)| l.contains("search index is damaged")));
    assert!(
        read_count(&host).last().is_some_and(|l| l.starts_with("search index: 30 notes read")),
        "{:?}",
        read_count(&host)
    );
    assert!(call(&host, &third, "search_files", json!({"query": "milk"})).starts_with("30 notes match"));
}

/// Something done to the persisted index between two starts.
type Damage = dyn Fn(&FakeHost);

#[test]
fn a_cut_or_missing_piece_or_the_one_text_form_of_before_is_rebuilt_and_replaced() {
    let host = FakeHost::new();
    for i in 0..30 {
        host.put_note(&format!("n{i}.md"), &format!("note {i} milk"));
    }
    restart(&host);
    let damages: [(&str, &Damage); 4] = [
        ("a piece cut short", &|h| {
            let piece = &pieces(h)[0];
            let bytes = h.file_bytes(piece).unwrap();
            h.put_file_bytes(piece, &bytes[..bytes.len() / 2]);
        }),
        ("a piece missing", &|h| h.run(Host::remove_file(h, &pieces(h)[0])).unwrap()),
        ("the one-text form of before", &|h| {
            h.put_file(
                "search-index.txt",
                "smarthole-search-index-1 1 0123456789abcdef0123456789abcdef b64v2\nmilk\n\nn1.md\t4\t1\t0\t1\t0\tAA\tAQA\n",
            )
        }),
        ("the base64 text pieces of before", &|h| {
            h.put_file("search-index/00000000000000aa-0.txt", "AQIDBA==");
            h.put_file(
                "search-index.txt",
                "smarthole-search-index-2 30 30 40\nsearch-index/00000000000000aa-0.txt 8 2f0c6e1f0b3c9d7a\nend 0f1e2d3c4b5a6978\n",
            )
        }),
    ];
    for (what, damage) in damages {
        let logs = host.logs().len();
        damage(&host);
        let p = indexed(&host);
        let since: Vec<String> = host.logs()[logs..].iter().map(|(_, l)| l.clone()).collect();
        assert!(since.iter().any(|l| l.contains("search index is damaged or of another version")), "{what}: {since:?}");
        assert!(since.iter().any(|l| l.starts_with("search index: 30 notes read")), "{what}: rebuilt: {since:?}");
        assert!(call(&host, &p, "search_files", json!({"query": "milk"})).starts_with("30 notes match"), "{what}");
        p.dispose();
        drop(p);
        // Written again, whole: the next start reads it and no note.
        let saved = host.file("search-index.txt").unwrap();
        assert!(saved.starts_with("smarthole-search-index-3 30 "), "{what}: {saved}");
        assert_eq!(pieces(&host).len(), 1, "{what}: the last save's pieces removed: {:?}", pieces(&host));
        let logs = host.logs().len();
        restart(&host);
        assert!(
            host.logs()[logs..].iter().any(|(_, l)| l.starts_with("search index: 0 notes read, 30 held")),
            "{what}: {:?}",
            &host.logs()[logs..]
        );
    }
}

#[test]
fn an_index_that_outgrows_its_ceiling_is_off_for_the_session_not_rebuilt_at_every_search() {
    let host = FakeHost::new();
    let text = |i: usize| (0..300).map(|w| format!("word{}x{i} ", w * 7 + i)).collect::<String>();
    for i in 0..20 {
        host.put_note(&format!("a{i}.md"), &text(i));
    }
    let p = processor_with(&host, Settings { search_index_max_mb: 1, ..settings() });
    p.start_search_index();
    host.run_for(1_000);
    assert_eq!(p.search_index_status().0, "ready");
    // The vault grows past what 1 MB of index holds.
    for i in 20..600 {
        host.put_note(&format!("b{i}.md"), &text(i));
        p.vault_changed(&format!("b{i}.md"), "create");
    }
    let out = call(&host, &p, "search_files", json!({"query": "word1x1"}));
    assert!(out.contains("full scan"), "{out}");
    assert!(
        p.search_index_status().0.starts_with("off: the index passed its ceiling"),
        "{:?}",
        p.search_index_status()
    );
    let out = call(&host, &p, "search_files", json!({"query": "word1x1"}));
    assert!(out.starts_with("1 notes match"), "{out}");
    let tries = host.logs().iter().filter(|(_, l)| l.contains("passed its ceiling")).count();
    assert_eq!(tries, 1, "the index is not rebuilt at each search");
}

/// Where folding or long lines could make the index and a scan disagree: capital sigma folds to σ
/// or (at a word's end) ς, so a case-sensitive query or a regex's literal folded alone may not be
/// what the text folds to; ſ and the Kelvin sign K fold unlike their ASCII look-alikes; and a line
/// over 128 KB, which a regex searches in part (and says so), in a note the index narrows away.
#[test]
fn unicode_folding_and_long_lines_answer_as_a_scan_does() {
    let host = FakeHost::new();
    host.put_note("greek.md", "ΑΣΑ and ΚΑΣ\nΣοφία\n");
    host.put_note("long s.md", "the ſtory of ſ and s\n");
    host.put_note("kelvin.md", "300 K is warm; k and K\n");
    host.put_note("long.md", &format!("{}\nshort line\n", "wide ".repeat(30_000)));
    host.put_note("other.md", "ΑΣ at the end ΑΣ\nmilk\n");
    let index = indexed(&host);
    let scan = scanning(&host);
    let queries = [
        json!({"query": "ΑΣ", "case_sensitive": true}),
        json!({"query": "ΑΣΑ", "case_sensitive": true}),
        json!({"query": "ΚΑΣ and", "case_sensitive": true}),
        json!({"query": "ΑΣ"}),
        json!({"query": "ας"}),
        json!({"query": "ΑΣ", "regex": true}),
        json!({"query": "ΑΣ", "regex": true, "case_sensitive": true}),
        json!({"query": "Σοφ", "regex": true}),
        json!({"query": "ſ"}),
        json!({"query": "ſtory", "regex": true}),
        json!({"query": "s", "regex": true}),
        json!({"query": "S", "regex": true}),
        json!({"query": "K"}),
        json!({"query": "K", "regex": true}),
        json!({"query": "k", "regex": true}),
        json!({"query": "K is", "case_sensitive": true}),
        json!({"query": r"milk\b", "regex": true}),
        json!({"query": r"short", "regex": true}),
        json!({"query": r"wide\s+wide", "regex": true}),
    ];
    let mut cut = 0;
    for input in queries {
        let from_index = quick(&host, &index, "search_files", input.clone());
        let from_scan = quick(&host, &scan, "search_files", input.clone());
        assert!(!from_index.contains("full scan"), "{input} did not use the index: {from_index}");
        assert_eq!(from_index, from_scan, "{input}");
        cut += usize::from(from_scan.contains("long lines were searched in their first"));
    }
    assert!(cut >= 3, "the long line was searched in part by the regex searches");
    let sigma = quick(&host, &index, "search_files", json!({"query": "ΑΣ", "case_sensitive": true}));
    assert!(sigma.starts_with("2 notes match"), "{sigma}");
}

#[test]
fn words_no_note_holds_as_written_rank_the_notes_holding_them() {
    let host = FakeHost::new();
    host.put_note("Refunds.md", "# Refunds\n\nYour money back within 30 days.\nAsk for a refund by mail.\n");
    host.put_note("Budget.md", "Money spent this month.\n");
    host.put_note("Garden.md", "Tomatoes and beans.\n");
    let p = indexed(&host);
    let out = quick(&host, &p, "search_files", json!({"query": "how do I get my money back"}));
    assert!(
        out.starts_with("No note holds \"how do I get my money back\" as written; 2 notes holding its words"),
        "{out}"
    );
    let refunds = out.find("Refunds.md").expect("the refunds note");
    assert!(refunds < out.find("Budget.md").expect("the budget note"), "more of its words rank first: {out}");
    assert!(out.contains("3: Your money back within 30 days."), "the line holding most of them: {out}");
    let exact = quick(&host, &p, "search_files", json!({"query": "\"money back\""}));
    assert!(exact.starts_with("1 notes match \"money back\""), "quotes ask for the phrase as written: {exact}");
}

#[test]
fn a_fifo_where_a_piece_belongs_is_set_aside_never_opened_and_the_index_rebuilt() {
    let host = FakeHost::new();
    for i in 0..30 {
        host.put_note(&format!("n{i}.md"), &format!("note {i} milk"));
    }
    restart(&host);
    let piece = pieces(&host).remove(0);
    host.run(Host::remove_file(&host, &piece)).unwrap();
    host.put_special_file(&piece, "fifo");
    let p = indexed(&host);
    assert!(host.unusual_touches().is_empty(), "never opened: {:?}", host.unusual_touches());
    assert!(host.special_files().iter().any(|(path, _)| path.starts_with(&format!("{piece}.not-a-file-"))));
    assert!(host.logs().iter().any(|(_, l)| l.contains("search index is damaged or of another version")));
    assert!(call(&host, &p, "search_files", json!({"query": "milk"})).starts_with("30 notes match"));
}
