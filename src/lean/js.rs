//! The JS engine's own operations that `lean` uses in wasm instead of Rust's larger code
//! (DESIGN.md §6). With `src/wasm/`, the only place that calls into `js_sys`: kept here, under
//! the module that uses it, so that the core's modules never depend on the wasm binding.

/// The text lower-cased by the JS engine's `toLowerCase` (the full Unicode mapping, without
/// Rust's ~25 KB of case tables in the module).
pub(super) fn to_lower_case(text: &str) -> String {
    String::from(js_sys::JsString::from(text).to_lower_case())
}
