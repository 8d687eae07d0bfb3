//! The vault's rules the hosts apply as well, taken from the core so that each is written once:
//! the folders no operation may reach (the hosts' own defence-in-depth checks use this list).

use wasm_bindgen::prelude::*;

use super::convert::to_js;

/// The folders protected whatever the settings, lower-cased (`.obsidian`, `.smarthole`, `.git`,
/// `.trash` and the vault's configuration folder `configFolder`): what a host's own check of a
/// real location refuses.
#[wasm_bindgen(js_name = alwaysProtectedFolders, unchecked_return_type = "string[]")]
pub fn always_protected_folders(config_folder: &str) -> JsValue {
    to_js(&crate::vault::path::always_protected(config_folder))
}
