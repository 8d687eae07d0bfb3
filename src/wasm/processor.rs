//! The exported `MessageProcessor` (seed 003's names, camelCase): its construction over the
//! JS-backed host, and the pipeline's own calls — initialize, process, reprocess, Stop, stale
//! questions, settings, dispose — with the seed's callbacks. The other calls of the same class are
//! written beside the topic they serve (conversations.rs, attachments.rs, review.rs, links.rs,
//! settings.rs), each one hop to the core.

use std::rc::Rc;

use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;

use super::callbacks::Callbacks;
use super::convert::{from_js, js_error, promise, to_js};
use super::host_object::JsHostObject;
use super::js_host::JsHost;
use crate::{MessageProcessor, Settings};

/// Settings from JS (`undefined` or `null`: the defaults), checked by the core.
pub(super) fn settings_from(value: JsValue) -> Result<Settings, JsValue> {
    let json: serde_json::Value = if value.is_undefined() || value.is_null() {
        serde_json::Value::Object(Default::default())
    } else {
        match from_js(&value) {
            v @ serde_json::Value::Object(_) => v,
            _ => return Err(js_error("settings are not valid: expected an object")),
        }
    };
    Settings::from_json(json).map_err(js_error)
}

/// The message processor, as the shim sees it.
#[wasm_bindgen(js_name = MessageProcessor)]
pub struct WasmMessageProcessor {
    pub(super) core: MessageProcessor<JsHost>,
    pub(super) callbacks: Rc<Callbacks>,
}

#[wasm_bindgen(js_class = MessageProcessor)]
impl WasmMessageProcessor {
    /// `new MessageProcessor(host, settings)`; throws on invalid settings.
    #[wasm_bindgen(constructor)]
    pub fn new(
        host: JsHostObject,
        #[wasm_bindgen(unchecked_param_type = "CoreSettings")] settings: JsValue,
    ) -> Result<WasmMessageProcessor, JsValue> {
        let callbacks = Rc::new(Callbacks::default());
        let core = MessageProcessor::new(JsHost::new(host, Rc::clone(&callbacks)), settings_from(settings)?)
            .map_err(js_error)?;
        Ok(WasmMessageProcessor { core, callbacks })
    }

    /// Loads the history and the inbox state; rejects when the data folder cannot be read.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn initialize(&self) -> Promise {
        let core = self.core.clone();
        promise(async move { core.initialize().await })
    }

    /// Processes a message; always resolves, with a failed result for bad input.
    #[wasm_bindgen(unchecked_return_type = "Promise<ProcessResult>")]
    pub fn process(&self, #[wasm_bindgen(unchecked_param_type = "RoutedMessage")] message: JsValue) -> Promise {
        let raw = from_js(&message);
        let work = self.core.process(raw);
        promise(async move { Ok::<_, String>(work.await) })
    }

    /// A message the user typed, with what they attached: made with the id (`direct-…`) and
    /// time the core gives it and queued, in one call. Returns the message, for the view to draw
    /// at once (and to send again for Retry); its result arrives as the `response` event, as
    /// every message's does, whatever its source.
    #[wasm_bindgen(unchecked_return_type = "RoutedMessage")]
    pub fn send(
        &self,
        text: &str,
        #[wasm_bindgen(unchecked_optional_param_type = "Attachment[]")] attachments: JsValue,
    ) -> JsValue {
        let message = to_js(&self.core.new_message(text));
        if !attachments.is_undefined() && !attachments.is_null() {
            // Set on the JS object the core made: a message that cannot carry it is refused by
            // process() below, as a result like any other.
            let _ = js_sys::Reflect::set(&message, &JsValue::from_str("attachments"), &attachments);
        }
        // Run as process() runs a message (one copy of that code in the module); its promise is
        // not needed.
        let _ = self.process(message.clone());
        message
    }

    /// Finishes what a previous session left in the inbox.
    #[wasm_bindgen(js_name = reprocessPending, unchecked_return_type = "Promise<ReprocessSummary>")]
    pub fn reprocess_pending(&self) -> Promise {
        let core = self.core.clone();
        promise(async move { core.reprocess_pending().await })
    }

    /// Stops the message in flight; returns whether there was one.
    #[wasm_bindgen(js_name = cancelCurrentProcessing)]
    pub fn cancel_current_processing(&self) -> bool {
        self.core.cancel_current_processing()
    }

    /// Drops pending questions older than the state timeout; resolves with the ids of the
    /// conversations that had one.
    #[wasm_bindgen(js_name = cleanupStaleStates, unchecked_return_type = "Promise<string[]>")]
    pub fn cleanup_stale_states(&self) -> Promise {
        let core = self.core.clone();
        promise(async move { core.cleanup_stale_states().await })
    }

    /// Stops the message in flight and every background task (the plugin unloading).
    pub fn dispose(&self) {
        self.core.dispose();
    }

    /// Disposes and frees this handle without freeing the processor's state: only for an
    /// instance of the core that is thrown away with it (the plugin's own, at unload or after a
    /// trap), where freeing a large index would hold the event loop for nothing.
    pub fn discard(self) {
        self.core.discard();
    }

    /// Replaces the settings; throws on invalid ones.
    #[wasm_bindgen(js_name = updateSettings)]
    pub fn update_settings(
        &self,
        #[wasm_bindgen(unchecked_param_type = "CoreSettings")] settings: JsValue,
    ) -> Result<(), JsValue> {
        self.core.update_settings(settings_from(settings)?).map_err(js_error)
    }

    /// The id of the message in flight.
    #[wasm_bindgen(getter, js_name = currentMessageId)]
    pub fn current_message_id(&self) -> Option<String> {
        self.core.current_message_id()
    }

    /// Messages waiting behind the one in flight.
    #[wasm_bindgen(getter)]
    pub fn queued(&self) -> usize {
        self.core.queued()
    }

    /// `onResponse((messageId, response, toolsUsed) => …)`.
    #[wasm_bindgen(js_name = onResponse)]
    pub fn on_response(
        &self,
        #[wasm_bindgen(
            unchecked_param_type = "(messageId: string, response: string | undefined, toolsUsed: string[]) => void"
        )]
        callback: Function,
    ) {
        self.callbacks.response.borrow_mut().push(callback);
    }

    /// `onMessageReceived((message) => …)`, after the inbox write.
    #[wasm_bindgen(js_name = onMessageReceived)]
    pub fn on_message_received(
        &self,
        #[wasm_bindgen(unchecked_param_type = "(message: RoutedMessage) => void")] callback: Function,
    ) {
        self.callbacks.received.borrow_mut().push(callback);
    }

    /// `onAgentMessage((message) => …)` for `send_message`.
    #[wasm_bindgen(js_name = onAgentMessage)]
    pub fn on_agent_message(
        &self,
        #[wasm_bindgen(unchecked_param_type = "(message: AgentMessage) => void")] callback: Function,
    ) {
        self.callbacks.agent.borrow_mut().push(callback);
    }

    /// `onRetrospection((result) => …)` after a conversation's retrospection is written.
    #[wasm_bindgen(js_name = onRetrospection)]
    pub fn on_retrospection(
        &self,
        #[wasm_bindgen(unchecked_param_type = "(result: { conversationTitle: string; content: string }) => void")]
        callback: Function,
    ) {
        self.callbacks.retrospection.borrow_mut().push(callback);
    }
}
