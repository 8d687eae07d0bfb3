//! The settings the core runs with. The shim loads them from `data.json` (and the API key from
//! secret storage) and hands them over; the core validates them and never persists them.
//!
//! `values.rs` ([`Settings`], defaults, what is derived), `entries.rs` (an agent API context, an
//! integration), `validate.rs` (checking, reading from JSON, [`SettingsError`]),
//! `field_names.rs` (the field names of hand-written settings documents: the unknown ones, and
//! the name probably meant), `plugin_data.rs` (which fields of the plugin's `data.json` are used
//! and which are set aside). The model server's wire format and auth style are `llm`'s,
//! re-exported here.

mod entries;
mod field_names;
mod plugin_data;
mod validate;
mod values;

pub use crate::llm::{ApiFormat, AuthStyle, EmbeddingsFormat};
pub use entries::{AgentContext, McpServerConfig};
pub use field_names::{unknown_fields, SettingsDocument, UnknownField};
pub use plugin_data::{split_plugin_data, PluginDataSplit};
pub(crate) use validate::SettingsError;
pub use values::Settings;
/// The settings show this list (the wasm binding's `approvalTools`).
#[cfg(target_arch = "wasm32")]
pub(crate) use values::APPROVAL_TOOLS;
