//! The `smarthole` MCP server's own listener as the host runs it: whether to keep it open, the
//! port it bound (or why it could not), and its requests, each one hop to the core
//! (`processor/agent_listener.rs` decides).

use js_sys::Promise;
use wasm_bindgen::prelude::*;

use super::convert::{from_js, promise};
use super::processor::WasmMessageProcessor;

#[wasm_bindgen(js_class = MessageProcessor)]
impl WasmMessageProcessor {
    /// Whether the host should keep the agent tools' listener open (127.0.0.1, a port the system
    /// picks): an ACP agent is in use on this device, or a stored job names one. Asked again
    /// after each settings change and at each `agent_tools_wanted` event.
    #[wasm_bindgen(js_name = agentToolsListener)]
    pub fn agent_tools_listener(&self) -> bool {
        self.core.agent_tools_listener()
    }

    /// The listener bound at `port`, or could not open (`error`), or (neither) closed.
    #[wasm_bindgen(js_name = agentToolsListening)]
    pub fn agent_tools_listening(&self, port: Option<u16>, error: Option<String>) {
        self.core.agent_tools_listening(port, error.as_deref());
    }

    /// Answers a request the agent tools' listener received; always resolves.
    #[wasm_bindgen(js_name = handleAgentToolsRequest, unchecked_return_type = "Promise<ApiResponse>")]
    pub fn handle_agent_tools_request(
        &self,
        #[wasm_bindgen(unchecked_param_type = "ApiRequest")] request: JsValue,
    ) -> Promise {
        let core = self.core.clone();
        let request = crate::lean::from_value::<crate::ApiRequest>(&from_js(&request));
        promise(async move {
            match request {
                Ok(request) => Ok::<_, String>(core.handle_agent_tools(request).await),
                Err(e) => Err(format!("the shim passed an unreadable request: {e}")),
            }
        })
    }
}
