//! The JS API: `MessageProcessor` with seed 003's method names, over the JS-backed host, and the
//! TypeScript declarations of what crosses (cfg wasm32 only).
//!
//! Each exported call goes to the core in one hop; the class's calls are written by topic:
//! processor.rs (the class, its construction and the pipeline's calls, the seed's callbacks),
//! chat_view.rs (what is in flight, Stop's answer, the chat opened), conversations.rs,
//! attachments.rs, review.rs (approvals and undo), links.rs (hub, vault changes, agent API),
//! agent.rs (the ACP agent process's output and end), settings.rs, platform.rs (what the device
//! lets the plugin offer) and tool_words.rs (a tool call in words, for replay); free functions
//! giving the hosts the core's rules they apply too (protected folders, data.json's fields),
//! rules.rs. The host the core runs on is `JsHost` (js_host.rs) over the object declared in
//! host_object.rs, its errors made in js_errors.rs; values cross as JSON
//! (convert.rs); the seed's callbacks are fed by the host's `emit` (callbacks.rs). The only
//! files that call `js_sys`.
//!
//! The TypeScript types of the values (settings, messages, results, events, the host) are real
//! declaration files, `types/*.d.ts`, emitted into `pkg/smarthole_agent.d.ts` below, beside the
//! class wasm-bindgen declares from the signatures here; scripts/contract.mjs checks them
//! against the core's JSON.

mod agent;
mod agent_leftovers;
mod agent_tools;
mod attachments;
mod callbacks;
mod chat_view;
mod conversations;
mod convert;
mod event_turn;
mod host_object;
mod js_errors;
mod js_host;
mod links;
mod memory_steps;
mod platform;
mod processor;
mod review;
mod rules;
mod settings;
mod tool_words;

pub use host_object::JsHostObject;
pub use processor::WasmMessageProcessor;

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_MESSAGES: &str = include_str!("types/messages.d.ts");
#[wasm_bindgen(typescript_custom_section)]
const TS_SETTINGS: &str = include_str!("types/settings.d.ts");
#[wasm_bindgen(typescript_custom_section)]
const TS_CONVERSATIONS: &str = include_str!("types/conversations.d.ts");
#[wasm_bindgen(typescript_custom_section)]
const TS_APPROVALS: &str = include_str!("types/approvals.d.ts");
#[wasm_bindgen(typescript_custom_section)]
const TS_EVENTS: &str = include_str!("types/events.d.ts");
#[wasm_bindgen(typescript_custom_section)]
const TS_HOST: &str = include_str!("types/host.d.ts");
#[wasm_bindgen(typescript_custom_section)]
const TS_CHAT_VIEW: &str = include_str!("types/chat_view.d.ts");
#[wasm_bindgen(typescript_custom_section)]
const TS_PLATFORM: &str = include_str!("types/platform.d.ts");
