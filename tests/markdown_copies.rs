//! Markdown copies of conversations (issue 19): the note matches the history, is only ever added
//! to, keeps what the user wrote in it, holds each message once however it got there (the
//! setting switched on later, an export, a crash in the middle of writing it), and a copy that
//! cannot be written never touches the history or the answer.

mod common;

use common::*;
use smarthole_agent::testing::{FakeHost, Reply};
use smarthole_agent::{Event, LineRole, MessageProcessor, Settings};

fn copies_on() -> Settings {
    Settings { markdown_copies: true, markdown_copies_folder: "Chats".into(), ..settings() }
}

/// The current conversation's copy: its path and text.
fn copy(host: &FakeHost, p: &MessageProcessor<FakeHost>) -> (String, String) {
    let conversation = host.run(p.conversations()).unwrap().into_iter().last().expect("a conversation");
    let path = conversation.markdown_copy.expect("the conversation knows its copy");
    let text = host.note(&path).expect("the copy is a note");
    (path, text)
}

fn say(host: &FakeHost, p: &MessageProcessor<FakeHost>, id: &str, text: &str, answer: &str) {
    host.script([Reply::text(answer)]);
    let result = host.run(p.process(direct(id, text)));
    assert!(result.success, "{result:?}");
    host.run_for(1_000);
}

/// Every visible text of the history, in order, appears in the copy in the same order, once.
fn assert_holds_history_once(host: &FakeHost, note: &str) {
    // The messages, after the heading (whose title may repeat the first one).
    let text = &note[note.find("\n### ").expect("messages in the note")..];
    let mut at = 0;
    for line in history(host).iter().filter(|l| l.visible && l.role != LineRole::System) {
        for block in &line.content {
            if let smarthole_agent::ContentBlock::Text { text: t } = block {
                let found =
                    text[at..].find(t.trim()).unwrap_or_else(|| panic!("{t:?} missing or out of order in:\n{text}"));
                at += found + t.trim().len();
                assert_eq!(text.matches(t.trim()).count(), 1, "{t:?} more than once in:\n{text}");
            }
        }
    }
}

#[test]
fn the_copy_matches_the_history_message_by_message_with_tool_calls_summed_up() {
    let host = FakeHost::new();
    host.put_note("Inbox.md", "buy milk");
    let p = processor_with(&host, copies_on());
    say(&host, &p, "a", "hello there", "Hello! How can I help?");
    host.script([
        Reply::tools("Let me look.", &[("t1", "read_file", serde_json::json!({"path": "Inbox.md"}))]),
        Reply::text("Your inbox says: buy milk."),
    ]);
    assert!(host.run(p.process(direct("b", "what is in my inbox?"))).success);
    host.run_for(1_000);
    let (path, text) = copy(&host, &p);
    assert!(path.starts_with("Chats/") && path.ends_with(".md"), "{path}");
    assert!(text.starts_with("# hello there\n\nStarted "), "the title and when it started:\n{text}");
    assert_holds_history_once(&host, &text);
    assert!(text.contains("### You · ") && text.contains("### Agent · "), "{text}");
    assert!(text.contains("Let me look.\n\n*Used `read_file`.*"), "the tool call summed up:\n{text}");
    assert!(!text.contains("buy milk\"") && !text.contains("tool_result"), "tool results are not copied:\n{text}");
    // Each message ends with its own block id, so it can be linked to.
    assert_eq!(text.matches("\n^smh-").count(), 5, "{text}");
}

#[test]
fn switching_copies_on_later_copies_the_whole_conversation_once_and_an_export_adds_nothing() {
    let host = FakeHost::new();
    let p = processor(&host);
    say(&host, &p, "a", "first question", "first answer");
    say(&host, &p, "b", "second question", "second answer");
    assert!(host.notes().iter().all(|n| !n.starts_with("Chats/")), "off by default: no copy");
    p.update_settings(copies_on()).unwrap();
    say(&host, &p, "c", "third question", "third answer");
    let (path, text) = copy(&host, &p);
    assert_holds_history_once(&host, &text);
    assert!(text.contains("first question") && text.contains("third answer"));
    let id = host.run(p.conversations()).unwrap().into_iter().last().unwrap().id;
    assert_eq!(host.run(p.export_conversation(&id)).unwrap(), path);
    assert_eq!(host.note(&path).unwrap(), text, "an export of an up-to-date copy adds nothing");
}

#[test]
fn the_users_own_writing_in_the_copy_is_kept_and_a_deleted_copy_is_written_again() {
    let host = FakeHost::new();
    let p = processor_with(&host, copies_on());
    say(&host, &p, "a", "plan the trip", "Here is a plan.");
    let (path, text) = copy(&host, &p);
    host.put_note(&path, &format!("{text}My own thoughts: go in May.\n"));
    say(&host, &p, "b", "and the budget?", "About 900 euros.");
    let (_, text) = copy(&host, &p);
    assert!(
        text.contains("My own thoughts: go in May.\n\n### You · "),
        "the user's line kept, the turn after it:\n{text}"
    );
    assert_holds_history_once(&host, &text);
    let history_before = history(&host);
    assert!(host.remove_note(&path));
    say(&host, &p, "c", "thanks", "You're welcome.");
    let (again, text) = copy(&host, &p);
    assert_eq!(again, path);
    assert_holds_history_once(&host, &text);
    assert_eq!(history(&host)[..history_before.len()], history_before[..], "the history never changes with the copy");
}

#[test]
fn a_copy_cut_off_mid_write_is_whole_after_the_next_turn() {
    let host = FakeHost::new();
    let p = processor_with(&host, copies_on());
    say(&host, &p, "a", "one", "answer one");
    say(&host, &p, "b", "two", "answer two");
    // The app stopped while the last answer was being written: its end never reached the disk.
    let (path, text) = copy(&host, &p);
    let cut = text.rfind("answer two").unwrap() + "answer".len();
    host.put_note(&path, &text[..cut]);
    say(&host, &p, "c", "three", "answer three");
    let (_, text) = copy(&host, &p);
    assert!(text.contains("answer two\n\n^smh-"), "the cut-off message again, whole:\n{text}");
    assert!(text.contains("answer three"));
    assert_eq!(
        text.matches("\n^smh-").count(),
        6,
        "every message whole once (the cut one's start stays above):\n{text}"
    );
}

#[test]
fn a_copy_that_cannot_be_written_is_reported_and_the_answer_and_history_stand() {
    let host = FakeHost::new();
    // A file where the folder should be: nothing can be created in it.
    host.put_unusual(
        smarthole_agent::VaultEntry {
            path: "Chats".into(),
            is_folder: false,
            size: 0,
            created_ms: 0,
            modified_ms: 0,
            kind: smarthole_agent::EntryKind::Fifo,
            real_path: None,
        },
        None,
    );
    let p = processor_with(&host, copies_on());
    say(&host, &p, "a", "hello", "hi");
    assert_eq!(history(&host).iter().filter(|l| l.message_id == "a").count(), 2, "the turn is recorded");
    let notices: Vec<String> = host
        .events()
        .into_iter()
        .filter_map(|e| match e {
            Event::Notice { text, .. } => Some(text),
            _ => None,
        })
        .collect();
    assert!(notices.iter().any(|n| n.contains("could not write the Markdown copy Chats/")), "{notices:?}");
    assert!(host.run(p.conversations()).unwrap()[0].markdown_copy.is_none());
}

#[test]
fn the_copies_folder_must_be_a_folder_of_the_users_own() {
    for folder in [".smarthole/chats", ".obsidian", "../outside"] {
        let settings = Settings { markdown_copies_folder: folder.into(), ..copies_on() };
        let error = settings.validate().unwrap_err().to_string();
        assert!(error.contains("folder for Markdown copies"), "{folder}: {error}");
    }
    assert!(Settings { markdown_copies_folder: "".into(), ..copies_on() }.validate().is_ok(), "the vault's root");
}

/// The warnings the user was shown.
fn warnings(host: &FakeHost) -> Vec<String> {
    host.events()
        .into_iter()
        .filter_map(|e| match e {
            Event::Notice { text, .. } => Some(text),
            _ => None,
        })
        .collect()
}

#[test]
fn a_copy_whose_path_is_a_link_to_another_note_is_never_written_through() {
    let host = FakeHost::new();
    host.put_note("Notes/Plan.md", "# Plan\n");
    let p = processor_with(&host, copies_on());
    say(&host, &p, "a", "hello", "hi");
    let (path, _) = copy(&host, &p);
    // The copy replaced by a link to another note of the vault.
    host.remove_note(&path);
    let link = smarthole_agent::VaultEntry {
        path: path.clone(),
        kind: smarthole_agent::EntryKind::Plain,
        real_path: Some("Notes/Plan.md".into()),
        ..smarthole_agent::VaultEntry::default()
    };
    host.put_unusual(link, None);
    say(&host, &p, "b", "and then", "more");
    assert_eq!(host.note("Notes/Plan.md").unwrap(), "# Plan\n", "the note the link points to is untouched");
    assert!(host.unusual_touches().is_empty(), "never read or written through the link: {:?}", host.unusual_touches());
    let warned = warnings(&host);
    assert!(
        warned
            .iter()
            .any(|w| w.contains(&format!("{path} is a link (to Notes/Plan.md)")) && w.contains("nothing was written")),
        "{warned:?}"
    );
    assert_eq!(history(&host).iter().filter(|l| l.message_id == "b").count(), 2, "the turn is recorded");
}

#[test]
fn a_copy_the_index_places_outside_the_copies_folder_goes_to_the_folder() {
    let host = FakeHost::new();
    host.put_note("Notes/Plan.md", "# Plan\n");
    let p = processor_with(&host, copies_on());
    say(&host, &p, "a", "hello", "hi");
    // An index that names a note of the user's as the copy (edited, or forged).
    let index = host.file("conversations/index.json").unwrap();
    let (path, _) = copy(&host, &p);
    host.put_file("conversations/index.json", &index.replace(&path, "Notes/Plan.md"));
    let p = processor_with(&host, copies_on());
    say(&host, &p, "b", "and then", "more");
    assert_eq!(host.note("Notes/Plan.md").unwrap(), "# Plan\n");
    let (again, text) = copy(&host, &p);
    assert!(again.starts_with("Chats/"), "{again}");
    assert!(text.contains("and then") && text.contains("more"), "{text}");
}
