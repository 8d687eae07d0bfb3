//! Values crossing the JS boundary as JSON, both ways. A leaf of `wasm/`: the host, the callbacks
//! and the exported API all convert through it.

use serde::Serialize;
use wasm_bindgen::prelude::*;

/// A value crossing to JS: serialised once with serde_json and parsed by the JS engine. Cheaper
/// in code size and time than walking the value through a second serializer.
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> JsValue {
    serde_json::to_string(value).ok().and_then(|json| js_sys::JSON::parse(&json).ok()).unwrap_or(JsValue::NULL)
}

/// A value crossing from JS, as JSON (`undefined`, functions and cycles become `Null`).
pub fn from_js(value: &JsValue) -> serde_json::Value {
    js_sys::JSON::stringify(value)
        .ok()
        .and_then(|s| s.as_string())
        .and_then(|s| serde_json::from_str(&s).ok())
        .unwrap_or(serde_json::Value::Null)
}
