//! A conversation's history file: any content loads (torn and corrupt lines skipped), and the
//! valid prefix it reports loads to the same turns with nothing to skip at its end.
#![no_main]
use libfuzzer_sys::fuzz_target;
use smarthole_agent::testing::internals::parse_log;

fuzz_target!(|text: &str| {
    let loaded = parse_log(text);
    assert!(loaded.valid_len <= text.len());
    assert!(text.is_char_boundary(loaded.valid_len));
    let again = parse_log(&text[..loaded.valid_len]);
    assert_eq!(again.turns.len(), loaded.turns.len(), "the valid prefix holds the same turns");
    assert_eq!(again.valid_len, loaded.valid_len);
});
