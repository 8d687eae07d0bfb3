//! The seed's `on…` callbacks (`onResponse`, `onMessageReceived`, `onAgentMessage`,
//! `onRetrospection`): registered through the exported API, fed by the host's `emit`. Apart from
//! both so that neither depends on the other.

use std::cell::RefCell;

use js_sys::Function;
use wasm_bindgen::prelude::*;

use super::convert::to_js;
use crate::event::Event;

/// The seed's callbacks, by kind.
#[derive(Default)]
pub struct Callbacks {
    pub(super) response: RefCell<Vec<Function>>,
    pub(super) received: RefCell<Vec<Function>>,
    pub(super) agent: RefCell<Vec<Function>>,
    pub(super) retrospection: RefCell<Vec<Function>>,
}

impl Callbacks {
    /// Sends an event to the callbacks that want it.
    pub(super) fn dispatch(&self, event: &Event, value: JsValue) {
        let get = |field: &str| js_sys::Reflect::get(&value, &JsValue::from_str(field)).unwrap_or(JsValue::UNDEFINED);
        match event {
            Event::Response { result, .. } => {
                let response = result.response.as_deref().map(JsValue::from_str).unwrap_or(JsValue::UNDEFINED);
                let tools = result.tools_used.as_ref().map(to_js).unwrap_or_else(|| to_js(&Vec::<String>::new()));
                deliver(self.response.borrow().clone(), vec![JsValue::from_str(&result.message_id), response, tools]);
            }
            Event::MessageReceived { .. } => deliver(self.received.borrow().clone(), vec![get("message")]),
            Event::AgentMessage { .. } => deliver(self.agent.borrow().clone(), vec![value]),
            Event::Retrospection { conversation_title, content, .. } => {
                let result = to_js(&serde_json::json!({"conversationTitle": conversation_title, "content": content}));
                deliver(self.retrospection.borrow().clone(), vec![result]);
            }
            _ => {}
        }
    }
}

/// Runs the seed's callbacks for an event on a microtask, after every borrow of the current
/// call has ended, so a callback may call back into the processor.
pub fn deliver(callbacks: Vec<Function>, args: Vec<JsValue>) {
    if callbacks.is_empty() {
        return;
    }
    wasm_bindgen_futures::spawn_local(async move {
        for f in &callbacks {
            call_quietly(f, &args);
        }
    });
}

fn call_quietly(f: &Function, args: &[JsValue]) {
    let array: js_sys::Array = args.iter().collect();
    // A throwing UI callback must not break the pipeline.
    let _ = f.apply(&JsValue::NULL, &array);
}
