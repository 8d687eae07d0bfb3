//! The SmartHole hub protocol: frames, the connection's settings and their rules, and the
//! connection state machine. The socket itself is the shim's.

pub mod client;
pub mod config;
pub mod frames;

pub use client::{HubAction, HubClient, HubStatus, ResponseKind};
pub use config::HubConfig;
pub use frames::Priority;
