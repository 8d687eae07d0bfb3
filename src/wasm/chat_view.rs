//! What the chat view is told so that it only draws (`processor/chat_view.rs`): the messages in
//! flight, Stop's synchronous answer, and the chat's opening line recorded by the core.

use js_sys::Promise;
use wasm_bindgen::prelude::*;

use super::convert::{promise, to_js};
use super::processor::WasmMessageProcessor;

#[wasm_bindgen(js_class = MessageProcessor)]
impl WasmMessageProcessor {
    /// The messages accepted and not answered yet, oldest first (the `in_flight` event's list).
    #[wasm_bindgen(js_name = messagesInFlight, unchecked_return_type = "InFlightMessage[]")]
    pub fn messages_in_flight(&self) -> JsValue {
        to_js(&self.core.messages_in_flight())
    }

    /// Stop, answered at once: the message stopped and what is still in flight, so the view is
    /// idle in the same frame (the cancelled result follows as the `response` event).
    #[wasm_bindgen(unchecked_return_type = "StopAnswer")]
    pub fn stop(&self) -> JsValue {
        to_js(&self.core.stop())
    }

    /// The chat view opened: the core records the hidden line of UC014; resolves with the
    /// conversation it went to.
    #[wasm_bindgen(js_name = chatOpened, unchecked_return_type = "Promise<string>")]
    pub fn chat_opened(&self) -> Promise {
        let core = self.core.clone();
        promise(async move { core.chat_opened().await })
    }
}
