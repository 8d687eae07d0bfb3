use super::*;

#[test]
fn a_note_is_cut_only_when_long_and_one_enormous_line_is_cut_inside() {
    let short = "a\nb\n";
    assert_eq!(cut_note(short), (short.to_owned(), None));
    let exactly: String = "x".repeat(MAX_NOTE_CHARS);
    assert_eq!(cut_note(&exactly).1, None);
    let one_line: String = "é".repeat(MAX_NOTE_CHARS + 10);
    let (text, cut) = cut_note(&one_line);
    assert_eq!(cut.as_deref(), Some("cut at line 1 of 1"));
    assert!(text.starts_with(&"é".repeat(MAX_NOTE_CHARS)));
    assert!(text.ends_with("Read the rest with read_file.]\n"));
}

#[test]
fn hashes_are_only_what_sha256_makes() {
    let hash = sha256_hex(b"abc");
    assert!(is_content_hash(&hash));
    assert!(!is_content_hash(&hash.to_uppercase()));
    assert!(!is_content_hash(&hash[1..]));
    assert!(!is_content_hash(&format!("../{}", &hash[3..])));
}

#[test]
fn token_estimates_follow_what_is_sent() {
    let base = Attachment {
        kind: AttachmentKind::Image,
        path: "a.png".into(),
        hash: String::new(),
        media_type: "image/png".into(),
        bytes: 4_000_000,
        pasted: false,
        cut: None,
        pixels: Some((200, 150)),
        pages: None,
    };
    assert_eq!(base.estimated_tokens(), 64, "a small image costs little, whatever its bytes");
    assert_eq!(Attachment { pixels: Some((4000, 3000)), ..base.clone() }.estimated_tokens(), 1_600);
    let pdf = Attachment { kind: AttachmentKind::Pdf, pages: Some(3), ..base.clone() };
    assert_eq!(pdf.estimated_tokens(), 6_000);
    let note = Attachment { kind: AttachmentKind::Note, bytes: 40_000, ..base };
    assert_eq!(note.estimated_tokens(), 10_016);
}

#[test]
fn a_selection_is_quoted_under_its_note_and_lines() {
    assert_eq!(
        selection_quote("Projects/Plan.md", 3, 5, "first\n\nthird"),
        "From [[Projects/Plan]], lines 3-5:\n> first\n>\n> third\n\n"
    );
    assert_eq!(selection_quote("a.md", 7, 7, "one"), "From [[a]], line 7:\n> one\n\n");
}

#[test]
fn a_paste_too_large_for_any_attachment_is_refused_by_its_size() {
    assert!(check_paste_size("shot.png", MAX_PDF_BYTES).is_ok());
    let err = check_paste_size("huge.mov", 50 * 1024 * 1024).unwrap_err().to_string();
    assert_eq!(err, "huge.mov is 50.0 MB; pasted files can be attached up to 20.0 MB");
}
