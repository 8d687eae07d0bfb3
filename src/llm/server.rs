//! How a model server is spoken to: its wire format (Anthropic Messages or OpenAI Chat
//! Completions) and how the API key goes with a request. The settings hold both (and re-export
//! them), the provider presets fill them, the client follows them.

use serde::{Deserialize, Serialize};

/// The wire format of the model server: Anthropic's Messages API, which Anthropic, Ollama,
/// llama.cpp and LM Studio speak, or OpenAI's Chat Completions, which OpenAI, Gemini and most
/// gateways speak (without prompt caching or PDFs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ApiFormat {
    #[default]
    Anthropic,
    Openai,
}

impl ApiFormat {
    /// Every format, in the order the settings list them.
    pub(crate) const ALL: [ApiFormat; 2] = [ApiFormat::Anthropic, ApiFormat::Openai];

    /// Its name in settings documents (serde's, checked by a test).
    pub(crate) fn name(self) -> &'static str {
        match self {
            ApiFormat::Anthropic => "anthropic",
            ApiFormat::Openai => "openai",
        }
    }
}

/// How the API key goes with a request: Anthropic's `x-api-key`, `Authorization: Bearer` (OpenAI,
/// Ollama's cloud, gateways), or not at all (local servers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum AuthStyle {
    #[default]
    #[serde(rename = "x-api-key")]
    XApiKey,
    #[serde(rename = "bearer")]
    Bearer,
    #[serde(rename = "none")]
    None,
}

impl AuthStyle {
    /// Every style, in the order the settings list them.
    pub(crate) const ALL: [AuthStyle; 3] = [AuthStyle::XApiKey, AuthStyle::Bearer, AuthStyle::None];

    /// Its name in settings documents (serde's, checked by a test).
    pub(crate) fn name(self) -> &'static str {
        match self {
            AuthStyle::XApiKey => "x-api-key",
            AuthStyle::Bearer => "bearer",
            AuthStyle::None => "none",
        }
    }
}
