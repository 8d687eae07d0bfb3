//! [`JsHost`]: the core's `Host` over the `CoreHost` object the shim passes in (declared in
//! host_object.rs, one extern method per host call). What backs the object is the shim's
//! choice — in Obsidian the vault adapter (Node's `fs` on desktop) for `.smarthole/`, `Vault`
//! and `FileManager` for notes, `fetch` or `requestUrl`; in Node `fs` and `fetch`; everywhere
//! croner, the MCP SDK and the hub's WebSockets. The object's promises are awaited here; what
//! comes back is made into the core's values and errors by js_errors.rs (a trap of this
//! instance inside a host call is thrown on, never an I/O error). A response body ([`JsBody`])
//! and an MCP call abort when dropped, so Stop reaches them. Values cross as JSON
//! (`convert.rs`), except a request's body (a plain string) and `vault_process`'s edit (a
//! closure the host calls at most once). `emit` also feeds the seed's callbacks
//! (`callbacks.rs`).

use std::future::Future;
use std::rc::Rc;

use js_sys::{Reflect, Uint8Array};
use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::callbacks::Callbacks;
use super::convert::{from_js, to_js};
use super::host_object::{JsHostObject, JsHttpHandle};
use super::js_errors::{
    bytes_of, io_error, js_message, json_text, mcp_error, net_error, rethrow_trap, settle, string_of, AbortOnDrop,
};
use crate::host_types::HttpBody;
use crate::{Event, Host, HostError, HttpRequest, HttpResponse, LogLevel, McpError, McpServer, Millis, VaultEntry};

/// The JS-backed host.
pub struct JsHost {
    object: JsHostObject,
    callbacks: Rc<Callbacks>,
}

impl JsHost {
    pub fn new(object: JsHostObject, callbacks: Rc<Callbacks>) -> Self {
        JsHost { object, callbacks }
    }
}

/// The request's small fields; the body is set separately, as a plain string, so a long
/// conversation is not escaped into JSON a second time.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct JsRequest<'a> {
    method: &'a str,
    url: &'a str,
    headers: &'a [(String, String)],
    stream: bool,
}

/// A response body read through the JS handle; dropped before its end, it aborts the request.
pub struct JsBody {
    handle: JsHttpHandle,
    finished: bool,
}

impl Drop for JsBody {
    fn drop(&mut self) {
        if !self.finished {
            self.handle.abort();
        }
    }
}

impl HttpBody for JsBody {
    async fn chunk(&mut self) -> Result<Option<Vec<u8>>, HostError> {
        let value = JsFuture::from(self.handle.read().map_err(net_error)?).await.map_err(net_error)?;
        if value.is_null() || value.is_undefined() {
            self.finished = true;
            return Ok(None);
        }
        Ok(Some(Uint8Array::new(&value).to_vec()))
    }
}

/// The longest wait one JavaScript timer can hold (2^31 - 1 ms, about 24.8 days).
const LONGEST_TIMEOUT_MS: Millis = i32::MAX as Millis;

/// The host's wall clock, for a sleep that outlives its borrow of the host.
fn wall_clock_ms() -> Millis {
    js_sys::Date::now() as Millis
}

/// Vault entries made from the host's listing between two turns of the event loop.
const LIST_SLICE: u32 = 1024;

impl Host for JsHost {
    type Body = JsBody;

    fn now_ms(&self) -> Millis {
        wall_clock_ms()
    }

    fn sleep(&self, ms: Millis) -> impl Future<Output = ()> {
        let until = self.now_ms().saturating_add(ms);
        async move {
            if ms == 0 {
                return super::event_turn::next_turn().await;
            }
            let mut left = ms;
            loop {
                gloo_timers::future::TimeoutFuture::new(left.min(LONGEST_TIMEOUT_MS) as u32).await;
                // Node's timers may fire a millisecond before `Date.now()` says the time has
                // come, and a timeout past 2^31 - 1 ms fires at once: a caller that checks the
                // clock after waking would find its deadline not yet reached and wait forever.
                // A clock set back by more than the wait ends it rather than stretching it.
                match until.checked_sub(wall_clock_ms()) {
                    Some(rest) if rest > 0 && rest <= ms => left = rest,
                    _ => break,
                }
            }
        }
    }

    fn spawn(&self, task: futures::future::LocalBoxFuture<'static, ()>) {
        wasm_bindgen_futures::spawn_local(task);
    }

    fn random_u64(&self) -> u64 {
        (u64::from(self.object.random_u32()) << 32) | u64::from(self.object.random_u32())
    }

    async fn read_file(&self, path: &str) -> Result<Option<String>, HostError> {
        let value = settle(self.object.read_file(path)).await?;
        Ok(string_of(&value))
    }

    async fn write_file_atomic(&self, path: &str, text: &str) -> Result<(), HostError> {
        settle(self.object.write_file_atomic(path, text)).await.map(drop)
    }

    async fn read_file_bytes(&self, path: &str) -> Result<Option<Vec<u8>>, HostError> {
        let value = settle(self.object.read_file_bytes(path)).await?;
        if value.is_null() || value.is_undefined() {
            return Ok(None);
        }
        bytes_of(value, || format!("{path}: the host gave no bytes")).map(Some)
    }

    async fn write_file_atomic_bytes(&self, path: &str, bytes: &[u8]) -> Result<(), HostError> {
        // A copy the host owns: a view of the wasm memory would go stale if it grew meanwhile.
        let owned = js_sys::Uint8Array::from(bytes);
        settle(self.object.write_file_atomic_bytes(path, &owned)).await.map(drop)
    }

    async fn append_file(&self, path: &str, text: &str) -> Result<(), HostError> {
        settle(self.object.append_file(path, text)).await.map(drop)
    }

    async fn list_dir(&self, dir: &str) -> Result<Vec<String>, HostError> {
        let value = settle(self.object.list_dir(dir)).await?;
        Ok(js_sys::Array::from(&value).iter().filter_map(|v| v.as_string()).collect())
    }

    async fn remove_file(&self, path: &str) -> Result<(), HostError> {
        settle(self.object.remove_file(path)).await.map(drop)
    }

    async fn rename_file(&self, from: &str, to: &str) -> Result<(), HostError> {
        settle(self.object.rename_file(from, to)).await.map(drop)
    }

    async fn file_size(&self, path: &str) -> Result<Option<u64>, HostError> {
        let value = settle(self.object.file_size(path)).await?;
        // A string: what the path is when it is not a regular file (`fifo`, `folder`…).
        if let Some(kind) = value.as_string() {
            return Err(HostError::not_a_file(path, &kind));
        }
        Ok(value.as_f64().filter(|n| n.is_finite() && *n >= 0.0).map(|n| n as u64))
    }

    async fn vault_list(&self, follow_linked_folders: bool) -> Result<Vec<VaultEntry>, HostError> {
        let listed = settle(self.object.vault_list(follow_linked_folders)).await?;
        let badly = |e: String| HostError::Io(format!("the host listed the vault badly: {e}"));
        let all = listed.dyn_into::<js_sys::Array>().map_err(|_| badly("not a list".into()))?;
        // Made into entries a slice at a time, with a turn of the event loop between: 100,000
        // entries as one JSON text held it for about 200 ms, and 4,096 at a time for 40 to 90 ms
        // on a loaded machine (a restart's longest stall).
        let mut out = Vec::with_capacity(all.length() as usize);
        let mut at = 0;
        while at < all.length() {
            let end = at.saturating_add(LIST_SLICE).min(all.length());
            let json = json_text(&all.slice(at, end))?;
            out.extend(serde_json::from_str::<Vec<VaultEntry>>(&json).map_err(|e| badly(e.to_string()))?);
            at = end;
            if at < all.length() {
                self.sleep(0).await;
            }
        }
        Ok(out)
    }

    async fn vault_read(&self, path: &str) -> Result<String, HostError> {
        let value = settle(self.object.vault_read(path)).await?;
        string_of(&value).ok_or_else(|| HostError::Io(format!("{path} is not a text file")))
    }

    async fn vault_read_bytes(&self, path: &str) -> Result<Vec<u8>, HostError> {
        let value = settle(self.object.vault_read_bytes(path)).await?;
        bytes_of(value, || format!("{path}: the host gave no bytes"))
    }

    async fn vault_read_many_bytes(&self, paths: &[String]) -> Vec<Result<Vec<u8>, HostError>> {
        let asked: js_sys::Array = paths.iter().map(|p| JsValue::from_str(p)).collect();
        let copy = {
            let paths = paths.to_vec();
            move |answer: Result<JsValue, HostError>| many_bytes_of(&paths, answer)
        };
        // Copied as soon as it comes (host.d.ts): a list answered at once, here; a promise's, in
        // its own reaction, not at this task's next poll.
        match self.object.vault_read_many_bytes(&asked) {
            Ok(value) => match value.dyn_into::<js_sys::Promise>() {
                Ok(promise) => taken_when_settled(promise, copy).await.unwrap_or_else(|| {
                    paths.iter().map(|_| Err(HostError::Io("the host's answer never settled".into()))).collect()
                }),
                Err(value) => copy(Ok(value)),
            },
            Err(e) => copy(Err(io_error(e))),
        }
    }

    async fn vault_create(&self, path: &str, text: &str) -> Result<(), HostError> {
        settle(self.object.vault_create(path, text)).await.map(drop)
    }

    async fn vault_process(&self, path: &str, edit: crate::host_types::NoteEdit) -> Result<bool, HostError> {
        // Kept alive until the host's promise settles; the host calls it at most once.
        let edit = Closure::<dyn Fn(String) -> Option<String>>::new(move |text: String| edit(&text));
        let value = settle(self.object.vault_process(path, edit.as_ref().unchecked_ref())).await?;
        drop(edit);
        Ok(value.as_bool().unwrap_or(false))
    }

    async fn vault_append(&self, path: &str, text: &str) -> Result<(), HostError> {
        settle(self.object.vault_append(path, text)).await.map(drop)
    }

    async fn vault_create_folder(&self, path: &str) -> Result<(), HostError> {
        settle(self.object.vault_create_folder(path)).await.map(drop)
    }

    async fn vault_trash(&self, path: &str) -> Result<(), HostError> {
        settle(self.object.vault_trash(path)).await.map(drop)
    }

    async fn vault_rename(&self, from: &str, to: &str) -> Result<(), HostError> {
        settle(self.object.vault_rename(from, to)).await.map(drop)
    }

    async fn active_note(&self) -> Option<String> {
        settle(self.object.active_note()).await.ok().and_then(|v| v.as_string())
    }

    async fn scale_image(
        &self,
        bytes: &[u8],
        media_type: &str,
        max_side: u32,
        max_bytes: u64,
    ) -> Result<Option<Vec<u8>>, HostError> {
        let value = settle(self.object.scale_image(bytes, media_type, max_side, max_bytes as f64)).await?;
        if value.is_null() || value.is_undefined() {
            return Ok(None);
        }
        bytes_of(value, || "the host scaled an image to something that is not bytes".to_owned()).map(Some)
    }

    fn cron_next(&self, expression: &str, time_zone: &str, after_ms: Millis) -> Result<Option<Millis>, String> {
        let next = self.object.cron_next(expression, time_zone, after_ms as f64).map_err(|e| {
            rethrow_trap(&e);
            js_message(&e)
        })?;
        Ok(next.as_f64().filter(|ms| ms.is_finite() && *ms >= 0.0).map(|ms| ms as Millis))
    }

    fn time_zone(&self) -> String {
        self.object.time_zone()
    }

    fn config_folder(&self) -> String {
        // A host that cannot say adds nothing: the fixed folders (`.obsidian` among them) stay.
        self.object.config_folder().unwrap_or_else(|e| {
            rethrow_trap(&e);
            String::new()
        })
    }

    async fn mcp_servers(&self, wait_ms: Millis) -> Vec<McpServer> {
        let listed = settle(self.object.mcp_servers(wait_ms as f64)).await.and_then(|value| json_text(&value));
        match listed {
            Ok(json) => serde_json::from_str(&json).unwrap_or_else(|e| {
                self.log(LogLevel::Warn, &format!("the host listed its MCP servers badly: {e}"));
                Vec::new()
            }),
            Err(e) => {
                self.log(LogLevel::Warn, &format!("could not list the MCP servers: {e}"));
                Vec::new()
            }
        }
    }

    async fn mcp_call(
        &self,
        server: &str,
        tool: &str,
        input: &serde_json::Value,
    ) -> Result<serde_json::Value, McpError> {
        let call = self.object.mcp_call(server, tool, to_js(input)).map_err(|e| mcp_error(server, &e))?;
        let pending = JsFuture::from(call.result());
        // Dropped before it settles (Stop), the call is aborted.
        let mut guard = AbortOnDrop(Some(call));
        let result = pending.await;
        guard.0 = None;
        result.map(|v| from_js(&v)).map_err(|e| mcp_error(server, &e))
    }

    async fn http(&self, request: HttpRequest) -> Result<HttpResponse<JsBody>, HostError> {
        let js_request = to_js(&JsRequest {
            method: &request.method,
            url: &request.url,
            headers: &request.headers,
            stream: request.stream,
        });
        // As bytes: a string would be decoded from UTF-8 here and encoded again by the host's
        // fetch (~0.5 ms each at 1,000 turns, issue 37).
        if !request.body.is_empty() {
            let body = js_sys::Uint8Array::from(request.body.as_bytes());
            Reflect::set(&js_request, &JsValue::from_str("body"), &body)
                .map_err(|e| HostError::Network(js_message(&e)))?;
        }
        let handle = self.object.http_start(js_request).map_err(net_error)?;
        // Owned from here: dropping this future while the head is awaited aborts the request.
        let body = JsBody { handle, finished: false };
        let head = JsFuture::from(body.handle.response()).await.map_err(net_error)?;
        let status =
            Reflect::get(&head, &JsValue::from_str("status")).ok().and_then(|s| s.as_f64()).unwrap_or(0.0) as u16;
        let headers = Reflect::get(&head, &JsValue::from_str("headers"))
            .ok()
            .map(|h| {
                js_sys::Array::from(&h)
                    .iter()
                    .filter_map(|pair| {
                        let pair = js_sys::Array::from(&pair);
                        Some((pair.get(0).as_string()?.to_ascii_lowercase(), pair.get(1).as_string()?))
                    })
                    .collect()
            })
            .unwrap_or_default();
        Ok(HttpResponse { status, headers, body })
    }

    fn hub_connect(&self, socket: u64, url: &str) {
        if let Err(e) = self.object.hub_connect(socket as u32, url) {
            self.log(LogLevel::Warn, &format!("hub connect failed: {}", js_message(&e)));
        }
    }

    fn hub_disconnect(&self, socket: u64) {
        if let Err(e) = self.object.hub_disconnect(socket as u32) {
            self.log(LogLevel::Warn, &format!("hub disconnect failed: {}", js_message(&e)));
        }
    }

    fn agent_start(
        &self,
        process: u64,
        command: &str,
        args: &[String],
        env: &std::collections::BTreeMap<String, String>,
        cwd: &str,
    ) {
        if let Err(e) = self.object.agent_start(process as u32, command, &to_js(args), &to_js(env), cwd) {
            self.log(LogLevel::Warn, &format!("agent start failed: {}", js_message(&e)));
        }
    }

    fn agent_write(&self, process: u64, text: &str) {
        if let Err(e) = self.object.agent_write(process as u32, text) {
            self.log(LogLevel::Warn, &format!("agent write failed: {}", js_message(&e)));
        }
    }

    fn agent_stop(&self, process: u64) {
        if let Err(e) = self.object.agent_stop(process as u32) {
            self.log(LogLevel::Warn, &format!("agent stop failed: {}", js_message(&e)));
        }
    }

    fn environment(&self) -> std::collections::BTreeMap<String, String> {
        let value = self.object.environment().map(|v| from_js(&v)).unwrap_or_default();
        let variables = value.as_object().into_iter().flatten();
        // Inserted one by one: collecting would sort them first (one more stable sort in the wasm).
        let mut env = std::collections::BTreeMap::new();
        for (name, value) in variables {
            if let Some(value) = value.as_str() {
                env.insert(name.clone(), value.to_owned());
            }
        }
        env
    }

    fn agent_folder(&self) -> Option<String> {
        self.object.agent_folder().ok().flatten()
    }

    fn hub_send(&self, socket: u64, frame: String) {
        if let Err(e) = self.object.hub_send(socket as u32, &frame) {
            self.log(LogLevel::Warn, &format!("hub send failed: {}", js_message(&e)));
        }
    }

    fn emit(&self, event: &Event) {
        let value = to_js(event);
        if let Err(e) = self.object.emit(value.clone()) {
            rethrow_trap(&e);
            let _ = self.object.log("warn", &format!("host emit threw: {}", js_message(&e)));
        }
        self.callbacks.dispatch(event, value);
    }

    fn log(&self, level: LogLevel, message: &str) {
        let _ = self.object.log(level.as_str(), message);
    }
}

/// Each note's bytes of a host's answer to `vaultReadManyBytes`, copied out of JS.
fn many_bytes_of(paths: &[String], answer: Result<JsValue, HostError>) -> Vec<Result<Vec<u8>, HostError>> {
    let all = answer
        .and_then(|value| value.dyn_into::<js_sys::Array>().map_err(|_| HostError::Io("the host gave no list".into())));
    match all {
        Ok(all) => paths
            .iter()
            .enumerate()
            .map(|(k, path)| {
                let one = all.get(k as u32);
                match one.as_string() {
                    Some(why) => Err(HostError::Io(why)),
                    None => bytes_of(one, || format!("{path}: the host gave no bytes")),
                }
            })
            .collect(),
        Err(e) => paths.iter().map(|_| Err(e.clone())).collect(),
    }
}

/// A reaction to a promise, made by [`taken_when_settled`].
type Reaction = Closure<dyn FnMut(JsValue)>;

/// What a promise's reactions share: what takes its answer (and where it goes), and the two
/// reactions themselves, held here until one of them runs and frees both.
struct Settling<F, T> {
    take: Option<(F, futures::channel::oneshot::Sender<T>)>,
    reactions: Option<(Reaction, Reaction)>,
}

/// A promise's answer, `take`n in the promise's own reaction (a microtask right after it
/// settles), not when the task awaiting it is next polled, which may be many turns of the event
/// loop later: a host may lend what it answers only until its next turn (host.d.ts). The
/// reactions live until the promise settles, even if the task awaiting it is dropped; the one
/// that runs frees both (a reaction never called, kept alive by `Closure::once_into_js`, leaked
/// about 440 bytes a read). `None` only if both reactions were dropped unrun, which holding them
/// here rules out.
async fn taken_when_settled<F, T>(promise: js_sys::Promise, take: F) -> Option<T>
where
    F: FnOnce(Result<JsValue, HostError>) -> T + 'static,
    T: 'static,
{
    let (sender, taken) = futures::channel::oneshot::channel();
    let settling = Rc::new(std::cell::RefCell::new(Settling { take: Some((take, sender)), reactions: None }));
    let react = |ok: bool| {
        let settling = Rc::clone(&settling);
        Reaction::new(move |value: JsValue| {
            let (taken, reactions) = {
                let mut settling = settling.borrow_mut();
                (settling.take.take(), settling.reactions.take())
            };
            if let Some((take, sender)) = taken {
                let _ = sender.send(take(if ok { Ok(value) } else { Err(io_error(value)) }));
            }
            // Both freed: the other now, this one once it returns (wasm-bindgen counts the call).
            drop(reactions);
        })
    };
    let (fulfilled, rejected) = (react(true), react(false));
    let _ = promise.then2(&fulfilled, &rejected);
    settling.borrow_mut().reactions = Some((fulfilled, rejected));
    taken.await.ok()
}
