//! The inbox's slots (src/inbox/slots.rs): a new message's entry is appended into an empty file
//! made durable ahead of time (one flush) and renamed to its name; whatever a crash leaves in a
//! slot is found at start-up before any message arrives.

mod common;

use common::*;
use serde_json::json;
use smarthole_agent::testing::{FakeHost, FileOp, Reply};

/// The inbox's slot files, each with whether it is empty.
fn slots(host: &FakeHost) -> Vec<(String, bool)> {
    host.paths_under("inbox")
        .into_iter()
        .filter(|p| p.ends_with(".slot"))
        .map(|p| {
            let empty = host.file(&p).is_some_and(|t| t.is_empty());
            (p, empty)
        })
        .collect()
}

fn entry(id: &str, text: &str) -> String {
    json!({"message": {"id": id, "text": text, "timestamp": "t", "source": "websocket"}, "attempts": 1, "receivedAt": 1})
        .to_string()
}

/// A processor whose first message (saved the two-flush way: no slot yet) had the slots made.
fn with_slots_ready(host: &FakeHost) -> smarthole_agent::MessageProcessor<FakeHost> {
    let p = processor(host);
    host.run(p.initialize()).unwrap();
    host.run_for(10);
    assert!(slots(host).is_empty(), "no slot is made at start-up (it would share the plugin's load)");
    host.script([Reply::text("first")]);
    assert!(host.run(p.process(direct("first", "hi"))).success);
    host.run_for(10);
    p
}

#[test]
fn a_new_message_is_saved_through_a_ready_slot_not_a_new_file() {
    let host = FakeHost::new();
    let p = with_slots_ready(&host);
    let ready = slots(&host);
    assert_eq!(ready.len(), 4, "{ready:?}");
    assert!(ready.iter().all(|(_, empty)| *empty));
    // No new file can be written atomically in the inbox any more: the message's entry can
    // only go through a slot (and no slot can be made to replace the one it takes).
    host.fail_files(FileOp::WriteAtomic, "inbox/");
    host.script([Reply::text("noted")]);
    let result = host.run(p.process(from_hub("m1", "remember milk")));
    assert!(result.success, "{result:?}");
    assert_eq!(recorded_count(&host, "m1"), 1);
    assert!(inbox(&host).is_empty(), "{:?}", inbox(&host));
    assert_eq!(slots(&host).len(), 3, "the slot taken holds the entry, renamed, then removed");
}

#[test]
fn slots_taken_are_made_again_in_the_background() {
    let host = FakeHost::new();
    let p = with_slots_ready(&host);
    host.script([Reply::text("one"), Reply::text("two")]);
    for id in ["a", "b"] {
        assert!(host.run(p.process(direct(id, "hi"))).success);
    }
    host.run_for(10);
    let after = slots(&host);
    assert_eq!(after.len(), 4, "{after:?}");
    assert!(after.iter().all(|(_, empty)| *empty));
}

#[test]
fn an_entry_a_crash_left_in_its_slot_is_found_at_start_up_and_answered_once() {
    let host = FakeHost::new();
    // What a crash leaves: an entry appended and flushed, its rename lost; an empty slot; a slot
    // whose write was cut (never acknowledged).
    host.put_file("inbox/00000000000000a1.slot", &entry("m1", "remember milk"));
    host.put_file("inbox/00000000000000a2.slot", "");
    host.put_file("inbox/00000000000000a3.slot", "{\"message\": {\"id\": \"m2\", \"te");
    host.script([Reply::text("the answer")]);
    let p = processor(&host);
    host.run(p.initialize()).unwrap();
    assert_eq!(host.file("inbox/m1.json").as_deref(), Some(&entry("m1", "remember milk")[..]));
    assert!(host.file("inbox/00000000000000a3.slot").is_none(), "the cut write is removed");
    assert!(host.file("inbox/00000000000000a2.slot").is_some(), "the empty slot is kept, ready");
    // The hub delivers the message again before the inbox is gone through: it continues the
    // entry the slot kept rather than starting a second one.
    let redelivered = host.run(p.process(from_hub("m1", "remember milk")));
    assert!(redelivered.success, "{redelivered:?}");
    let summary = host.run(p.reprocess_pending()).unwrap();
    assert!(summary.results.is_empty(), "{summary:?}");
    assert_eq!(recorded_count(&host, "m1"), 1, "answered once");
    assert_eq!(host.requests().len(), 1);
    assert!(inbox(&host).is_empty(), "{:?}", inbox(&host));
    assert!(host.paths_under("failed").is_empty(), "a cut write was never a message: nothing set aside");
}

#[test]
fn a_slot_left_with_an_entry_is_answered_by_the_restart() {
    let host = FakeHost::new();
    host.put_file("inbox/00000000000000b1.slot", &entry("m1", "remember milk"));
    host.script([Reply::text("the answer")]);
    let p = processor(&host);
    let summary = host.run(p.reprocess_pending()).unwrap();
    assert_eq!(summary.results.len(), 1, "{summary:?}");
    assert!(summary.results[0].success);
    assert_eq!(recorded_count(&host, "m1"), 1);
    assert!(inbox(&host).is_empty(), "{:?}", inbox(&host));
}

#[test]
fn a_slot_whose_write_fails_is_removed_and_the_message_refused() {
    let host = FakeHost::new();
    let p = with_slots_ready(&host);
    host.fail_files(FileOp::Append, "inbox/");
    host.fail_files(FileOp::WriteAtomic, "inbox/");
    let result = host.run(p.process(direct("m1", "hello")));
    assert!(!result.success);
    assert!(result.error.as_deref().unwrap_or("").contains("Could not save the message"), "{result:?}");
    assert_eq!(slots(&host).len(), 3, "the slot that failed is removed: it may hold part of an entry");
    assert!(inbox(&host).is_empty(), "{:?}", inbox(&host));
    assert_eq!(
        host.requests().len(),
        1,
        "a message not saved is not answered (the one request is the first message's)"
    );
}

#[test]
fn a_redelivery_continues_the_entry_a_slot_kept_with_its_attempts() {
    let host = FakeHost::new();
    let mut spent = serde_json::from_str::<serde_json::Value>(&entry("m1", "boom")).unwrap();
    spent["attempts"] = json!(5);
    host.put_file("inbox/00000000000000c1.slot", &spent.to_string());
    let p = processor(&host);
    host.run(p.initialize()).unwrap();
    let result = host.run(p.process(from_hub("m1", "boom")));
    assert!(!result.success, "{result:?}");
    assert_eq!(host.paths_under("failed"), ["failed/m1.json"], "its five attempts were counted");
    assert!(host.requests().is_empty());
}

#[test]
fn a_disk_that_fails_every_slot_is_logged_once_until_one_is_made_again() {
    let host = FakeHost::new();
    let p = with_slots_ready(&host);
    let slot_warnings =
        |host: &FakeHost| host.logs().iter().filter(|(_, m)| m.contains("could not make an inbox slot")).count();
    host.fail_files(FileOp::Append, "inbox/");
    host.fail_files(FileOp::WriteAtomic, "inbox/");
    for id in ["m1", "m2", "m3", "m4", "m5"] {
        assert!(!host.run(p.process(direct(id, "hello"))).success);
        host.run_for(10);
    }
    assert_eq!(slot_warnings(&host), 1, "{:?}", host.logs());
    // The disk mends: slots are made again; it fails again: logged again, once.
    host.clear_file_failures();
    host.script([Reply::text("ok")]);
    assert!(host.run(p.process(direct("m6", "hello"))).success);
    host.run_for(10);
    assert_eq!(slots(&host).len(), 4);
    host.fail_files(FileOp::Append, "inbox/");
    host.fail_files(FileOp::WriteAtomic, "inbox/");
    for id in ["m7", "m8"] {
        assert!(!host.run(p.process(direct(id, "hello"))).success);
        host.run_for(10);
    }
    assert_eq!(slot_warnings(&host), 2, "{:?}", host.logs());
}
