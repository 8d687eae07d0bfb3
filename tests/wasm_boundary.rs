//! The JS boundary, under Node (wasm-bindgen-test): the exported `MessageProcessor` over a JS
//! host object, its promises, callbacks, Stop reaching `abort()`, and bad input from JS never
//! trapping the module.
#![cfg(target_arch = "wasm32")]

use js_sys::{Array, Function, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

use smarthole_agent::wasm::{JsHostObject, WasmMessageProcessor};

#[wasm_bindgen(inline_js = r#"
const enc = new TextEncoder();
const sse = (type, data) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
function textEvents(text) {
  const pieces = text.match(/.{1,3}/gs) ?? [];
  return [
    sse("message_start", { message: {} }),
    sse("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
    ...pieces.map((t) => sse("content_block_delta", { index: 0, delta: { type: "text_delta", text: t } })),
    sse("content_block_stop", { index: 0 }),
    sse("message_delta", { delta: { stop_reason: "end_turn" } }),
    sse("message_stop", {}),
  ];
}
const abortError = () => Object.assign(new Error("The operation was aborted"), { name: "AbortError" });

// A host with files in a Map and scripted replies: {text} | {status, type} | {hang: true}.
export function makeHost(replies) {
  const host = {
    files: new Map(), hub: [], events: [], aborted: [], requests: [], logs: [], failWrites: false, mcpWaits: [],
    async readFile(p) { return host.files.has(p) ? host.files.get(p) : null; },
    async writeFileAtomic(p, t) { if (host.failWrites) throw new Error("disk full"); host.files.set(p, t); },
    async appendFile(p, t) { host.files.set(p, (host.files.get(p) ?? "") + t); },
    async readFileBytes(p) { return host.files.has(p) ? host.files.get(p) : null; },
    async writeFileAtomicBytes(p, b) { if (host.failWrites) throw new Error("disk full"); host.files.set(p, b.slice()); },
    async listDir(d) {
      const pre = d + "/";
      return [...host.files.keys()].filter((k) => k.startsWith(pre) && !k.slice(pre.length).includes("/")).map((k) => k.slice(pre.length));
    },
    async removeFile(p) { host.files.delete(p); },
    async renameFile(a, b) { host.files.set(b, host.files.get(a)); host.files.delete(a); },
    async fileSize(p) { return host.files.has(p) ? new TextEncoder().encode(host.files.get(p)).length : null; },
    httpStart(req) {
      host.requests.push(JSON.parse(new TextDecoder().decode(req.body)));
      const index = host.requests.length - 1;
      const reply = replies[index] ?? { text: "ok" };
      const chunks = reply.status ? [JSON.stringify({ type: "error", error: { type: reply.type, message: "scripted" } })] : textEvents(reply.text ?? "");
      let stop;
      const stopped = new Promise((resolve) => (stop = resolve));
      let aborted = false;
      return {
        response: reply.hang ? stopped.then(() => { throw abortError(); }) : Promise.resolve({ status: reply.status ?? 200, headers: [["Content-Type", "text/event-stream"]] }),
        read() {
          if (aborted) return Promise.reject(abortError());
          const c = chunks.shift();
          return Promise.resolve(c === undefined ? null : enc.encode(c));
        },
        abort() { aborted = true; host.aborted.push(index); stop(); },
      };
    },
    sockets: [],
    hubConnect(socket, url) { host.sockets.push({ socket, url }); },
    hubDisconnect() {},
    hubSend(_socket, frame) { host.hub.push(JSON.parse(frame)); },
    emit(event) { host.events.push(event); },
    log(level, message) { host.logs.push(`${level}: ${message}`); },
    randomU32() { return (Math.random() * 2 ** 32) >>> 0; },
    async vaultList() { return []; },
    async vaultRead(p) { throw new Error(`${p} does not exist`); },
    async vaultCreate() {},
    async vaultProcess() { return false; },
    async vaultCreateFolder() {},
    async vaultTrash() {},
    async vaultRename() {},
    async activeNote() { return null; },
    async scaleImage() { return null; },
    cronNext(_e, _z, after) { return after + 60000; },
    timeZone() { return "UTC"; },
    configFolder() { return ".obsidian"; },
    async mcpServers(waitMs) { host.mcpWaits.push(waitMs); return []; },
    mcpCall() { return { result: Promise.reject(Object.assign(new Error("not connected"), { kind: "not_connected" })), abort() {} }; },
  };
  return host;
}

export function recorder() {
  const calls = [];
  const fn = (...args) => { calls.push(args); };
  return { calls, fn };
}

export function tick(ms) { return new Promise((resolve) => setTimeout(resolve, ms)); }
"#)]
extern "C" {
    fn makeHost(replies: JsValue) -> JsValue;
    fn recorder() -> JsValue;
    fn tick(ms: u32) -> js_sys::Promise;
}

fn get(value: &JsValue, key: &str) -> JsValue {
    Reflect::get(value, &JsValue::from_str(key)).unwrap()
}

fn json(text: &str) -> JsValue {
    js_sys::JSON::parse(text).unwrap()
}

fn settings() -> JsValue {
    json(r#"{"baseUrl": "http://model.test", "model": "m", "apiKey": "k"}"#)
}

const REGISTERED: &str = r#"{"type":"registration_response","payload":{"success":true,"clientId":"c"}}"#;

/// Accepts the registration on the socket the processor opened.
fn connect_hub(host: &JsValue, p: &WasmMessageProcessor) {
    let sockets = Array::from(&get(host, "sockets"));
    let socket = get(&sockets.get(sockets.length() - 1), "socket").as_f64().unwrap() as u32;
    p.hub_opened(socket);
    p.hub_frame(socket, REGISTERED);
}

fn processor(host: &JsValue) -> WasmMessageProcessor {
    WasmMessageProcessor::new(host.clone().unchecked_into::<JsHostObject>(), settings()).unwrap()
}

async fn wait(promise: js_sys::Promise) -> JsValue {
    JsFuture::from(promise).await.unwrap()
}

#[wasm_bindgen_test]
async fn process_resolves_with_the_seed_result_and_fires_the_callbacks() {
    let host = makeHost(json(r#"[{"text": "hello from the model"}]"#));
    let p = processor(&host);
    let responses = recorder();
    let received = recorder();
    p.on_response(get(&responses, "fn").unchecked_into::<Function>());
    p.on_message_received(get(&received, "fn").unchecked_into::<Function>());
    wait(p.initialize()).await;
    connect_hub(&host, &p);
    assert_eq!(get(&p.hub_status(), "status").as_string().unwrap(), "connected");
    let result = wait(p.process(json(r#"{"id": "m1", "text": "hi", "source": "websocket"}"#))).await;
    assert_eq!(get(&result, "success"), JsValue::TRUE);
    assert_eq!(get(&result, "response").as_string().unwrap(), "hello from the model");
    assert_eq!(Array::from(&get(&result, "toolsUsed")).length(), 0);
    // Callbacks run on a microtask after the promise's own resolution path.
    wait(tick(0)).await;
    let calls = Array::from(&get(&responses, "calls"));
    assert_eq!(calls.length(), 1);
    let args = Array::from(&calls.get(0));
    assert_eq!(args.get(0).as_string().unwrap(), "m1");
    assert_eq!(args.get(1).as_string().unwrap(), "hello from the model");
    assert_eq!(Array::from(&get(&received, "calls")).length(), 1);
    let hub = Array::from(&get(&host, "hub"));
    assert_eq!(hub.length(), 3, "registration, ack, notification");
    assert_eq!(get(&hub.get(0), "type").as_string().unwrap(), "registration");
    assert_eq!(js_sys::JSON::stringify(&get(&get(&hub.get(1), "payload"), "payload")).unwrap(), "{}");
    let deltas = Array::from(&get(&host, "events"))
        .iter()
        .filter(|e| get(e, "type").as_string().as_deref() == Some("text_delta"))
        .map(|e| get(&e, "text").as_string().unwrap())
        .collect::<String>();
    assert_eq!(deltas, "hello from the model");
    let files = get(&host, "files").unchecked_into::<js_sys::Map>();
    assert!(files.has(&JsValue::from_str("conversations/index.json")));
    assert!(!files.has(&JsValue::from_str("inbox/m1.json")), "cleaned up");
}

#[wasm_bindgen_test]
async fn stop_reaches_the_hosts_abort_and_resolves_as_cancelled() {
    let host = makeHost(json(r#"[{"hang": true}, {"text": "next"}]"#));
    let p = processor(&host);
    wait(p.initialize()).await;
    let pending = JsFuture::from(p.process(json(r#"{"id": "slow", "text": "hi"}"#)));
    wait(tick(5)).await;
    assert_eq!(p.current_message_id().as_deref(), Some("slow"));
    assert!(p.cancel_current_processing());
    let result = pending.await.unwrap();
    assert_eq!(get(&result, "cancelled"), JsValue::TRUE);
    assert_eq!(get(&result, "response").as_string().unwrap(), "");
    assert_eq!(Array::from(&get(&host, "aborted")).length(), 1, "the request was aborted");
    assert!(!p.cancel_current_processing(), "idle now");
    let next = wait(p.process(json(r#"{"id": "n", "text": "again"}"#))).await;
    assert_eq!(get(&next, "response").as_string().unwrap(), "next");
}

#[wasm_bindgen_test]
async fn bad_input_from_js_is_an_error_not_a_trap() {
    let host = makeHost(json("[]"));
    assert!(WasmMessageProcessor::new(host.clone().unchecked_into(), json(r#"{"maxTokens": 0}"#)).is_err());
    assert!(WasmMessageProcessor::new(host.clone().unchecked_into(), json(r#"{"baseUrl": 42}"#)).is_err());
    let p = processor(&host);
    for bad in [JsValue::UNDEFINED, JsValue::from_str("text"), json(r#"{"id": "x", "text": 5}"#)] {
        let result = wait(p.process(bad)).await;
        assert_eq!(get(&result, "success"), JsValue::FALSE);
        assert_eq!(get(&result, "errorCode").as_string().unwrap(), "invalid_message");
        assert!(get(&result, "retryable").is_undefined(), "a refused message offers no Retry");
    }
    // A host whose writes throw gives a storage error, and the module keeps working.
    Reflect::set(&host, &JsValue::from_str("failWrites"), &JsValue::TRUE).unwrap();
    let result = wait(p.process(json(r#"{"id": "d", "text": "hi"}"#))).await;
    assert_eq!(get(&result, "errorCode").as_string().unwrap(), "storage_error");
    assert!(get(&result, "error").as_string().unwrap().contains("disk full"));
    Reflect::set(&host, &JsValue::from_str("failWrites"), &JsValue::FALSE).unwrap();
    let result = wait(p.process(json(r#"{"id": "e", "text": "hi"}"#))).await;
    assert_eq!(get(&result, "success"), JsValue::TRUE);
}

#[wasm_bindgen_test]
async fn callbacks_may_call_back_into_the_processor() {
    let host = makeHost(json(r#"[{"text": "one"}, {"text": "two"}]"#));
    let p = std::rc::Rc::new(processor(&host));
    let inner = p.clone();
    let second: std::rc::Rc<std::cell::RefCell<Option<js_sys::Promise>>> = Default::default();
    let slot = second.clone();
    let callback = Closure::<dyn FnMut(JsValue)>::new(move |_message: JsValue| {
        // Re-entering from a callback: cancel (a no-op here) and start another message.
        inner.cancel_current_processing();
        if slot.borrow().is_none() {
            *slot.borrow_mut() = Some(inner.process(json(r#"{"id": "from-callback", "text": "again"}"#)));
        }
    });
    p.on_message_received(callback.as_ref().clone().unchecked_into());
    callback.forget();
    let first = wait(p.process(json(r#"{"id": "first", "text": "hi"}"#))).await;
    wait(tick(0)).await;
    let promise = second.borrow_mut().take().expect("the callback ran");
    let nested = wait(promise).await;
    assert_eq!(get(&first, "success"), JsValue::TRUE);
    assert_eq!(get(&nested, "success"), JsValue::TRUE);
}

#[wasm_bindgen_test]
async fn auth_errors_cross_as_the_seed_message() {
    let host = makeHost(json(r#"[{"status": 401, "type": "authentication_error"}]"#));
    let p = processor(&host);
    let result = wait(p.process(json(r#"{"id": "a", "text": "hi"}"#))).await;
    assert_eq!(get(&result, "error").as_string().unwrap(), "API key is missing or invalid");
    assert_eq!(get(&result, "errorCode").as_string().unwrap(), "auth_error");
    assert_eq!(get(&result, "retryable"), JsValue::TRUE);
}

#[wasm_bindgen_test]
async fn a_typed_message_crosses_once_and_its_result_arrives_as_the_response_event() {
    let host = makeHost(json(r#"[{"text": "hello"}, {"text": "again"}]"#));
    let p = processor(&host);
    let message = p.send("hi", JsValue::UNDEFINED);
    let id = get(&message, "id").as_string().unwrap();
    assert!(id.starts_with("direct-"), "{id}");
    assert_eq!(get(&message, "source").as_string().unwrap(), "direct");
    assert_eq!(get(&message, "text").as_string().unwrap(), "hi");
    assert!(get(&message, "attachments").is_undefined());
    // What the user attached goes with it (here: nothing, as an empty list).
    let second = p.send("and you?", json("[]"));
    let second_id = get(&second, "id").as_string().unwrap();
    assert_ne!(id, second_id);
    assert_eq!(Array::from(&get(&second, "attachments")).length(), 0);
    let responses = || {
        Array::from(&get(&host, "events"))
            .iter()
            .filter(|e| get(e, "type").as_string().as_deref() == Some("response"))
            .map(|e| get(&e, "result"))
            .collect::<Vec<_>>()
    };
    for _ in 0..200 {
        if responses().len() == 2 {
            break;
        }
        wait(tick(5)).await;
    }
    let results = responses();
    assert_eq!(results.len(), 2, "each result arrives once, as a response event");
    assert_eq!(get(&results[0], "messageId").as_string().unwrap(), id);
    assert_eq!(get(&results[0], "response").as_string().unwrap(), "hello");
    assert_eq!(get(&results[1], "messageId").as_string().unwrap(), second_id);
    assert_eq!(get(&results[1], "response").as_string().unwrap(), "again");
}

/// The core's decisions reach the JS host as arguments: a turn with integrations asks for them
/// with the core's wait for connections under way (3 s), which the host only applies.
#[wasm_bindgen_test]
async fn the_host_is_told_how_long_to_wait_for_integrations() {
    let host = makeHost(json(r#"[{"text": "done"}]"#));
    let with_mcp = json(
        r#"{"baseUrl": "http://model.test", "model": "m", "apiKey": "k", "mcpServers": [{"name": "tools", "url": "http://127.0.0.1:1/mcp"}]}"#,
    );
    let p = WasmMessageProcessor::new(host.clone().unchecked_into::<JsHostObject>(), with_mcp).unwrap();
    wait(p.initialize()).await;
    let result = wait(p.process(json(r#"{"id": "m1", "text": "hi", "source": "direct"}"#))).await;
    assert_eq!(get(&result, "success"), JsValue::TRUE);
    let waits: Vec<f64> = Array::from(&get(&host, "mcpWaits")).iter().filter_map(|w| w.as_f64()).collect();
    assert_eq!(waits, [3000.0]);
}
