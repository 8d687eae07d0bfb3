//! The `CoreHost` object the shim passes in, as the core reaches it: one extern method per host
//! call (`JsHostObject`), the HTTP handle and the MCP call it hands back. Declared here only;
//! js_host.rs implements the core's `Host` over them.

use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// The object the shim implements (`CoreHost` in TypeScript).
    #[wasm_bindgen(typescript_type = "CoreHost")]
    pub type JsHostObject;

    #[wasm_bindgen(method, catch, js_name = readFile)]
    pub(super) fn read_file(this: &JsHostObject, path: &str) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch, js_name = writeFileAtomic)]
    pub(super) fn write_file_atomic(this: &JsHostObject, path: &str, text: &str) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch, js_name = readFileBytes)]
    pub(super) fn read_file_bytes(this: &JsHostObject, path: &str) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch, js_name = writeFileAtomicBytes)]
    pub(super) fn write_file_atomic_bytes(
        this: &JsHostObject,
        path: &str,
        bytes: &js_sys::Uint8Array,
    ) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch, js_name = appendFile)]
    pub(super) fn append_file(this: &JsHostObject, path: &str, text: &str) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch, js_name = listDir)]
    pub(super) fn list_dir(this: &JsHostObject, dir: &str) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch, js_name = removeFile)]
    pub(super) fn remove_file(this: &JsHostObject, path: &str) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch, js_name = renameFile)]
    pub(super) fn rename_file(this: &JsHostObject, from: &str, to: &str) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch, js_name = fileSize)]
    pub(super) fn file_size(this: &JsHostObject, path: &str) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch, js_name = vaultList)]
    pub(super) fn vault_list(this: &JsHostObject, follow_linked_folders: bool) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch, js_name = vaultRead)]
    pub(super) fn vault_read(this: &JsHostObject, path: &str) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch, js_name = vaultReadBytes)]
    pub(super) fn vault_read_bytes(this: &JsHostObject, path: &str) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch, js_name = vaultReadManyBytes)]
    pub(super) fn vault_read_many_bytes(this: &JsHostObject, paths: &js_sys::Array) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, js_name = vaultCreate)]
    pub(super) fn vault_create(this: &JsHostObject, path: &str, text: &str) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch, js_name = vaultProcess)]
    pub(super) fn vault_process(this: &JsHostObject, path: &str, edit: &Function) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch, js_name = vaultAppend)]
    pub(super) fn vault_append(this: &JsHostObject, path: &str, text: &str) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch, js_name = vaultCreateFolder)]
    pub(super) fn vault_create_folder(this: &JsHostObject, path: &str) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch, js_name = vaultTrash)]
    pub(super) fn vault_trash(this: &JsHostObject, path: &str) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch, js_name = vaultRename)]
    pub(super) fn vault_rename(this: &JsHostObject, from: &str, to: &str) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch, js_name = activeNote)]
    pub(super) fn active_note(this: &JsHostObject) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch, js_name = scaleImage)]
    pub(super) fn scale_image(
        this: &JsHostObject,
        bytes: &[u8],
        media_type: &str,
        max_side: u32,
        max_bytes: f64,
    ) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch, js_name = cronNext)]
    pub(super) fn cron_next(
        this: &JsHostObject,
        expression: &str,
        time_zone: &str,
        after_ms: f64,
    ) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, js_name = timeZone)]
    pub(super) fn time_zone(this: &JsHostObject) -> String;
    #[wasm_bindgen(method, catch, js_name = configFolder)]
    pub(super) fn config_folder(this: &JsHostObject) -> Result<String, JsValue>;
    #[wasm_bindgen(method, catch, js_name = mcpServers)]
    pub(super) fn mcp_servers(this: &JsHostObject, wait_ms: f64) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch, js_name = mcpCall)]
    pub(super) fn mcp_call(this: &JsHostObject, server: &str, tool: &str, input: JsValue)
        -> Result<JsMcpCall, JsValue>;
    #[wasm_bindgen(method, catch, js_name = httpStart)]
    pub(super) fn http_start(this: &JsHostObject, request: JsValue) -> Result<JsHttpHandle, JsValue>;
    #[wasm_bindgen(method, catch, js_name = hubConnect)]
    pub(super) fn hub_connect(this: &JsHostObject, socket: u32, url: &str) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch, js_name = hubDisconnect)]
    pub(super) fn hub_disconnect(this: &JsHostObject, socket: u32) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch, js_name = hubSend)]
    pub(super) fn hub_send(this: &JsHostObject, socket: u32, frame: &str) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch, js_name = agentStart)]
    pub(super) fn agent_start(
        this: &JsHostObject,
        process: u32,
        command: &str,
        args: &JsValue,
        env: &JsValue,
        cwd: &str,
    ) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch, js_name = agentWrite)]
    pub(super) fn agent_write(this: &JsHostObject, process: u32, text: &str) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch, js_name = agentStop)]
    pub(super) fn agent_stop(this: &JsHostObject, process: u32) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch)]
    pub(super) fn environment(this: &JsHostObject) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, js_name = agentFolder)]
    pub(super) fn agent_folder(this: &JsHostObject) -> Result<Option<String>, JsValue>;
    #[wasm_bindgen(method, catch)]
    pub(super) fn emit(this: &JsHostObject, event: JsValue) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch)]
    pub(super) fn log(this: &JsHostObject, level: &str, message: &str) -> Result<(), JsValue>;
    #[wasm_bindgen(method, js_name = randomU32)]
    pub(super) fn random_u32(this: &JsHostObject) -> u32;

    /// An HTTP request in flight (`HttpHandle` in TypeScript).
    #[wasm_bindgen(typescript_type = "HttpHandle")]
    pub type JsHttpHandle;
    #[wasm_bindgen(method, getter)]
    pub(super) fn response(this: &JsHttpHandle) -> Promise;

    /// An MCP call in flight (`{result, abort}`).
    pub type JsMcpCall;
    #[wasm_bindgen(method, getter)]
    pub(super) fn result(this: &JsMcpCall) -> Promise;
    #[wasm_bindgen(method, js_name = abort)]
    pub(super) fn abort_call(this: &JsMcpCall);
    #[wasm_bindgen(method, catch)]
    pub(super) fn read(this: &JsHttpHandle) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method)]
    pub(super) fn abort(this: &JsHttpHandle);
}
