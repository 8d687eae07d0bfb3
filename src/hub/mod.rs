//! The SmartHole hub protocol: frames, the connection's settings and their rules, and the
//! connection state machine, how answers are paced and titled on the hub's screen, and which
//! message ids the hub still knows. The socket itself is the shim's.

pub(crate) mod bodies;
pub(crate) mod client;
pub(crate) mod config;
pub(crate) mod display;
pub(crate) mod frames;
pub(crate) mod memory;

pub(crate) use client::{HubAction, HubClient, HubStatus, ResponseKind};
pub(crate) use frames::Priority;
