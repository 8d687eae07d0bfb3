//! What the settings tab asks of the core: its defaults, provider and embedding presets (and the
//! meaning index ceiling's reach), the fields of a settings document it would ignore, the
//! connection check, the usage totals, clearing the history.

use js_sys::Promise;
use wasm_bindgen::prelude::*;

use super::convert::{from_js, js_error, promise, to_js};
use super::processor::WasmMessageProcessor;
use crate::Settings;

#[wasm_bindgen(js_class = MessageProcessor)]
impl WasmMessageProcessor {
    /// Checks the model server line by line, for "Check connection" and `--check`.
    #[wasm_bindgen(js_name = checkConnection, unchecked_return_type = "Promise<ConnectionCheck>")]
    pub fn check_connection(&self) -> Promise {
        let core = self.core.clone();
        promise(async move { Ok::<_, String>(core.check_connection().await) })
    }

    /// The day's and the month's token use and estimated cost, for the settings.
    #[wasm_bindgen(js_name = usageTotals, unchecked_return_type = "Promise<UsageTotals>")]
    pub fn usage_totals(&self) -> Promise {
        let core = self.core.clone();
        promise(async move { core.usage_totals().await })
    }

    /// Deletes every conversation; resolves with how many.
    #[wasm_bindgen(js_name = clearHistory, unchecked_return_type = "Promise<number>")]
    pub fn clear_history(&self) -> Promise {
        let core = self.core.clone();
        promise(async move { core.clear_history().await })
    }
}

/// The settings the core uses when none are given (the settings tab shows them).
#[wasm_bindgen(js_name = defaultSettings, unchecked_return_type = "Required<CoreSettings>")]
pub fn default_settings() -> JsValue {
    to_js(&Settings::default())
}

/// The provider presets the settings offer (base URL, format, auth style each).
#[wasm_bindgen(js_name = providerPresets, unchecked_return_type = "ProviderPreset[]")]
pub fn provider_presets() -> JsValue {
    to_js(&crate::provider_presets())
}

/// The embedding presets "Search by meaning" offers (base URL, format, model, whether a key is
/// wanted, and what each is good at and weak on).
#[wasm_bindgen(js_name = embeddingPresets, unchecked_return_type = "EmbeddingPreset[]")]
pub fn embedding_presets() -> JsValue {
    to_js(&crate::embedding_presets())
}

/// What a meaning index ceiling of `mb` megabytes holds at `dims` dimensions, in passages, in
/// notes of a typical length, and as the sentence the settings show.
#[wasm_bindgen(js_name = meaningCeilingCovers, unchecked_return_type = "CeilingReach")]
pub fn meaning_ceiling_covers(mb: u32, dims: u32) -> JsValue {
    to_js(&crate::meaning_ceiling_covers(mb, dims))
}

/// The agents the settings offer (program, install hint, login command, desktop only each).
#[wasm_bindgen(js_name = agentPresets, unchecked_return_type = "AgentPreset[]")]
pub fn agent_presets() -> JsValue {
    to_js(&crate::agent_presets())
}

/// The fields of a settings document its reader would ignore (misspelled or unknown), each with
/// where it is, the name probably meant and a sentence saying so: the headless command refuses
/// `--api-config`/`--mcp-config` files with any; the plugin keeps them in `data.json` and says
/// they are not used. `document`: `settings`, `pluginData`, `apiConfig` or `mcpConfig`;
/// `source` names the file in the sentence.
#[wasm_bindgen(
    js_name = unknownSettingsFields,
    unchecked_return_type = "{ at: string; field: string; suggestion?: string; message: string }[]"
)]
pub fn unknown_settings_fields(
    #[wasm_bindgen(unchecked_param_type = "unknown")] value: JsValue,
    #[wasm_bindgen(unchecked_param_type = "\"settings\" | \"pluginData\" | \"apiConfig\" | \"mcpConfig\"")]
    document: &str,
    source: &str,
) -> Result<JsValue, JsValue> {
    let document = crate::SettingsDocument::from_name(document)
        .ok_or_else(|| js_error(format!("unknown settings document {document:?}")))?;
    let found: Vec<serde_json::Value> = crate::unknown_fields(&from_js(&value), document)
        .into_iter()
        .map(|u| {
            let message = u.describe(source);
            let mut v = serde_json::json!({"at": u.at, "field": u.field, "message": message});
            if let Some(s) = u.suggestion {
                v["suggestion"] = serde_json::Value::String(s);
            }
            v
        })
        .collect();
    Ok(to_js(&found))
}
