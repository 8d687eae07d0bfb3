//! Paths the model gives: any text is a vault path or a refusal; an accepted path is relative,
//! never leaves the vault, is not protected, and is already normal.
#![no_main]
use libfuzzer_sys::fuzz_target;
use smarthole_agent::testing::internals::{is_protected, normalize, protected_folders};

fuzz_target!(|input: &str| {
    let protected = protected_folders(".obsidian", &["Private".to_owned()]);
    if let Ok(path) = normalize(input, &protected) {
        assert!(!path.starts_with('/'), "{path:?}");
        assert!(path.split('/').all(|s| s != ".." && s != "."), "{path:?}");
        assert!(is_protected(&path, &protected).is_none(), "{path:?}");
        assert_eq!(normalize(&path, &protected).as_deref(), Ok(path.as_str()), "normal form is stable");
    }
});
