//! What the host reports from outside and the core's answers, through the exported
//! `MessageProcessor`: the hub's socket events and status, vault changes for the search index
//! (its progress arrives as `search_index` events), agent API requests, the ports to listen on,
//! its config document and tokens.

use js_sys::Promise;
use wasm_bindgen::prelude::*;

use super::convert::{from_js, promise, to_js};
use super::processor::WasmMessageProcessor;

#[wasm_bindgen(js_class = MessageProcessor)]
impl WasmMessageProcessor {
    /// Hub socket `socket` opened.
    #[wasm_bindgen(js_name = hubOpened)]
    pub fn hub_opened(&self, socket: u32) {
        self.core.hub_opened(u64::from(socket));
    }

    /// A text frame arrived on hub socket `socket`.
    #[wasm_bindgen(js_name = hubFrame)]
    pub fn hub_frame(&self, socket: u32, text: &str) {
        self.core.hub_frame(u64::from(socket), text);
    }

    /// Hub socket `socket` closed, failed to open, or was dropped; `why` is shown in the status.
    #[wasm_bindgen(js_name = hubClosed)]
    pub fn hub_closed(&self, socket: u32, why: &str) {
        self.core.hub_closed(u64::from(socket), why);
    }

    /// The hub connection's status: `{status, detail?}`.
    #[wasm_bindgen(getter, js_name = hubStatus, unchecked_return_type = "{ status: HubStatus; detail: string | null }")]
    pub fn hub_status(&self) -> JsValue {
        let (status, detail) = self.core.hub_status();
        to_js(&serde_json::json!({"status": status, "detail": detail}))
    }

    /// Starts building the vault's search index in the background (after `initialize`);
    /// progress arrives as `search_index` events.
    #[wasm_bindgen(js_name = startSearchIndex)]
    pub fn start_search_index(&self) {
        self.core.start_search_index();
    }

    /// The notes closest in meaning to the note at `path` (the Related notes view), with the
    /// passage relating each, or why there are none.
    #[wasm_bindgen(js_name = relatedNotes, unchecked_return_type = "Promise<RelatedNotes>")]
    pub fn related_notes(&self, path: String, limit: u32) -> Promise {
        let core = self.core.clone();
        promise(async move { Ok::<_, String>(core.related_notes(&path, limit as usize).await) })
    }

    /// A note or folder was created, modified, deleted or renamed (`kind`): the search index
    /// repairs itself before its next answer. A rename is reported for both paths.
    #[wasm_bindgen(js_name = vaultChanged)]
    pub fn vault_changed(&self, path: &str, kind: &str) {
        self.core.vault_changed(path, kind);
    }

    /// Answers an agent API request the shim's HTTP server received; always resolves (errors
    /// are answers with a status).
    #[wasm_bindgen(js_name = handleApiRequest, unchecked_return_type = "Promise<ApiResponse>")]
    pub fn handle_api_request(&self, #[wasm_bindgen(unchecked_param_type = "ApiRequest")] request: JsValue) -> Promise {
        let core = self.core.clone();
        let request = crate::lean::from_value::<crate::ApiRequest>(&from_js(&request));
        promise(async move {
            match request {
                Ok(request) => Ok::<_, String>(core.handle_api(request).await),
                Err(e) => Err(format!("the shim passed an unreadable request: {e}")),
            }
        })
    }

    /// The ports the agent API should listen on (none when it is off).
    #[wasm_bindgen(js_name = agentApiListeners, unchecked_return_type = "{ port: number; context?: string }[]")]
    pub fn agent_api_listeners(&self) -> JsValue {
        to_js(&self.core.api_listeners())
    }

    /// The `/config` document (the "Download config" command), with the token only if asked.
    #[wasm_bindgen(js_name = agentApiConfig, unchecked_return_type = "Record<string, unknown>")]
    pub fn agent_api_config(&self, include_token: bool) -> JsValue {
        to_js(&self.core.api_config_document(include_token))
    }

    /// A fresh agent API token for the settings to keep in secret storage.
    #[wasm_bindgen(js_name = newApiToken)]
    pub fn new_api_token(&self) -> String {
        self.core.new_api_token()
    }
}

/// The largest agent API request body, in bytes: the shim stops reading after it.
#[wasm_bindgen(js_name = agentApiBodyLimit)]
pub fn agent_api_body_limit() -> usize {
    crate::api::BODY_LIMIT
}
