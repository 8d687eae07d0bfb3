//! What this device lets the plugin offer (`platform.rs`): the host reports its facts, the core
//! answers with the features available and why the others are not.

use wasm_bindgen::prelude::*;

use super::convert::{from_js_as, to_js};
use super::processor::WasmMessageProcessor;
use crate::PlatformFacts;

/// Facts crossing from JS; a missing or wrong field counts as its default.
fn facts(value: &JsValue) -> PlatformFacts {
    from_js_as(value).unwrap_or_default()
}

#[wasm_bindgen(js_class = MessageProcessor)]
impl WasmMessageProcessor {
    /// What the host can do, reported before `initialize`: the hub stays off where the device
    /// has none; the answer is the features available, for the settings and commands to draw.
    #[wasm_bindgen(js_name = reportPlatform, unchecked_return_type = "PlatformFeatures")]
    pub fn report_platform(&self, #[wasm_bindgen(unchecked_param_type = "PlatformFacts")] value: JsValue) -> JsValue {
        to_js(&self.core.report_platform(facts(&value)))
    }
}

/// The features a device with these facts has (the settings draw it before the core starts).
#[wasm_bindgen(js_name = platformFeatures, unchecked_return_type = "PlatformFeatures")]
pub fn platform_features(#[wasm_bindgen(unchecked_param_type = "PlatformFacts")] value: JsValue) -> JsValue {
    to_js(&crate::platform_features(facts(&value)))
}
