//! The SmartHole hub protocol, sans I/O: frames in and out (`frames.rs`), the connection's
//! settings and their rules (`config.rs`), the connection state machine (`client/`), how answers
//! are paced and titled on the hub's screen (`display.rs`) and written as a notification's text
//! (`bodies.rs`), and which message ids the hub still knows (`memory.rs`). The socket itself is
//! the shim's; the processor carries out the machine's actions (`processor/hub.rs`).

pub(crate) mod bodies;
pub(crate) mod client;
pub(crate) mod config;
pub(crate) mod display;
pub(crate) mod frames;
pub(crate) mod memory;

pub(crate) use client::{HubAction, HubClient, HubStatus, ResponseKind};
pub(crate) use frames::Priority;
