//! Provider presets (issue 24): what a user picks in the settings instead of knowing each
//! server's base URL, wire format and auth style. A preset only fills those three fields; each
//! stays editable, and "custom" changes nothing.

use serde::Serialize;

use super::server::{ApiFormat, AuthStyle};

/// One provider's connection defaults.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderPreset {
    pub id: &'static str,
    pub name: &'static str,
    pub base_url: &'static str,
    pub api_format: ApiFormat,
    pub auth_style: AuthStyle,
    /// What the user should know: where the key comes from, what to start, what the format lacks.
    pub note: &'static str,
}

/// The presets, in the order the settings list them.
pub fn provider_presets() -> Vec<ProviderPreset> {
    use ApiFormat::{Anthropic, Openai};
    use AuthStyle::{Bearer, None as NoKey, XApiKey};
    let preset = |id, name, base_url, api_format, auth_style, note| ProviderPreset {
        id,
        name,
        base_url,
        api_format,
        auth_style,
        note,
    };
    vec![
        preset(
            "anthropic",
            "Anthropic",
            "https://api.anthropic.com",
            Anthropic,
            XApiKey,
            "An API key from the Anthropic console. Prompt caching on.",
        ),
        preset(
            "ollama",
            "Ollama (this computer)",
            "http://127.0.0.1:11434",
            Anthropic,
            NoKey,
            "Ollama 0.14 or later speaks the Messages API; no key. Pick a model you have pulled.",
        ),
        preset(
            "ollama-cloud",
            "Ollama cloud",
            "https://ollama.com",
            Anthropic,
            Bearer,
            "An API key from your Ollama account, sent as a bearer token.",
        ),
        preset(
            "lm-studio",
            "LM Studio",
            "http://127.0.0.1:1234/v1",
            Openai,
            NoKey,
            "Start LM Studio's server; no key. Chat Completions: no prompt caching, no PDFs.",
        ),
        preset(
            "llama-cpp",
            "llama.cpp server",
            "http://127.0.0.1:8080",
            Anthropic,
            NoKey,
            "llama-server serves the Messages API; start it with --jinja for tool calls.",
        ),
        preset(
            "openai",
            "OpenAI",
            "https://api.openai.com/v1",
            Openai,
            Bearer,
            "An OpenAI API key. Chat Completions: no prompt caching marks, no PDFs.",
        ),
        preset("custom", "Custom", "", Anthropic, XApiKey, "Set the base URL, format and auth style yourself."),
    ]
}
