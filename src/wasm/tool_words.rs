//! The words of a tool call, for the chat view's replay of a history (a live call's words come
//! with its `tool_started` event): the core's, so the view never spells out tool names.

use wasm_bindgen::prelude::*;

use super::convert::from_js;

/// A tool call in the user's words, as its chip says it ("Delete Notes/Old.md", "get-sum
/// (everything)"): `tools::words`.
#[wasm_bindgen(js_name = toolWords)]
pub fn tool_words(name: &str, #[wasm_bindgen(unchecked_param_type = "unknown")] input: JsValue) -> String {
    crate::tools::words(name, &from_js(&input))
}
