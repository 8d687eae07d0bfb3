//! Pointing the agent at what the user means (issue 23): a mentioned note, a folder, an image and
//! a PDF go with the message as their own blocks; the history keeps references, the bytes sent
//! are kept once under their hash, and later turns and a restart send exactly those bytes.
//! Bad input is refused with a clear reason and nothing is stored or sent.

mod common;

use common::attachments::*;
use common::*;
use serde_json::{json, Value};
use smarthole_agent::testing::{FakeHost, Reply};
use smarthole_agent::{attach_bytes, AttachError, AttachmentKind, Settings};
use smarthole_agent::{EntryKind, VaultEntry};

#[test]
fn a_note_an_image_and_a_pdf_arrive_as_their_own_blocks_before_the_question() {
    let host = FakeHost::new();
    host.put_note("Projects/Plan.md", "# Plan\n- ship attachments\n");
    host.put_binary("Screens/shot.png", &png(640, 480, 300));
    host.put_binary("Papers/paper.pdf", PDF);
    let s = settings();
    let note = attach(&host, &s, "Projects/Plan").expect("a note, found without .md");
    assert_eq!((note.kind, note.path.as_str(), note.cut.as_deref()), (AttachmentKind::Note, "Projects/Plan.md", None));
    let image = attach(&host, &s, "Screens/shot.png").expect("an image");
    assert_eq!(
        (image.kind, image.media_type.as_str(), image.pixels),
        (AttachmentKind::Image, "image/png", Some((640, 480)))
    );
    let pdf = attach(&host, &s, "papers/PAPER.pdf").expect("a PDF, by the case rule");
    assert_eq!((pdf.kind, pdf.pages), (AttachmentKind::Pdf, Some(1)));

    host.script([Reply::text("Looked at all three.")]);
    let p = processor(&host);
    let result = host.run(p.process(with_attachments("m1", "What do these say?", &[note, image, pdf])));
    assert!(result.success, "{result:?}");

    let request = &host.requests()[0].body;
    let blocks = last_user_blocks(request);
    let types: Vec<&str> = blocks.iter().map(|b| b["type"].as_str().unwrap_or("")).collect();
    // The context, the note, the image's label and the image, the PDF, then the question.
    assert_eq!(types, ["text", "text", "text", "image", "document", "text"], "{blocks:#?}");
    assert_eq!(blocks[1]["text"], "<note path=\"Projects/Plan.md\">\n# Plan\n- ship attachments\n\n</note>");
    assert_eq!(blocks[2]["text"], "<image path=\"Screens/shot.png\"/>");
    assert_eq!(
        blocks[3]["source"],
        json!({"type": "base64", "media_type": "image/png", "data": b64(&png(640, 480, 300))})
    );
    assert_eq!(blocks[4]["source"]["media_type"], "application/pdf");
    assert_eq!(blocks[4]["source"]["data"], b64(PDF));
    assert_eq!(blocks[4]["title"], "Papers/paper.pdf");
    assert_eq!(blocks[5]["text"], "What do these say?");
}

#[test]
fn later_turns_and_a_restart_send_the_same_bytes_and_the_history_stays_small() {
    let host = FakeHost::new();
    host.put_note("Plan.md", "version one");
    let big = png(1000, 800, 200_000);
    host.put_binary("big.png", &big);
    let s = settings();
    let note = attach(&host, &s, "Plan.md").unwrap();
    let image = attach(&host, &s, "big.png").unwrap();
    host.script([Reply::text("Seen."), Reply::text("Still seen."), Reply::text("And after the restart.")]);
    let p = processor(&host);
    assert!(host.run(p.process(with_attachments("m1", "look", &[note, image]))).success);
    // The note changes after it was sent: what was sent is what later turns send.
    host.put_note("Plan.md", "version two");
    assert!(host.run(p.process(direct("m2", "and now?"))).success);
    drop(p);
    let p = processor(&host);
    assert!(host.run(p.process(direct("m3", "after a restart?"))).success);

    for request in host.requests() {
        let blocks = all_blocks(&request.body);
        let texts: Vec<&str> = blocks.iter().filter_map(|b| b["text"].as_str()).collect();
        assert!(texts.contains(&"<note path=\"Plan.md\">\nversion one\n</note>"), "{texts:?}");
        assert!(!texts.iter().any(|t| t.contains("version two")));
        let images: Vec<&Value> = blocks.iter().filter(|b| b["type"] == "image").collect();
        assert_eq!(images.len(), 1);
        assert_eq!(images[0]["source"]["data"], b64(&big));
    }
    // No base64 in the history: every line is small, whatever the image's size.
    for line in history(&host) {
        let json = serde_json::to_string(&line).unwrap();
        assert!(json.len() < 2_000, "a history line of {} bytes", json.len());
    }
    for path in host.paths().iter().filter(|p| p.ends_with(".jsonl")) {
        let file = host.file(path).unwrap();
        assert!(!file.contains(&b64(&big)[..100]), "{path} holds the image's bytes");
    }
}

#[test]
fn the_same_file_twice_is_stored_once_and_a_pasted_image_is_checked_like_one_from_the_vault() {
    let host = FakeHost::new();
    let shot = png(300, 200, 1_000);
    host.put_binary("a.png", &shot);
    host.put_binary("b/copy.png", &shot);
    let s = settings();
    let a = attach(&host, &s, "a.png").unwrap();
    let b = attach(&host, &s, "b/copy.png").unwrap();
    let pasted = host.run(attach_bytes(&host, &s, "Pasted image.png", &shot)).unwrap();
    assert_eq!(a.hash, b.hash);
    assert_eq!(a.hash, pasted.hash);
    assert!(pasted.pasted);
    assert_eq!(copies(&host).len(), 1, "{:?}", copies(&host));

    let not_an_image = host.run(attach_bytes(&host, &s, "notes.txt", b"plain text"));
    assert_eq!(not_an_image, Err(AttachError::Unsupported("notes.txt".into())));
    let fifty_mb = vec![0u8; 50 * 1024 * 1024];
    let err = host.run(attach_bytes(&host, &s, "huge.png", &fifty_mb)).unwrap_err();
    assert!(err.to_string().contains("50.0 MB"), "{err}");
    assert_eq!(copies(&host).len(), 1, "nothing stored for what was refused");
}

#[test]
fn bad_input_is_refused_with_the_reason_and_nothing_is_stored() {
    let host = FakeHost::new();
    host.put_note(".obsidian/app.json", "{}");
    host.put_note("Private/diary.md", "secret");
    host.put_binary("broken.png", b"\x89PNG\r\n\x1a\n");
    let whole = png(64, 64, 300);
    host.put_binary("cut.png", &whole[..whole.len() - 40]);
    host.put_binary("cut.pdf", &PDF[..PDF.len() - 10]);
    host.put_binary("renamed.jpg", b"this is not a jpeg at all");
    host.put_binary("huge.png", &png(9000, 100, 10));
    host.put_binary("big.png", &png(100, 100, 6 * 1024 * 1024));
    host.put_binary("archive.zip", b"PK\x03\x04");
    host.put_unusual(VaultEntry { path: "out.md".into(), kind: EntryKind::Outside, ..VaultEntry::default() }, None);
    host.put_unusual(VaultEntry { path: "pipe.md".into(), kind: EntryKind::Fifo, ..VaultEntry::default() }, None);
    let s = Settings { protected_folders: vec!["Private".into()], ..settings() };
    let reason = |path: &str| attach(&host, &s, path).unwrap_err().to_string();

    assert!(reason("../etc/passwd").contains("leaves the vault"), "{}", reason("../etc/passwd"));
    assert!(reason("/etc/passwd").contains("absolute"));
    assert!(reason(".obsidian/app.json").contains("protected"));
    assert!(reason("Private/diary.md").contains("protected"));
    assert!(reason("out.md").contains("outside the vault"), "{}", reason("out.md"));
    assert!(reason("pipe.md").contains("FIFO"), "{}", reason("pipe.md"));
    assert!(reason("missing.md").contains("not a note or folder"), "{}", reason("missing.md"));
    assert!(reason("broken.png").contains("ends early"), "{}", reason("broken.png"));
    assert_eq!(reason("cut.png"), "cut.png ends early: this image was cut short (a download or a sync that stopped?), so it is not sent; attach a whole copy");
    assert!(reason("cut.pdf").starts_with("cut.pdf ends early: this PDF was cut short"), "{}", reason("cut.pdf"));
    assert!(reason("renamed.jpg").contains("damaged"), "{}", reason("renamed.jpg"));
    assert!(reason("huge.png").contains("9000 x 100 pixels"), "{}", reason("huge.png"));
    assert!(reason("big.png").contains("up to 5.0 MB"), "{}", reason("big.png"));
    assert!(reason("archive.zip").contains("not a note, a folder, an image"), "{}", reason("archive.zip"));
    assert!(copies(&host).is_empty(), "{:?}", copies(&host));
    assert!(host.unusual_touches().is_empty(), "nothing opened through a link or special file");
}

#[test]
fn a_long_note_is_cut_at_a_line_with_a_marker_and_a_folder_is_listed() {
    let host = FakeHost::new();
    let long: String = (1..=5_000).map(|n| format!("line {n} of the long note\n")).collect();
    host.put_note("Long.md", &long);
    host.put_note("Projects/a.md", "a");
    host.put_note("Projects/b.md", "b");
    host.put_note("Projects/Sub/c.md", "c");
    let s = settings();
    let note = attach(&host, &s, "Long.md").unwrap();
    let cut = note.cut.clone().expect("the chip says where it was cut");
    assert!(cut.starts_with("cut at line ") && cut.ends_with("of 5000"), "{cut}");
    let copy = host.file(&format!("attachments/{}.txt", note.hash)).unwrap();
    assert!(copy.chars().count() < 41_000);
    assert!(copy.contains("[… attachment cut here, at line"), "the model is told where");
    assert!(copy.lines().nth(copy.lines().count() - 2).unwrap().starts_with("line "), "cut at a line end");

    let folder = attach(&host, &s, "Projects").unwrap();
    assert_eq!(folder.kind, AttachmentKind::Folder);
    let listing = host.file(&format!("attachments/{}.txt", folder.hash)).unwrap();
    assert_eq!(listing, "Projects holds 3 entries:\n- Sub/\n- a.md (1 bytes)\n- b.md (1 bytes)\n");
}

#[test]
fn a_damaged_or_missing_copy_is_never_sent_as_it_is_and_the_conversation_goes_on() {
    let host = FakeHost::new();
    let shot = png(10, 10, 50);
    host.put_binary("shot.png", &shot);
    let s = settings();
    let image = attach(&host, &s, "shot.png").unwrap();
    host.script([Reply::text("One."), Reply::text("Two."), Reply::text("Three.")]);
    let p = processor(&host);
    assert!(host.run(p.process(with_attachments("m1", "look", std::slice::from_ref(&image)))).success);
    // Something changes the copy on disk (a sync tool, a bad disk).
    host.put_file(&format!("attachments/{}.b64", image.hash), &b64(b"other bytes"));
    // This process checked the copy when it first sent it: it goes on sending those bytes.
    assert!(host.run(p.process(direct("m2", "again?"))).success);
    let images: Vec<Value> =
        all_blocks(&host.requests()[1].body).into_iter().filter(|b| b["type"] == "image").collect();
    assert_eq!(images.len(), 1);
    assert_eq!(images[0]["source"]["data"], b64(&shot));
    // After a restart the changed copy no longer matches its hash: a line says so instead.
    drop(p);
    let p = processor(&host);
    assert!(host.run(p.process(direct("m3", "and now?"))).success);
    let blocks = all_blocks(&host.requests()[2].body);
    assert!(blocks.iter().all(|b| b["type"] != "image"), "{blocks:#?}");
    assert!(!host.requests()[2].body.to_string().contains(&b64(b"other bytes")));
    assert!(blocks.iter().any(|b| b["text"]
        .as_str()
        .is_some_and(|t| t.contains("image shot.png attached here is no longer stored intact"))));
}

#[test]
fn only_typed_and_api_messages_carry_attachments_and_each_names_a_real_hash() {
    let host = FakeHost::new();
    host.put_note("a.md", "a");
    let s = settings();
    let note = attach(&host, &s, "a.md").unwrap();
    let p = processor(&host);
    let mut hub = from_hub("h1", "from the hub");
    hub["attachments"] = json!([note]);
    let refused = host.run(p.process(hub));
    assert!(!refused.success);
    assert!(refused.error.unwrap_or_default().contains("only messages typed in the chat"));

    let mut forged = note.clone();
    forged.hash = "../../conversations/index".into();
    let refused = host.run(p.process(with_attachments("m1", "hi", &[forged])));
    assert!(refused.error.unwrap_or_default().contains("no valid content hash"));
    assert!(host.requests().is_empty(), "nothing was sent");
}

#[test]
fn attachments_count_toward_the_context_budget_by_what_they_send() {
    let host = FakeHost::new();
    // About 7,500 tokens of note; its history line is a reference of a few hundred bytes.
    let text: String = (0..5_000).map(|n| format!("word{n} ")).collect();
    host.put_note("n.md", &text);
    let s = Settings { context_token_budget: 4_000, ..settings() };
    let note = attach(&host, &s, "n.md").unwrap();
    host.script([Reply::text("ok"), Reply::text("ok")]);
    let p = processor_with(&host, s);
    assert!(host.run(p.process(with_attachments("m1", "read this", &[note]))).success);
    assert!(host.run(p.process(direct("m2", "next"))).success);
    // The first turn no longer fits the budget, counted by the note it sends.
    let second = host.requests()[1].body.to_string();
    assert!(!second.contains("word4999"), "the note over the budget was sent again");
    assert!(second.contains("next"));
}

#[test]
fn clearing_the_history_removes_the_copies_it_sent_and_keeps_what_still_waits() {
    let host = FakeHost::new();
    host.put_note("Sent.md", "sent once");
    host.put_binary("shot.png", &png(64, 64, 500));
    host.put_note("Waiting.md", "its message waits to be tried again");
    host.put_note("Aside.md", "its message was set aside");
    host.put_note("Chip.md", "attached, not sent yet");
    let mut replies = vec![Reply::text("Seen.")];
    replies.extend((0..4).map(|_| Reply::error(529, "overloaded_error")));
    host.script(replies);
    let p = processor(&host);
    let sent = [host.run(p.attach_vault("Sent.md")).unwrap(), host.run(p.attach_vault("shot.png")).unwrap()];
    assert!(host.run(p.process(with_attachments("m1", "look", &sent))).success);
    // The model is overloaded: the message stays in the inbox to be tried again later.
    let waiting = host.run(p.attach_vault("Waiting.md")).unwrap();
    assert!(!host.run(p.process(with_attachments("m2", "and this", std::slice::from_ref(&waiting)))).success);
    assert!(host.paths_under("inbox").iter().any(|f| host.file(f).unwrap().contains(&waiting.hash)));
    // A message set aside in failed/ (as an earlier session left it; a retry sends it again).
    let aside = attach(&host, &settings(), "Aside.md").unwrap();
    let record = json!({"error": "overloaded", "entry": {"message": with_attachments("m0", "old", std::slice::from_ref(&aside))}});
    host.put_file("failed/m0.json", &record.to_string());
    let chip = host.run(p.attach_vault("Chip.md")).unwrap();
    assert_eq!(copies(&host).len(), 5);

    host.run(p.clear_history()).unwrap();
    let left = copies(&host);
    assert_eq!(left.len(), 3, "{left:?}");
    for kept in [&waiting, &aside, &chip] {
        assert!(left.iter().any(|c| c.contains(&kept.hash)), "{} kept", kept.path);
    }
    // The chip still goes with the next message, whole; nothing of the cleared conversation does.
    host.script([Reply::text("Now seen.")]);
    assert!(host.run(p.process(with_attachments("m3", "and the chip", std::slice::from_ref(&chip)))).success);
    let texts: Vec<String> = all_blocks(&host.requests().last().unwrap().body)
        .iter()
        .filter_map(|b| b["text"].as_str().map(str::to_owned))
        .collect();
    assert!(texts.iter().any(|t| t.contains("attached, not sent yet")), "{texts:?}");
    assert!(!texts.iter().any(|t| t.contains("sent once")));
}
