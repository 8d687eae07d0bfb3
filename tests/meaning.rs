//! Search by meaning (issue 35): the meaning index built in the background from the vault,
//! ranked as a brute-force cosine over the same vectors ranks (after edits, renames, deletes and
//! restarts), persisted so that a restart embeds nothing that did not change, a damaged vector
//! file rebuilt, and a provider that errs, throttles, answers NaN or another dimension never
//! corrupting it; without a reachable endpoint, `search_files` answers by words and says so.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::vault_ops::{op, Op};
use common::*;
use proptest::prelude::*;
use serde_json::json;
use smarthole_agent::testing::internals::meaning_passages;
use smarthole_agent::testing::{fake_embedding, EmbedFault, FakeHost};
use smarthole_agent::{Event, MessageProcessor, Settings};

const DIMS: usize = 64;

fn meaning_settings() -> Settings {
    Settings { embeddings_base_url: "http://embed.test".into(), embeddings_model: "fake-embed".into(), ..settings() }
}

/// The last `meaning_index` event's state and detail.
fn meaning_state(host: &FakeHost) -> (String, Option<String>) {
    host.events()
        .iter()
        .rev()
        .find_map(|e| match e {
            Event::MeaningIndex { state, detail, .. } => Some((state.clone(), detail.clone())),
            _ => None,
        })
        .unwrap_or_default()
}

/// How many `meaning_index` events said `state`.
fn said(host: &FakeHost, state: &str) -> usize {
    host.events().iter().filter(|e| matches!(e, Event::MeaningIndex { state: s, .. } if s == state)).count()
}

/// Runs until the meaning index reports `state` (anew).
fn until_state(host: &FakeHost, state: &str) {
    let before = said(host, state);
    for _ in 0..2_000 {
        if said(host, state) > before {
            return;
        }
        host.run_for(100);
    }
    panic!("the meaning index never reached {state}: {:?}", meaning_state(host));
}

/// A processor with search by meaning, its index built.
fn ready(host: &FakeHost, settings: Settings) -> MessageProcessor<FakeHost> {
    let p = processor_with(host, settings);
    p.start_search_index();
    until_state(host, "ready");
    p
}

fn search(host: &FakeHost, p: &MessageProcessor<FakeHost>, input: serde_json::Value) -> String {
    host.run(p.run_tool("search_files", &input)).0
}

/// The note paths of a search's answer, in order.
fn paths(answer: &str) -> Vec<String> {
    answer
        .split("\n\n")
        .skip(1)
        .filter_map(|block| block.split(" — lines ").next().filter(|_| block.contains(" — lines ")))
        .map(str::to_owned)
        .collect()
}

fn garden_vault(host: &FakeHost) {
    host.put_note("Refunds.md", "# Refund policy\n\nCustomers get their money back within 30 days of purchase.\n");
    host.put_note("Garden/Tomatoes.md", "# Tomatoes\n\nWater the tomato plants every morning in summer.\n");
    host.put_note("Bikes.md", "# Bicycle repair\n\nPatch the inner tube, then pump the tyre.\n");
}

#[test]
fn hybrid_search_answers_a_question_with_the_passage_and_says_it_is_ready() {
    let host = FakeHost::new();
    host.serve_embeddings(DIMS);
    garden_vault(&host);
    let p = ready(&host, meaning_settings());
    assert!(host.logs().iter().any(|(_, l)| l.starts_with("Meaning index ready: 3 notes")), "{:?}", host.logs());
    let out = search(&host, &p, json!({"query": "when do I get my money back?"}));
    assert!(out.contains("by meaning and words"), "hybrid is the default with embeddings on: {out}");
    assert_eq!(paths(&out).first().map(String::as_str), Some("Refunds.md"), "{out}");
    assert!(out.contains("Customers get their money back within 30 days"), "the passage is the excerpt: {out}");
    let by_meaning = search(&host, &p, json!({"query": "tomato plants", "mode": "meaning", "folder": "Garden"}));
    assert_eq!(paths(&by_meaning), ["Garden/Tomatoes.md"], "{by_meaning}");
    let words = search(&host, &p, json!({"query": "tyre", "mode": "words"}));
    assert!(words.starts_with("1 notes match"), "{words}");
    let bad = search(&host, &p, json!({"query": "x", "mode": "vibes"}));
    assert!(bad.contains("mode"), "{bad}");
    let regex = search(&host, &p, json!({"query": "t.re", "regex": true}));
    assert!(regex.contains("match"), "a regex is by words without asking: {regex}");
}

#[test]
fn a_restart_embeds_nothing_that_did_not_change_and_an_edit_only_its_passage() {
    let host = FakeHost::new();
    host.serve_embeddings(DIMS);
    garden_vault(&host);
    host.put_note("Long.md", "# One\n\nfirst part\n\n# Two\n\nsecond part\n");
    let first = ready(&host, meaning_settings());
    let embedded = host.embedded_texts().len();
    assert_eq!(embedded, 5, "each passage once: {:?}", host.embedded_texts());
    first.dispose();
    drop(first);
    assert!(host.file("meaning/notes.txt").is_some(), "persisted under .smarthole/meaning/");

    let second = ready(&host, meaning_settings());
    assert_eq!(
        host.embedded_texts().len(),
        embedded,
        "a restart embeds nothing: {:?}",
        &host.embedded_texts()[embedded..]
    );
    host.advance(1_000);
    host.put_note("Long.md", "# One\n\nfirst part\n\n# Two\n\nsecond part, changed\n");
    second.vault_changed("Long.md", "modify");
    host.run_for(10_000);
    let new: Vec<String> = host.embedded_texts()[embedded..].to_vec();
    assert_eq!(new, ["Long > Two\nsecond part, changed"], "only the changed passage");
    // A note whose time changed but not its text (a sync touching files) embeds nothing.
    host.advance(1_000);
    host.put_note("Bikes.md", "# Bicycle repair\n\nPatch the inner tube, then pump the tyre.\n");
    second.vault_changed("Bikes.md", "modify");
    host.run_for(10_000);
    assert_eq!(host.embedded_texts().len(), embedded + 1);
}

#[test]
fn a_note_saved_as_it_is_typed_is_embedded_once_it_goes_quiet() {
    let host = FakeHost::new();
    host.serve_embeddings(DIMS);
    garden_vault(&host);
    let p = ready(&host, meaning_settings());
    let embedded = host.embedded_texts().len();
    for words in ["Patch", "Patch the", "Patch the tube", "Patch the tube and pump"] {
        host.put_note("Bikes.md", &format!("# Bicycle repair\n\n{words}\n"));
        p.vault_changed("Bikes.md", "modify");
        host.run_for(1_000);
    }
    host.run_for(10_000);
    assert_eq!(host.embedded_texts()[embedded..], ["Bikes > Bicycle repair\nPatch the tube and pump"]);
    // A file touched every second for ever still gets its turn.
    for n in 0..60 {
        host.put_note("Bikes.md", &format!("# Bicycle repair\n\nround {n}\n"));
        p.vault_changed("Bikes.md", "modify");
        host.run_for(1_000);
    }
    assert!(host.embedded_texts().len() > embedded + 1, "embedded within the minute");
}

#[test]
fn a_build_stopped_halfway_resumes_where_it_was() {
    let host = FakeHost::new();
    host.serve_embeddings(DIMS);
    for i in 0..400 {
        host.put_note(&format!("n{i}.md"), &format!("# Note {i}\n\nabout topic{i} and more\n"));
    }
    // A slow server: a batch takes 5 s, so the build is written back along the way.
    host.embeddings_delay(5_000);
    let first = processor_with(&host, meaning_settings());
    first.start_search_index();
    host.run_for(40_000);
    assert_eq!(meaning_state(&host).0, "building");
    let done = host.embedded_texts().len();
    assert!(done > 0 && done < 400, "{done}");
    first.dispose();
    drop(first);
    host.embeddings_delay(0);
    let _second = ready(&host, meaning_settings());
    let again = host.embedded_texts().len() - done;
    assert!(again < 400 - done / 2, "most of what was done is not embedded again: {again} of {}", 400 - done);
    let mut texts = host.embedded_texts();
    texts.sort();
    let all = texts.len();
    texts.dedup();
    // Written every 30 s: at most what the last 10 s embedded (two 5 s batches) and the batch
    // in flight are embedded again.
    assert!(all - texts.len() <= 3 * 32, "only the work since the last write is repeated: {}", all - texts.len());
}

#[test]
fn the_files_are_logs_an_edit_appends_a_torn_line_costs_one_passage_and_dead_lines_are_compacted() {
    let host = FakeHost::new();
    host.serve_embeddings(DIMS);
    garden_vault(&host);
    let p = ready(&host, meaning_settings());
    p.dispose();
    drop(p);
    // A write interrupted: the last vector line of a file cut short.
    let shard = (0..32)
        .map(|n| format!("meaning/vectors-{n:02}.txt"))
        .find(|f| host.file(f).is_some_and(|t| !t.is_empty()))
        .expect("a vector file");
    let text = host.file(&shard).unwrap_or_default();
    host.put_file(&shard, &text[..text.len() - 20]);
    let embedded = host.embedded_texts().len();
    let p = ready(&host, meaning_settings());
    assert!(!host.logs().iter().any(|(_, l)| l.contains("is damaged")), "a torn line is not damage");
    assert_eq!(host.embedded_texts().len(), embedded + 1, "only the torn passage is embedded again");
    let notes_before = host.file("meaning/notes.txt").unwrap_or_default();
    for round in 0..1_000 {
        host.advance(1_000);
        host.put_note("Bikes.md", &format!("# Bicycle repair\n\nround {round} of patching\n"));
        p.vault_changed("Bikes.md", "modify");
        host.run_for(70_000);
        if round == 0 {
            let notes = host.file("meaning/notes.txt").unwrap_or_default();
            assert!(notes.starts_with(&notes_before) && notes.len() > notes_before.len(), "an edit appends");
        }
    }
    let total: usize =
        (0..32).filter_map(|n| host.file(&format!("meaning/vectors-{n:02}.txt"))).map(|t| t.lines().count()).sum();
    // Without compaction: 1,003 lines. With it, a shard holds at most 16 dead lines or as
    // many as live ones.
    assert!(total <= 3 + 32 * 17, "dead lines are compacted away: {total} lines for 3 vectors");
    let note_lines = host.file("meaning/notes.txt").unwrap_or_default().lines().count();
    assert!(note_lines <= 1 + 2 * 3 + 1_000, "{note_lines}");
}

#[test]
fn a_damaged_vector_file_is_rebuilt_never_trusted() {
    let host = FakeHost::new();
    host.serve_embeddings(DIMS);
    garden_vault(&host);
    let first = ready(&host, meaning_settings());
    let before = search(&host, &first, json!({"query": "money back", "mode": "meaning"}));
    first.dispose();
    drop(first);
    let shard = (0..32)
        .map(|n| format!("meaning/vectors-{n:02}.txt"))
        .find(|f| host.file(f).is_some_and(|t| !t.is_empty()))
        .expect("a vector file");
    let text = host.file(&shard).unwrap_or_default();
    let lines = text.lines().count();
    host.put_file(&shard, &text.replacen(' ', " @@", 1));
    let embedded = host.embedded_texts().len();
    let second = ready(&host, meaning_settings());
    assert!(host.logs().iter().any(|(_, l)| l.contains("is damaged")), "{:?}", host.logs());
    assert_eq!(host.embedded_texts().len(), embedded + lines, "the shard's passages are embedded again");
    assert_eq!(search(&host, &second, json!({"query": "money back", "mode": "meaning"})), before);
    assert!(host.file(&shard).is_some_and(|t| !t.contains("@@")), "rewritten");
}

#[test]
fn a_provider_that_errs_throttles_or_answers_nonsense_never_corrupts_the_index() {
    let host = FakeHost::new();
    host.serve_embeddings(DIMS);
    garden_vault(&host);
    let p = ready(&host, meaning_settings());
    let before = search(&host, &p, json!({"query": "money back", "mode": "meaning"}));
    let add = |name: &str, fault: EmbedFault| {
        host.advance(1_000);
        host.embeddings_fault(fault);
        host.put_note(name, &format!("# {name}\n\nNew note about refunds and money.\n"));
        p.vault_changed(name, "create");
        host.run_for(200_000);
    };
    // Throttled: backs off and gets there.
    add("A.md", EmbedFault::Status(429, r#"{"error":{"message":"slow down"}}"#.into()));
    assert_eq!(meaning_state(&host).0, "ready");
    // NaN (not JSON): an invalid answer, tried again.
    add("B.md", EmbedFault::Nan);
    assert_eq!(meaning_state(&host).0, "ready");
    // Another dimension, a refused key: paused with what to do; nothing kept from the answer.
    for (name, fault, says) in [
        ("C.md", EmbedFault::Dims(DIMS * 2), "dimensions"),
        ("D.md", EmbedFault::Status(401, r#"{"error":{"message":"bad key"}}"#.into()), "key"),
    ] {
        add(name, fault);
        let (state, detail) = meaning_state(&host);
        assert_eq!(state, "paused", "{name}");
        assert!(detail.as_deref().is_some_and(|d| d.contains(says)), "{name}: {detail:?}");
        let meanwhile = search(&host, &p, json!({"query": "money back", "mode": "meaning"}));
        assert!(paths(&meanwhile).contains(&"Refunds.md".to_owned()), "still searched while paused: {meanwhile}");
    }
    // The next change tries again and the index is whole: every note ranked as a fresh index ranks it.
    p.vault_changed("D.md", "modify");
    host.run_for(10_000);
    assert_eq!(meaning_state(&host).0, "ready");
    let after = search(&host, &p, json!({"query": "money back", "mode": "meaning"}));
    let fresh_host = FakeHost::new();
    fresh_host.serve_embeddings(DIMS);
    for path in ["Refunds.md", "Garden/Tomatoes.md", "Bikes.md", "A.md", "B.md", "C.md", "D.md"] {
        fresh_host.put_note(path, &host.note(path).unwrap_or_default());
    }
    let fresh = ready(&fresh_host, meaning_settings());
    assert_eq!(after, search(&fresh_host, &fresh, json!({"query": "money back", "mode": "meaning"})));
    assert_ne!(after, before);
    // A passage the model refuses as too long is cut and embedded.
    host.embeddings_fault(EmbedFault::Status(
        500,
        r#"{"error":{"code":500,"message":"input (602 tokens) is too large to process","type":"server_error"}}"#.into(),
    ));
    host.put_note("E.md", &format!("# E\n\n{}\n", "word ".repeat(150)));
    p.vault_changed("E.md", "create");
    host.run_for(10_000);
    assert_eq!(meaning_state(&host).0, "ready");
}

#[test]
fn without_a_reachable_endpoint_search_answers_by_words_and_says_so() {
    let host = FakeHost::new();
    host.serve_embeddings(DIMS);
    garden_vault(&host);
    let p = ready(&host, meaning_settings());
    host.embeddings_down(true);
    let out = search(&host, &p, json!({"query": "tomato"}));
    assert!(out.contains("search by meaning is unavailable"), "{out}");
    assert!(out.starts_with("1 notes match"), "by words: {out}");
    let off = processor_with(&host, settings());
    let out = search(&host, &off, json!({"query": "tomato", "mode": "meaning"}));
    assert!(out.contains("no embedding server is set up"), "{out}");
}

#[test]
fn a_new_model_is_said_before_the_rebuild_and_everything_is_embedded_again() {
    let host = FakeHost::new();
    host.serve_embeddings(DIMS);
    garden_vault(&host);
    let p = ready(&host, meaning_settings());
    let embedded = host.embedded_texts().len();
    p.update_settings(Settings { embeddings_model: "other-embed".into(), ..meaning_settings() }).expect("settings");
    host.run_for(10_000);
    assert!(host.logs().iter().any(|(_, l)| l.contains("The embedding model changed from fake-embed to other-embed")));
    assert_eq!(host.embedded_texts().len(), embedded * 2);
    assert_eq!(meaning_state(&host).0, "ready");
}

#[test]
fn past_its_ceiling_the_index_stops_and_says_how_many_notes_it_covers() {
    let host = FakeHost::new();
    host.serve_embeddings(1_024);
    for i in 0..1_200 {
        host.put_note(&format!("n{i}.md"), &format!("note number {i} about topic{i}"));
    }
    let p = processor_with(&host, Settings { meaning_index_max_mb: 1, ..meaning_settings() });
    p.start_search_index();
    until_state(&host, "full");
    let (_, detail) = meaning_state(&host);
    assert!(
        detail.as_deref().is_some_and(|d| d.contains("of 1200 notes") && d.contains("meaningIndexMaxMb")),
        "{detail:?}"
    );
    let out = search(&host, &p, json!({"query": "topic7", "mode": "meaning"}));
    assert!(out.contains("by meaning"), "what fits is still searched: {out}");
}

#[test]
fn related_notes_are_the_closest_others_with_their_passage() {
    let host = FakeHost::new();
    host.serve_embeddings(DIMS);
    garden_vault(&host);
    host.put_note("Garden/Peppers.md", "# Peppers\n\nWater the pepper plants every morning in summer.\n");
    let p = ready(&host, meaning_settings());
    let related = host.run(p.related_notes("Garden/Tomatoes.md", 5));
    assert_eq!(related.notes.first().map(|n| n.path.as_str()), Some("Garden/Peppers.md"), "{related:?}");
    assert!(related.notes.iter().all(|n| n.path != "Garden/Tomatoes.md"));
    assert!(related.notes[0].passage.contains("pepper plants"), "{related:?}");
}

// The property: after any sequence of changes, the meaning index ranks the vault's notes as a
// brute-force float cosine over every current passage ranks them (within the int8 rounding).

const TOPICS: [&str; 8] = [
    "refund money",
    "tomato garden",
    "bicycle tyre",
    "tea kettle",
    "oat milk",
    "train ticket",
    "piano lesson",
    "rain coat",
];

fn text_of(topics: &[u8]) -> String {
    topics
        .iter()
        .enumerate()
        .map(|(i, t)| format!("# Part {i}\n\n{} notes\n\n", TOPICS[*t as usize % TOPICS.len()]))
        .collect()
}

fn path_of(n: u8) -> String {
    format!("{}note {}.md", ["", "a/"][n as usize % 2], n % 10)
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The index's ranking for each topic agrees with the brute force over the vault as it is.
fn ranks_as_brute_force(host: &FakeHost, p: &MessageProcessor<FakeHost>) {
    let notes: Vec<(String, String)> = host
        .notes()
        .into_iter()
        .map(|path| {
            let text = host.note(&path).unwrap_or_default();
            (path, text)
        })
        .collect();
    for topic in TOPICS {
        let q = fake_embedding(topic, DIMS);
        let brute = |path: &str| {
            let (_, text) = notes.iter().find(|(p, _)| p == path).expect("a listed note");
            meaning_passages(path, text)
                .iter()
                .map(|(t, _)| cosine(&q, &fake_embedding(t, DIMS)))
                .fold(f32::MIN, f32::max)
        };
        if notes.is_empty() {
            return;
        }
        let answer = search(host, p, json!({"query": topic, "mode": "meaning", "max_results": 50}));
        let got = paths(&answer);
        let mut want: Vec<&str> = notes.iter().map(|(p, _)| p.as_str()).collect();
        want.sort_unstable();
        let mut found: Vec<&str> = got.iter().map(String::as_str).collect();
        found.sort_unstable();
        assert_eq!(found, want, "every note ranked, none missing: {answer}");
        assert!(answer.starts_with(&format!("{} notes for", want.len())), "none stale: {answer}");
        for pair in got.windows(2) {
            assert!(brute(&pair[0]) >= brute(&pair[1]) - 0.02, "{topic}: {} before {}: {answer}", pair[0], pair[1]);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn the_index_ranks_as_a_brute_force_cosine(
        start in proptest::collection::vec((any::<u8>(), proptest::collection::vec(0u8..8, 0..4)), 1..6),
        ops in proptest::collection::vec(op(8, 4), 1..6),
    ) {
        let host = FakeHost::new();
        host.serve_embeddings(DIMS);
        for (n, topics) in &start {
            host.put_note(&path_of(*n), &text_of(topics));
            host.advance(1_000);
        }
        let mut p = ready(&host, meaning_settings());
        ranks_as_brute_force(&host, &p);
        for op in ops {
            host.advance(1_000);
            match op {
                Op::Write(n, t) => change_vault(&host, &p, VaultChange::Write(&path_of(n), &text_of(&t))),
                Op::Rename(a, b) => change_vault(&host, &p, VaultChange::Rename(&path_of(a), &path_of(b))),
                Op::Delete(n) => change_vault(&host, &p, VaultChange::Delete(&path_of(n))),
                Op::Restart(n, t) => {
                    p.dispose();
                    drop(p);
                    host.put_note(&path_of(n), &text_of(&t));
                    p = processor_with(&host, meaning_settings());
                    p.start_search_index();
                }
            }
            host.run_for(10_000);
            ranks_as_brute_force(&host, &p);
        }
    }
}
