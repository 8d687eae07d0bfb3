//! What the host reports of the user's agent process (ACP): its output and its end, each one
//! hop to the core, which reads the protocol's lines and decides (`processor/agent_link.rs`).

use wasm_bindgen::prelude::*;

use super::processor::WasmMessageProcessor;

#[wasm_bindgen(js_class = MessageProcessor)]
impl WasmMessageProcessor {
    /// Agent process `process` wrote `chunk` on stdout (decoded with a streaming UTF-8 decoder).
    #[wasm_bindgen(js_name = agentOutput)]
    pub fn agent_output(&self, process: u32, chunk: &str) {
        self.core.agent_output(u64::from(process), chunk);
    }

    /// Agent process `process` ended (`code` or `signal`), or never started (`error`: ENOENT,
    /// EACCES…); `stderrTail` is the end of its stderr.
    #[wasm_bindgen(js_name = agentExited)]
    pub fn agent_exited(
        &self,
        process: u32,
        code: Option<i32>,
        signal: Option<String>,
        error: Option<String>,
        #[wasm_bindgen(js_name = stderrTail)] stderr_tail: &str,
    ) {
        self.core.agent_exited(u64::from(process), code, signal.as_deref(), error.as_deref(), stderr_tail);
    }
}
