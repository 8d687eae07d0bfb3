//! Rules of the core the hosts apply, as free functions, so that each is written once in the
//! core: the folders no operation may reach (the hosts' own defence-in-depth checks use this
//! list), which fields of the plugin's `data.json` are used, the price table's text, how long
//! integrations still connecting are waited for, the agent API's answers when the core cannot
//! answer, the tools that ask before they act.

use wasm_bindgen::prelude::*;

use super::convert::{from_js, from_js_as, js_error, to_js};

/// The folders protected whatever the settings, lower-cased (`.obsidian`, `.smarthole`, `.git`,
/// `.trash` and the vault's configuration folder `configFolder`): what a host's own check of a
/// real location refuses.
#[wasm_bindgen(js_name = alwaysProtectedFolders, unchecked_return_type = "string[]")]
pub fn always_protected_folders(config_folder: &str) -> JsValue {
    to_js(&crate::vault::path::always_protected(config_folder))
}

/// The plugin's `data.json` split: the fields it runs with (`used`), those it keeps in the file
/// but does not use (`aside`: unknown names, values of the wrong type), and a sentence for each
/// (`problems`). Keys and tokens found there are in neither: they live in secret storage.
#[wasm_bindgen(
    js_name = splitPluginData,
    unchecked_return_type = "{ used: Record<string, unknown>; aside: Record<string, unknown>; problems: string[] }"
)]
pub fn split_plugin_data(#[wasm_bindgen(unchecked_param_type = "unknown")] data: JsValue) -> JsValue {
    to_js(&crate::split_plugin_data(&from_js(&data)))
}

/// The price table as the settings show it, one model per line (`claude-sonnet-4-5 3 15 200000`).
#[wasm_bindgen(js_name = priceTableText)]
pub fn price_table_text(
    #[wasm_bindgen(unchecked_param_type = "ModelPrice[]")] prices: JsValue,
) -> Result<String, JsValue> {
    let prices: Vec<crate::ModelPrice> =
        from_js_as(&prices).map_err(|e| js_error(format!("not a price table: {e}")))?;
    Ok(crate::price_table_text(&prices))
}

/// The price table read back from its text; throws with the line that does not read and why.
#[wasm_bindgen(js_name = parsePriceTable, unchecked_return_type = "ModelPrice[]")]
pub fn parse_price_table(text: &str) -> Result<JsValue, JsValue> {
    crate::parse_price_table(text).map(|prices| to_js(&prices)).map_err(js_error)
}

/// How long a turn waits for integrations still connecting (the settings' list waits as long).
#[wasm_bindgen(js_name = mcpConnectWaitMs)]
pub fn mcp_connect_wait_ms() -> f64 {
    crate::mcp::CONNECT_WAIT_MS as f64
}

/// The agent API's answers for when the core cannot answer — `notReady` (503, while it starts or
/// is rebuilt) and `internalError` (500, answering failed) — taken once the core is loaded, sent
/// as they are by the host's server.
#[wasm_bindgen(js_name = agentApiFallbacks, unchecked_return_type = "{ notReady: ApiResponse; internalError: ApiResponse }")]
pub fn agent_api_fallbacks() -> JsValue {
    to_js(&crate::api_fallbacks())
}

/// The tools that ask the user before they act, with the settings' name and description of
/// letting each act without asking (`autoApproveTools`).
#[wasm_bindgen(js_name = approvalTools, unchecked_return_type = "{ tool: string; name: string; description: string }[]")]
pub fn approval_tools() -> JsValue {
    to_js(&crate::settings::APPROVAL_TOOLS)
}
