//! Errors and values coming back from host calls, made into the core's: a JS error's message, an
//! `AbortError` as `Aborted`, an MCP error's `kind`, bytes and JSON text out of JS values; and a
//! trap of this instance inside a host call thrown on, never taken for an I/O error.

use js_sys::{Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::host_object::JsMcpCall;
use crate::{HostError, McpError};

/// The message of a JS error value.
pub(super) fn js_message(value: &JsValue) -> String {
    if let Some(s) = value.as_string() {
        return s;
    }
    Reflect::get(value, &JsValue::from_str("message"))
        .ok()
        .and_then(|m| m.as_string())
        .or_else(|| js_sys::JSON::stringify(value).ok().and_then(|s| s.as_string()))
        .unwrap_or_else(|| "an unknown error".to_owned())
}

pub(super) fn is_abort(value: &JsValue) -> bool {
    Reflect::get(value, &JsValue::from_str("name")).ok().and_then(|n| n.as_string()).as_deref() == Some("AbortError")
}

/// A host call that failed because this instance trapped inside it (the host called back into
/// the core, e.g. `vault_process`'s edit, and the core trapped there) is no I/O error: the
/// instance cannot be trusted any more. The error is thrown on, so it surfaces where every
/// other trap does (the runtime rebuilds the core; the headless process stops) instead of the
/// broken instance going on serving.
pub(super) fn rethrow_trap(value: &JsValue) {
    if value.is_instance_of::<js_sys::WebAssembly::RuntimeError>() {
        wasm_bindgen::throw_val(value.clone());
    }
}

pub(super) fn io_error(value: JsValue) -> HostError {
    rethrow_trap(&value);
    HostError::Io(js_message(&value))
}

pub(super) fn net_error(value: JsValue) -> HostError {
    rethrow_trap(&value);
    if is_abort(&value) {
        HostError::Aborted
    } else {
        HostError::Network(js_message(&value))
    }
}

pub(super) async fn settle(promise: Result<Promise, JsValue>) -> Result<JsValue, HostError> {
    JsFuture::from(promise.map_err(io_error)?).await.map_err(io_error)
}

/// A `Uint8Array` the host answered, copied out of JS; `what` says what it was not.
pub(super) fn bytes_of(value: JsValue, what: impl FnOnce() -> String) -> Result<Vec<u8>, HostError> {
    value.dyn_into::<js_sys::Uint8Array>().map(|bytes| bytes.to_vec()).map_err(|_| HostError::Io(what()))
}

/// A JS value as JSON text (parsed by serde_json straight into the type wanted).
pub(super) fn json_text(value: &JsValue) -> Result<String, HostError> {
    js_sys::JSON::stringify(value).map_err(io_error).map(|s| string_of(&s).unwrap_or_default())
}

/// Strings at least this long (UTF-16 units) cross as UTF-8 bytes: encoded by the engine's
/// `TextEncoder`, then copied in one go. wasm-bindgen's own copy walks an ASCII string a
/// character at a time in JS (about 170 MB/s: 1.1 s of a 100,000-note index's restart, and the
/// vault's listing and every note read went the same way).
const LONG_STRING: u32 = 64 * 1024;

/// A JS string's text (`None` for any other value), a long one through its UTF-8 bytes.
pub(super) fn string_of(value: &JsValue) -> Option<String> {
    let long = value.dyn_ref::<js_sys::JsString>().filter(|s| s.length() >= LONG_STRING);
    if let Some(text) = long.and_then(utf8).and_then(|bytes| String::from_utf8(bytes).ok()) {
        return Some(text);
    }
    value.as_string()
}

/// A string's UTF-8 bytes from the engine's `TextEncoder` (`None` where there is none).
fn utf8(s: &js_sys::JsString) -> Option<Vec<u8>> {
    let class: js_sys::Function =
        Reflect::get(&js_sys::global(), &JsValue::from_str("TextEncoder")).ok()?.dyn_into().ok()?;
    let encoder = Reflect::construct(&class, &js_sys::Array::new()).ok()?;
    let encode: js_sys::Function = Reflect::get(&encoder, &JsValue::from_str("encode")).ok()?.dyn_into().ok()?;
    Some(encode.call1(&encoder, s).ok()?.dyn_into::<js_sys::Uint8Array>().ok()?.to_vec())
}

/// Aborts an MCP call that is dropped before it settles.
pub(super) struct AbortOnDrop(pub(super) Option<JsMcpCall>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if let Some(call) = self.0.take() {
            call.abort_call();
        }
    }
}

/// An MCP error from the shim: its `kind` (`not_connected`, `unauthorized`) says which.
pub(super) fn mcp_error(server: &str, value: &JsValue) -> McpError {
    rethrow_trap(value);
    let kind = Reflect::get(value, &JsValue::from_str("kind")).ok().and_then(|k| k.as_string());
    let message = js_message(value);
    match kind.as_deref() {
        Some("not_connected") => McpError::NotConnected(server.to_owned()),
        Some("unauthorized") => McpError::Unauthorized { server: server.to_owned(), message },
        _ => McpError::Failed(message),
    }
}
