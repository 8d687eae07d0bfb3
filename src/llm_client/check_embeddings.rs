//! The connection check's embeddings lines (issue 35): when an embedding server is set, two short
//! texts embedded in one request, reported as reachable, the vectors' dimension and the request's
//! time — or one line saying which setting to change (base URL, model, key, format).

use super::check::CheckLine;
use super::embed::{embed, embeddings_url};
use crate::host::Host;
use crate::llm::embeddings::EmbedAs;
use crate::llm::{ErrorKind, LlmError};
use crate::settings::Settings;

/// The texts embedded: short, plain, in English (every model takes them).
const PROBES: [&str; 2] = ["SmartHole connection check: a short note about apples.", "A second short text."];

fn line(step: &str, ok: bool, text: String) -> CheckLine {
    CheckLine { step: step.to_owned(), ok, optional: false, text }
}

/// The embeddings lines, none when search by meaning is off (no embeddings base URL).
pub(crate) async fn embeddings_lines<H: Host>(host: &H, settings: &Settings) -> Vec<CheckLine> {
    if settings.embeddings_base_url.trim().is_empty() {
        return Vec::new();
    }
    let inputs: Vec<String> = PROBES.iter().map(|p| (*p).to_owned()).collect();
    let started = host.now_ms();
    match embed(host, settings, &inputs, EmbedAs::Passage).await {
        Ok(embedded) => {
            let ms = host.now_ms().saturating_sub(started);
            let dims = embedded.vectors.first().map_or(0, Vec::len);
            vec![
                line(
                    "embeddings",
                    true,
                    format!(
                        "the embedding server at {} answers with {}",
                        embeddings_url(settings),
                        settings.embeddings_model
                    ),
                ),
                line("embeddings_dimension", true, format!("vectors of {dims} dimensions")),
                line("embeddings_speed", true, format!("{} texts embedded in {ms} ms", inputs.len())),
            ]
        }
        Err(error) => vec![line("embeddings", false, advice(&error, settings))],
    }
}

/// What to change for a failed embeddings request.
fn advice(error: &LlmError, settings: &Settings) -> String {
    let url = embeddings_url(settings);
    let model = &settings.embeddings_model;
    match error.kind {
        ErrorKind::Auth | ErrorKind::Permission => {
            format!("the embedding server refused the key ({error}): check the embeddings API key")
        }
        ErrorKind::NotFound => format!(
            "{url} has no model {model:?} or no such endpoint ({error}): check the embeddings model (pulled, loaded, spelled as the server names it), the base URL and the format ({})",
            format_name(settings)
        ),
        ErrorKind::Network => {
            format!("cannot reach {url} ({error}): check the embeddings base URL and that the server is running")
        }
        ErrorKind::InvalidResponse => format!(
            "{url} did not answer with embeddings ({error}): check the base URL and the format ({})",
            format_name(settings)
        ),
        _ => format!("the embedding request to {url} failed ({error}): check the embeddings settings"),
    }
}

fn format_name(settings: &Settings) -> &'static str {
    match settings.embeddings_format {
        crate::llm::EmbeddingsFormat::OpenAi => "openai",
        crate::llm::EmbeddingsFormat::Ollama => "ollama",
    }
}
