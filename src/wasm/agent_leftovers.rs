//! The leftover agents' rule for the host (`acp/leftovers.rs` decides): at its start the host
//! passes what it recorded and a lookup of each pid's command line, and kills what this says.

use wasm_bindgen::prelude::*;

use super::convert::to_js;

/// Which recorded agent process groups to end (`end`), what to log (`notes`), and whether to
/// empty the record (`forget`). `recorded` is `.smarthole/agent-processes.json`'s text (null: no
/// file); `commandLine(pid)` the system's command line of `pid` (null: no such process).
#[wasm_bindgen(js_name = agentLeftovers, unchecked_return_type = "{ end: number[]; notes: string[]; forget: boolean }")]
pub fn agent_leftovers(
    recorded: Option<String>,
    #[wasm_bindgen(js_name = commandLine, unchecked_param_type = "(pid: number) => string | null")]
    command_line: &js_sys::Function,
) -> JsValue {
    // A lookup that throws is a process not seen: it is left alone.
    let seen =
        |pid: u32| command_line.call1(&JsValue::NULL, &JsValue::from(pid)).ok().and_then(|line| line.as_string());
    to_js(&crate::acp::leftovers_to_end(recorded.as_deref(), seen))
}
