//! The persisted form's tests: round trips through many pieces, and damage of every kind found.

use super::*;

/// An index of `notes` notes, each with 80 terms of its own, some removed (their slots and
/// dead postings are kept as they are).
fn big(notes: usize) -> Index {
    let mut index = Index::default();
    for n in 0..notes {
        let words: Vec<String> = (0..80).map(|w| format!("w{}", n * 80 + w)).collect();
        index.upsert(&format!("n{n}.md"), 10 + n as u64, n as u64, Some(&format!("{} shared", words.join(" "))));
    }
    index.upsert("gone.md", 1, 1, Some("shared"));
    index.remove("gone.md");
    index.upsert("unreadable.md", 5, 2, None);
    index
}

fn same(a: &Index, b: &Index) {
    assert_eq!(a.len(), b.len());
    assert_eq!(a.docs, b.docs);
    assert_eq!(a.dead, b.dead);
    assert_eq!(a.terms.iter().collect::<Vec<_>>(), b.terms.iter().collect::<Vec<_>>());
    for (p, q) in a.postings.iter().zip(&b.postings) {
        assert_eq!((&p.bytes, p.last, p.live), (&q.bytes, q.last, q.live));
    }
    assert_eq!(a.counts("shared"), b.counts("shared"));
}

#[test]
fn an_index_comes_back_the_same_from_many_pieces_each_within_its_size() {
    let index = big(4000);
    let files = index.to_files();
    assert!(files.len() > 3, "{} files", files.len());
    for (path, bytes) in &files[..files.len() - 1] {
        assert!(path.starts_with("search-index/") && path.ends_with(".bin"), "{path}");
        assert!(bytes.len() <= PIECE_BYTES + 1024, "{path}: {}", bytes.len());
    }
    let back = Index::from_files(&files).expect("reads back");
    same(&index, &back);
    assert_eq!(back.doc("n17.md").map(|(id, d)| (id, d.size)), Some((17, 27)));
    assert!(back.doc("unreadable.md").is_some_and(|(_, d)| d.unreadable));
    assert!(back.doc("gone.md").is_none());
    // The same files again, written from what was read.
    assert_eq!(back.to_files(), files);
    // An empty index too.
    let empty = Index::default();
    assert_eq!(Index::from_files(&empty.to_files()).map(|i| i.len()), Some(0));
}

/// The persisted form's files, (path, bytes).
type Files = Vec<(String, Vec<u8>)>;

/// The manifest's text in `files`, changed by `f`.
fn edit_manifest(files: &mut Files, f: impl FnOnce(String) -> String) {
    let m = files.len() - 1;
    let text = String::from_utf8(std::mem::take(&mut files[m].1)).expect("text");
    files[m].1 = f(text).into_bytes();
}

#[test]
fn a_changed_byte_a_cut_piece_a_missing_piece_or_a_changed_manifest_is_damage() {
    let files = big(4000).to_files();
    let damaged = |f: &dyn Fn(&mut Files)| {
        let mut files = files.clone();
        f(&mut files);
        Index::from_files(&files).map(|i| i.len())
    };
    assert_eq!(damaged(&|_| {}), Some(4001));
    // A byte changed in a piece (its checksum no longer fits), anywhere.
    for at in [0, 100, PIECE_BYTES / 2] {
        assert_eq!(damaged(&|f| f[1].1[at] ^= 1), None, "a byte changed at {at}");
    }
    assert_eq!(damaged(&|f| f[0].1.push(0)), None, "a byte added");
    // A piece cut short, or cut and its manifest line changed to fit.
    assert_eq!(damaged(&|f| f[1].1.truncate(1000)), None);
    assert_eq!(
        damaged(&|f| {
            let old = f[2].1.len();
            f[2].1.truncate(800);
            edit_manifest(f, |m| m.replace(&format!(" {old} "), " 800 "));
        }),
        None
    );
    // A piece missing, or the manifest cut.
    assert_eq!(damaged(&|f| drop(f.remove(0))), None);
    assert_eq!(
        damaged(&|f| {
            let m = f.len() - 1;
            let cut = f[m].1.len() - 2;
            f[m].1.truncate(cut);
        }),
        None
    );
    // A manifest whose counts were changed (its own checksum no longer fits).
    assert_eq!(damaged(&|f| edit_manifest(f, |m| m.replacen(" 4001 ", " 4000 ", 1))), None);
}

#[test]
fn the_one_text_form_of_before_and_other_files_read_as_damaged() {
    let before =
        "smarthole-search-index-1 1 0123456789abcdef0123456789abcdef b64v2\nmilk\n\na.md\t4\t1\t0\t1\t0\tAA\tAQA\n";
    assert_eq!(Manifest::read(before), Err(Damaged));
    // The base64 pieces of before: a manifest of format 2, whole and in order.
    let mut base64_form = String::from("smarthole-search-index-2 0 0 0\nsearch-index/00-0.txt 4 0000000000000001\n");
    base64_form.push_str(&format!("end {:016x}\n", checksum(base64_form.as_bytes())));
    assert_eq!(Manifest::read(&base64_form), Err(Damaged));
    for text in ["", "\n", "end 0\n", "smarthole-search-index-2 0 0 0\n"] {
        assert_eq!(Manifest::read(text), Err(Damaged), "{text:?}");
    }
    // A manifest in order whose counts claim more than its pieces hold.
    let claims = Manifest { notes: 5, slots: 5, terms: 0, pieces: Vec::new() }.text();
    assert_eq!(Manifest::read(&claims), Err(Damaged));
    let fine = Manifest { notes: 0, slots: 0, terms: 0, pieces: Vec::new() }.text();
    assert!(Manifest::read(&fine).is_ok());
}

#[test]
fn records_that_do_not_read_back_are_damage_not_a_panic() {
    let manifest = |bytes: &[u8]| {
        let piece = PieceRef { path: "search-index/x-0.bin".into(), len: bytes.len(), sum: checksum(bytes) };
        let m = Manifest { notes: 1, slots: 1, terms: 1, pieces: vec![piece] };
        let files =
            vec![("search-index/x-0.bin".to_owned(), bytes.to_vec()), (MANIFEST.to_owned(), m.text().into_bytes())];
        Index::from_files(&files).map(|i| i.len())
    };
    // term "ab", postings [0 1], last 0, live 1; a live note a.md.
    let good: Vec<u8> =
        [&[2, b'a', b'b', 2, 0, 1, 0, 1][..], &[1, 4, b'a', b'.', b'm', b'd', 4, 1, 1, 0, 1, 0, 1, 1][..]].concat();
    assert_eq!(manifest(&good), Some(1));
    let mut not_a_term = good.clone();
    not_a_term[1] = b' ';
    assert_eq!(manifest(&not_a_term), None);
    let mut last_past_the_notes = good.clone();
    last_past_the_notes[6] = 9;
    assert_eq!(manifest(&last_past_the_notes), None);
    let mut bad_flag = good.clone();
    bad_flag[8] = 5;
    assert_eq!(manifest(&bad_flag), None);
    assert_eq!(manifest(&good[..good.len() - 1]), None, "a record cut short");
    assert_eq!(manifest(&[&good[..], &[0]].concat()), None, "a byte past the last record");
    let mut long_number = good.clone();
    long_number.splice(15..16, [0xff; 11]);
    assert_eq!(manifest(&long_number), None, "a number of more than 64 bits");
}

#[test]
fn the_checksum_sees_a_changed_swapped_or_missing_byte_anywhere() {
    let text: Vec<u8> = (0..1000u32).map(|i| (i * 7 % 251) as u8).collect();
    let sum = checksum(&text);
    for at in [0, 7, 8, 31, 32, 500, 990, 999] {
        let mut changed = text.clone();
        changed[at] ^= 1;
        assert_ne!(checksum(&changed), sum, "a byte changed at {at}");
        let mut cut = text.clone();
        cut.remove(at);
        assert_ne!(checksum(&cut), sum, "a byte gone at {at}");
    }
    let mut swapped = text.clone();
    swapped.swap(0, 8);
    assert_ne!(checksum(&swapped), sum, "two words' bytes swapped");
    let mut lanes = text.clone();
    lanes[..16].rotate_left(8);
    assert_ne!(checksum(&lanes), sum, "two lanes' words swapped");
    assert_ne!(checksum(&[0; 8]), checksum(&[0; 9]), "zeros of another length");
}
