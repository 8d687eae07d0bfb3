//! A turn of the host's event loop, for work that yields (`Host::sleep(0)`: a search, the
//! search index's build) so that Stop, sockets and signals get their turn.
//!
//! On Node (the headless host, and anything without a page) a 0 ms timer is not such a turn: a
//! timer set while the timers run may fire again in the same pass, before the loop polls for
//! I/O, so a search yielding by timers kept a Ctrl-C waiting 100–300 ms, and a hub frame too.
//! `setImmediate` runs after the poll, every time. A page (the desktop app's window, the phone)
//! has no such gap: its timers are tasks, with input and I/O between them.

use js_sys::{Function, Promise, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

thread_local! {
    /// Node's `setImmediate`, where the loop is Node's own (no page).
    static SET_IMMEDIATE: Option<Function> = node_set_immediate();
}

fn node_set_immediate() -> Option<Function> {
    let global = js_sys::global();
    if Reflect::has(&global, &JsValue::from_str("document")).unwrap_or(true) {
        return None;
    }
    Reflect::get(&global, &JsValue::from_str("setImmediate")).ok()?.dyn_into::<Function>().ok()
}

/// Resolves on the event loop's next turn, after it has polled for I/O.
pub(super) async fn next_turn() {
    match SET_IMMEDIATE.with(Clone::clone) {
        Some(set_immediate) => {
            let turn = Promise::new(&mut |resolve, _| {
                // A setImmediate that throws (never, on Node): resolved at once, a turn of the
                // executor only.
                if set_immediate.call1(&JsValue::UNDEFINED, &resolve).is_err() {
                    let _ = resolve.call0(&JsValue::UNDEFINED);
                }
            });
            let _ = JsFuture::from(turn).await;
        }
        None => gloo_timers::future::TimeoutFuture::new(0).await,
    }
}
