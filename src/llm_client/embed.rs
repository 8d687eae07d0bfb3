//! One embeddings request through the host: the texts sent in the settings' format, the
//! vectors read back and checked (as many as sent, one dimension, every number finite), every
//! failure an `LlmError` the meaning index decides on (back off, cut, pause).

use super::client::{host_error, read_all, within};
use crate::host::Host;
use crate::host_types::HttpRequest;
use crate::llm::embeddings::{failure, EmbedAs, Embedded};
use crate::llm::{ErrorKind, LlmError};
use crate::settings::Settings;

/// Longest wait for an embeddings answer: a local CPU server embeds a batch in a few seconds.
const EMBED_LIMIT_MS: u64 = 120_000;
/// Largest answer read: 64 vectors of 4,096 dimensions as JSON numbers fit.
const MAX_ANSWER_BYTES: usize = 32 * 1024 * 1024;

/// The request's URL: the format's path under the base, a base given with `/v1` taken as meant.
pub(crate) fn embeddings_url(settings: &Settings) -> String {
    let base = settings.embeddings_base_url.trim().trim_end_matches('/');
    let path = settings.embeddings_format.path();
    match base.strip_suffix("/v1") {
        Some(root) if path.starts_with("/v1/") => format!("{root}{path}"),
        _ => format!("{base}{path}"),
    }
}

/// Embeds `inputs` (in order) with the settings' embedding server.
pub(crate) async fn embed<H: Host>(
    host: &H,
    settings: &Settings,
    inputs: &[String],
    as_: EmbedAs,
) -> Result<Embedded, LlmError> {
    let format = settings.embeddings_format;
    // Voyage AI ranks better told a question from a passage; other servers refuse the field.
    let input_type = settings.embeddings_base_url.contains("voyageai.com");
    let mut headers = vec![("content-type".to_owned(), "application/json".to_owned())];
    let key = settings.embeddings_api_key.trim();
    if !key.is_empty() {
        headers.push(("authorization".to_owned(), format!("Bearer {key}")));
    }
    let request = HttpRequest {
        method: "POST".to_owned(),
        url: embeddings_url(settings),
        headers,
        body: format.request_body(&settings.embeddings_model, inputs, as_, input_type),
        stream: false,
    };
    let answer = async {
        let mut response = host.http(request).await.map_err(host_error)?;
        let body = read_all(&mut response.body, MAX_ANSWER_BYTES).await?;
        let text = String::from_utf8_lossy(&body);
        if !(200..300).contains(&response.status) {
            let mut error = failure(response.status, &text);
            error.retry_after_ms = crate::llm::retry::parse_retry_after(
                response.header("retry-after-ms"),
                response.header("retry-after"),
                host.now_ms(),
            );
            return Err(error);
        }
        let embedded = format.parse_answer(&text, inputs.len())?;
        if embedded.vectors.iter().flatten().any(|x| !x.is_finite()) {
            return Err(LlmError::new(ErrorKind::InvalidResponse, "embeddings answer: a vector holds NaN or infinity"));
        }
        Ok(embedded)
    };
    within(host, answer, EMBED_LIMIT_MS, &mut |_| {}).await.unwrap_or_else(|| {
        Err(LlmError::new(ErrorKind::Network, format!("no embeddings answer in {} s", EMBED_LIMIT_MS / 1000)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::EmbeddingsFormat;

    #[test]
    fn the_url_takes_the_base_with_or_without_v1() {
        let mut s = Settings { embeddings_base_url: "http://127.0.0.1:8093/".into(), ..Settings::default() };
        assert_eq!(embeddings_url(&s), "http://127.0.0.1:8093/v1/embeddings");
        s.embeddings_base_url = "https://api.openai.com/v1".into();
        assert_eq!(embeddings_url(&s), "https://api.openai.com/v1/embeddings");
        s.embeddings_base_url = "http://localhost:11434".into();
        s.embeddings_format = EmbeddingsFormat::Ollama;
        assert_eq!(embeddings_url(&s), "http://localhost:11434/api/embed");
    }
}
