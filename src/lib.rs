//! SmartHole Agent core: the message pipeline of an Obsidian AI agent, written once in Rust and
//! run in WebAssembly inside Obsidian (and Node for the headless host), natively in tests.
//!
//! The core decides; the host does. Everything that touches the world goes through
//! [`host::Host`]; everything else is plain, tested Rust.

// Nothing that came from outside may panic the core (a panic traps the wasm module).
#![cfg_attr(not(test), deny(clippy::unwrap_used))]

pub mod agent;
pub mod api;
pub mod approval;
pub mod conversation;
pub mod event;
pub mod host;
pub mod host_types;
pub mod hub;
pub mod ids;
pub mod inbox;
pub mod journal;
pub mod lean;
pub mod llm;
pub mod mcp;
pub mod message;
pub mod processor;
pub mod prompt;
pub mod retrospection;
pub mod schedule;
pub mod settings;
pub mod summary;
pub mod time;
pub mod tools;
pub mod vault;

#[cfg(any(test, feature = "testing"))]
pub mod testing;

/// The JS API (wasm32 only).
#[cfg(target_arch = "wasm32")]
pub mod wasm;

pub use event::Event;
pub use host::Host;
pub use message::{ProcessResult, RoutedMessage};
pub use processor::MessageProcessor;
pub use settings::Settings;
