//! What crosses the JS boundary and how: values as JSON both ways, errors as JS `Error`s, async
//! results as promises. A leaf of `wasm/`: the host, the callbacks and the exported API all
//! convert through it.

use futures::future::LocalBoxFuture;
use js_sys::Promise;
use serde::de::DeserializeOwned;
use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

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

/// A value crossing from JS read as a typed one, through its JSON text (`undefined` reads as
/// `null`): the same reader as every other JSON the core takes, not a second one over a
/// `serde_json::Value` (bundle size, `lean.rs`).
pub fn from_js_as<T: DeserializeOwned>(value: &JsValue) -> Result<T, serde_json::Error> {
    let text = js_sys::JSON::stringify(value).ok().and_then(|s| s.as_string());
    serde_json::from_str(text.as_deref().unwrap_or("null"))
}

/// A JS `Error` with the message, for a call that throws or a promise that rejects.
pub fn js_error(message: impl std::fmt::Display) -> JsValue {
    js_sys::Error::new(&message.to_string()).into()
}

/// A promise of the core's result, its value crossing as JSON; an error rejects with its message.
/// The future is boxed so the promise glue exists once in the module, not once per export.
pub fn promise<T, E>(work: impl std::future::Future<Output = Result<T, E>> + 'static) -> Promise
where
    T: Serialize,
    E: std::fmt::Display,
{
    let boxed: LocalBoxFuture<'static, Result<JsValue, JsValue>> =
        Box::pin(async move { work.await.map(|value| to_js(&value)).map_err(js_error) });
    future_to_promise(boxed)
}
