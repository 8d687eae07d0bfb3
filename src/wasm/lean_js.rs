//! The JS engine's own operations that `lean.rs` uses in wasm instead of Rust's larger code
//! (DESIGN.md §6): here so that the only calls into `js_sys` are under `src/wasm/`.

/// The text lower-cased by the JS engine's `toLowerCase` (the full Unicode mapping, without
/// Rust's ~25 KB of case tables in the module).
pub(crate) fn to_lower_case(text: &str) -> String {
    String::from(js_sys::JsString::from(text).to_lower_case())
}
