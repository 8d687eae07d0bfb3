//! Pointing the agent at what the user means (issue 23): a mentioned note, a folder, an image and
//! a PDF go with the message as their own blocks; the history keeps references, the bytes sent
//! are kept once under their hash, and later turns and a restart send exactly those bytes.
//! Bad input is refused with a clear reason and nothing is stored or sent.

mod common;

use base64::Engine;
use common::*;
use serde_json::{json, Value};
use smarthole_agent::testing::{BodyEnd, FakeHost, Reply};
use smarthole_agent::{attach_bytes, attach_vault, AttachError, Attachment, AttachmentKind, Settings};
use smarthole_agent::{ApiFormat, EntryKind, Host, VaultEntry};

/// A PNG whose chunks are whole (IHDR, an IDAT of `filler` bytes, IEND); its pixels are not a
/// real image (nothing here decodes them).
fn png(width: u32, height: u32, filler: usize) -> Vec<u8> {
    let mut b = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
    b.extend(width.to_be_bytes());
    b.extend(height.to_be_bytes());
    b.extend([8, 6, 0, 0, 0, 0, 0, 0, 0]);
    b.extend((filler as u32).to_be_bytes());
    b.extend(b"IDAT");
    b.extend((0..filler).map(|i| (i * 7 % 251) as u8));
    b.extend([0, 0, 0, 0]);
    b.extend(b"\0\0\0\0IEND\xae\x42\x60\x82");
    b
}

const PDF: &[u8] = b"%PDF-1.7\n1 0 obj << /Type /Pages /Count 1 >>\n2 0 obj << /Type /Page >>\n%%EOF";

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn attach(host: &FakeHost, settings: &Settings, path: &str) -> Result<Attachment, AttachError> {
    host.run(attach_vault(host, settings, path))
}

fn with_attachments(id: &str, text: &str, attachments: &[Attachment]) -> Value {
    let mut message = direct(id, text);
    message["attachments"] = json!(attachments);
    message
}

/// The newest user message of a request, as blocks.
fn last_user_blocks(body: &Value) -> Vec<Value> {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let user = messages.iter().rev().find(|m| m["role"] == "user").cloned().unwrap_or_default();
    user["content"].as_array().cloned().unwrap_or_default()
}

fn all_blocks(body: &Value) -> Vec<Value> {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .collect()
}

fn copies(host: &FakeHost) -> Vec<String> {
    host.paths_under("attachments")
}

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
fn a_server_that_cannot_take_pdfs_is_said_so_before_anything_is_sent() {
    let host = FakeHost::new();
    host.put_binary("paper.pdf", PDF);
    let s = Settings { api_format: ApiFormat::Openai, ..settings() };
    let err = attach(&host, &s, "paper.pdf").unwrap_err();
    assert_eq!(err, AttachError::FormatCannotTakePdf);
    assert!(err.to_string().contains("cannot take PDFs"));
    assert!(host.requests().is_empty());
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
fn the_picker_offers_names_before_middles_and_letters_in_order_and_nothing_it_cannot_attach() {
    let host = FakeHost::new();
    for path in
        ["Projects/Plan.md", "Archive/old plans/2019.md", "Daily/2026-11-24.md", "Planet.md", "pic.png", "a.zip"]
    {
        host.put_note(path, "x");
    }
    host.put_note(".obsidian/plan.json", "{}");
    let p = processor(&host);
    let find = |q: &str| -> Vec<String> { host.run(p.mentions(q, 10)).into_iter().map(|m| m.path).collect() };
    assert_eq!(find("plan")[..2], ["Planet.md", "Projects/Plan.md"]);
    assert!(find("plan").contains(&"Archive/old plans/2019.md".to_owned()));
    assert_eq!(find("d1124"), ["Daily/2026-11-24.md"], "letters in order");
    assert!(find("zip").is_empty(), "what cannot be attached is not offered");
    assert!(!find("json").iter().any(|p| p.starts_with(".obsidian")), "protected folders are not offered");
    assert!(find("proj").contains(&"Projects".to_owned()), "folders are offered");
    assert_eq!(find("").len(), 9, "an empty query lists what there is, newest first");

    // Typed a key at a time, each query is matched among the last one's matches: the same answers
    // as asked afresh, and going back (a deleted letter) asks the whole listing again.
    let typed: Vec<Vec<String>> = ["p", "pl", "pla", "plan", "pla"].iter().map(|q| find(q)).collect();
    p.vault_changed("nothing.md", "delete");
    for (q, answer) in ["p", "pl", "pla", "plan", "pla"].iter().zip(&typed) {
        assert_eq!(&find(q), answer, "{q}");
        p.vault_changed("nothing.md", "delete");
    }
    find("");

    // Listed once; a new name lists again, an edit does not.
    host.put_note("Plan B.md", "x");
    assert!(!find("plan b").contains(&"Plan B.md".to_owned()));
    p.vault_changed("Planet.md", "modify");
    assert!(!find("plan b").contains(&"Plan B.md".to_owned()));
    p.vault_changed("Plan B.md", "create");
    assert_eq!(find("plan b")[0], "Plan B.md");
}

#[test]
fn a_model_whose_connection_check_refused_an_image_is_said_so_when_an_image_is_attached() {
    let host = FakeHost::new();
    host.put_binary("shot.png", &png(10, 10, 50));
    host.put_note("a.md", "text goes anywhere");
    let p = processor(&host);
    let probe = Reply::tools("", &[("t1", "connection_probe", json!({"word": "ping"}))]);
    host.script([
        Reply::error(404, "not_found_error"),
        Reply::text("OK"),
        probe,
        Reply::error(400, "invalid_request_error"),
    ]);
    let report = host.run(p.check_connection());
    let images = report.lines.iter().find(|l| l.step == "images").expect("an images line");
    assert!(!images.ok, "{report:?}");
    let refused = host.run(p.attach_vault("shot.png")).unwrap_err();
    assert!(refused.to_string().contains("test-model at http://model.test did not take an image"), "{refused}");
    let pasted = host.run(p.attach_bytes("Pasted image.png", &png(10, 10, 50))).unwrap_err();
    assert_eq!(pasted, refused);
    assert!(host.run(p.attach_vault("a.md")).is_ok(), "notes still go");

    // A check that passes clears it.
    let probe = Reply::tools("", &[("t1", "connection_probe", json!({"word": "ping"}))]);
    host.script([Reply::error(404, "not_found_error"), Reply::text("OK"), probe, Reply::text("Red")]);
    let report = host.run(p.check_connection());
    assert!(report.lines.iter().all(|l| l.ok), "{report:?}");
    assert!(host.run(p.attach_vault("shot.png")).is_ok());
}

#[test]
fn a_model_that_refuses_an_image_is_quoted_and_the_conversation_goes_on_without_it() {
    // No connection check was made: the model's own refusal is what the user learns.
    let host = FakeHost::new();
    host.put_binary("shot.png", &png(10, 10, 50));
    let image = attach(&host, &settings(), "shot.png").unwrap();
    let refusal = "image input is not supported - hint: if this is unexpected, you may need to provide the mmproj";
    host.script([Reply::Raw {
        status: 400,
        chunks: vec![json!({"error": {"code": 400, "message": refusal, "type": "invalid_request_error"}}).to_string()],
        end: BodyEnd::Close,
    }]);
    host.script([Reply::text("Fine.")]);
    let p = processor(&host);
    let first = host.run(p.process(with_attachments("m1", "look", &[image])));
    assert_eq!(first.error_code.as_deref(), Some("invalid_request"));
    assert_eq!(
        first.error.as_deref(),
        Some(format!("The AI service refused the request, which carried shot.png: it may be damaged or of a kind this model does not take. The server said: {refusal}").as_str())
    );
    // The refused message is not sent again with the next one: the conversation is not stuck.
    let second = host.run(p.process(direct("m2", "just text")));
    assert!(second.success, "{second:?}");
    let requests = host.requests();
    assert_eq!(requests.len(), 2);
    assert!(all_blocks(&requests[1].body).iter().all(|b| b["type"] != "image"));
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

#[test]
fn a_large_image_is_scaled_down_by_the_host_where_it_can_and_refused_with_the_reason_where_it_cannot() {
    let host = FakeHost::new();
    let panorama = png(9000, 3000, 6 * 1024 * 1024);
    host.put_binary("Photos/panorama.png", &panorama);
    host.put_binary("Photos/small.png", &png(800, 600, 1000));
    host.put_binary("Photos/huge.png", &png(4000, 3000, 21 * 1024 * 1024));
    let s = settings();
    // A host that cannot scale (the Node host): the original is checked, and refused.
    let refused = attach(&host, &s, "Photos/panorama.png").unwrap_err();
    assert!(matches!(refused, AttachError::TooLarge { .. }), "{refused}");
    assert_eq!(host.scale_requests(), [("image/png".to_owned(), 1568, 5 * 1024 * 1024)]);
    // One that can: the scaled picture is what is copied and sent, under the vault path.
    let scaled = png(1568, 523, 2_000);
    host.scale_images_to(&scaled);
    let image = attach(&host, &s, "Photos/panorama.png").unwrap();
    assert_eq!(
        (image.path.as_str(), image.pasted, image.pixels, image.bytes),
        ("Photos/panorama.png", false, Some((1568, 523)), scaled.len() as u64)
    );
    // Pasted bytes go the same way.
    let pasted = host.run(attach_bytes(&host, &s, "Pasted image.png", &panorama)).unwrap();
    assert_eq!((pasted.pasted, pasted.pixels, pasted.hash.as_str()), (true, Some((1568, 523)), image.hash.as_str()));
    // A small image is never sent to be scaled; one past what is read at all is refused before
    // it is read (so never sent to be scaled either); nor is one claiming more pixels than is safe
    // to decode (a few compressed megabytes can claim billions).
    let asked = host.scale_requests().len();
    attach(&host, &s, "Photos/small.png").unwrap();
    host.put_binary("Photos/bomb.png", &png(40_000, 40_000, 1_000));
    assert!(matches!(attach(&host, &s, "Photos/bomb.png"), Err(AttachError::TooManyPixels { .. })));
    assert!(matches!(attach(&host, &s, "Photos/huge.png"), Err(AttachError::TooLarge { .. })));
    assert_eq!(host.scale_requests().len(), asked);

    host.script([Reply::text("A wide view.")]);
    let p = processor(&host);
    assert!(host.run(p.process(with_attachments("m1", "what is this?", &[image]))).success);
    let blocks = last_user_blocks(&host.requests()[0].body);
    let sent: Vec<&Value> = blocks.iter().filter(|b| b["type"] == "image").collect();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0]["source"]["data"], b64(&scaled), "the scaled picture, not the original");
}

#[test]
fn the_picker_never_keeps_a_listing_the_vault_changed_under_nor_mixes_two_listings() {
    let host = FakeHost::new();
    for path in ["Alpha.md", "Alpine.md", "Apple.md", "Apricot.md"] {
        host.put_note(path, "x");
    }
    host.set_list_arrives_ms(100);
    let p = processor(&host);
    let paths = |found: Vec<smarthole_agent::Mention>| -> Vec<String> { found.into_iter().map(|m| m.path).collect() };
    // A note deleted while the first keystroke's listing is on its way: that listing answers the
    // keystroke, but the next one lists again.
    host.run(async {
        let typed = p.mentions("a", 10);
        let deleted = async {
            host.sleep(50).await;
            host.remove_note("Apple.md");
            p.vault_changed("Apple.md", "delete");
        };
        futures::join!(typed, deleted);
    });
    assert!(!paths(host.run(p.mentions("ap", 10))).contains(&"Apple.md".to_owned()), "listed again");
    // Two keystrokes listing at once, a note deleted between their listings: each answer comes
    // from one listing, never indices of one applied to the other.
    p.vault_changed("Alpha.md", "delete");
    host.remove_note("Alpha.md");
    let (first, second) = host.run(async {
        let first = p.mentions("a", 10);
        let second = async {
            host.sleep(10).await;
            host.remove_note("Alpine.md");
            p.mentions("ap", 10).await
        };
        futures::join!(first, second)
    });
    assert_eq!(paths(first), ["Alpine.md", "Apricot.md"]);
    assert_eq!(paths(second), ["Apricot.md"], "the newer listing, without Alpine.md");
}
