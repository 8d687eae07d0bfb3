//! The embedding providers' wire formats: the OpenAI-compatible `/v1/embeddings` (OpenAI, Voyage
//! AI, LM Studio, llama.cpp's server, Ollama's compatible endpoint) and Ollama's own
//! `/api/embed`. Pure: the body to send, and the vectors (or the failure) read from the answer;
//! the call itself is the host's.
use base64::Engine;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::error::{said, ErrorKind, LlmError};

/// Which format an embedding server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EmbeddingsFormat {
    /// `POST {base}/v1/embeddings`.
    #[default]
    #[serde(rename = "openai")]
    OpenAi,
    /// `POST {base}/api/embed`.
    Ollama,
}

/// What a text is embedded as: some models (Voyage's) embed a question and a passage
/// differently, and rank better when told which.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EmbedAs {
    Passage,
    Query,
}

/// The vectors of one request, in the order of its inputs, and what it consumed.
#[derive(Debug, PartialEq)]
pub(crate) struct Embedded {
    pub(crate) vectors: Vec<Vec<f32>>,
    pub(crate) tokens: u64,
}

impl EmbeddingsFormat {
    /// The request's path under the base URL.
    pub(crate) fn path(self) -> &'static str {
        match self {
            EmbeddingsFormat::OpenAi => "/v1/embeddings",
            EmbeddingsFormat::Ollama => "/api/embed",
        }
    }

    /// The request body. `input_type` only where the provider takes it (Voyage AI): OpenAI
    /// refuses fields it does not know.
    pub(crate) fn request_body(self, model: &str, inputs: &[String], as_: EmbedAs, input_type: bool) -> String {
        let body = match self {
            EmbeddingsFormat::OpenAi => {
                let mut body = json!({ "model": model, "input": inputs, "encoding_format": "float" });
                if input_type {
                    body["input_type"] = json!(if as_ == EmbedAs::Query { "query" } else { "document" });
                }
                body
            }
            // Never cut silently: a text over the model's context is refused, and cut by the index.
            EmbeddingsFormat::Ollama => json!({ "model": model, "input": inputs, "truncate": false }),
        };
        body.to_string()
    }

    /// The vectors of a 2xx answer, checked against the number of inputs sent.
    pub(crate) fn parse_answer(self, body: &str, inputs: usize) -> Result<Embedded, LlmError> {
        let value: Value = serde_json::from_str(body).map_err(|e| invalid(format!("not JSON: {e}")))?;
        let (vectors, tokens) = match self {
            EmbeddingsFormat::OpenAi => {
                let data = value["data"].as_array().ok_or_else(|| invalid("no \"data\" list".into()))?;
                let mut slots: Vec<Option<Vec<f32>>> = vec![None; data.len()];
                for (at, item) in data.iter().enumerate() {
                    let index = item["index"].as_u64().map_or(at, |i| i as usize);
                    let vector = vector(&item["embedding"])?;
                    *slots.get_mut(index).ok_or_else(|| invalid(format!("index {index} out of range")))? = Some(vector);
                }
                let vectors = slots
                    .into_iter()
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| invalid("an index is missing".into()))?;
                (vectors, value["usage"]["prompt_tokens"].as_u64().unwrap_or(0))
            }
            EmbeddingsFormat::Ollama => {
                let list = value["embeddings"].as_array().ok_or_else(|| invalid("no \"embeddings\" list".into()))?;
                let vectors = list.iter().map(vector).collect::<Result<Vec<_>, _>>()?;
                (vectors, value["prompt_eval_count"].as_u64().unwrap_or(0))
            }
        };
        if vectors.len() != inputs {
            return Err(invalid(format!("{} vectors for {inputs} inputs", vectors.len())));
        }
        if let Some(first) = vectors.first() {
            if first.is_empty() || vectors.iter().any(|v| v.len() != first.len()) {
                return Err(invalid("vectors of different or no dimensions".into()));
            }
        }
        Ok(Embedded { vectors, tokens })
    }
}

/// The failure of a non-2xx answer. A text longer than the model takes is `TooLarge` and not
/// retried as sent (servers say it with 400, 413 or 500): the index cuts it and tries again.
pub(crate) fn failure(status: u16, body: &str) -> LlmError {
    let value: Value = serde_json::from_str(body).unwrap_or(Value::Null);
    let message = match &value["error"] {
        Value::String(text) => text.clone(),
        error => error["message"].as_str().map_or_else(|| body.chars().take(300).collect(), str::to_owned),
    };
    let error_type = value["error"]["type"].as_str();
    let lower = message.to_ascii_lowercase();
    let too_long = ["too large", "too long", "exceed", "context length", "maximum context", "input length"]
        .iter()
        .any(|words| lower.contains(words));
    let mut error = if too_long && matches!(status, 400 | 413 | 500) {
        LlmError { should_retry: Some(false), ..LlmError::new(ErrorKind::TooLarge, format!("{status}: {message}")) }
    } else {
        LlmError::from_status(status, error_type, format!("{status}: {message}"))
    };
    error.server_said = said(&message);
    error
}

/// One vector: a list of numbers, or base64 of little-endian f32s.
fn vector(value: &Value) -> Result<Vec<f32>, LlmError> {
    match value {
        Value::Array(items) => items
            .iter()
            .map(|x| x.as_f64().map(|x| x as f32).ok_or_else(|| invalid("a vector holds a non-number".into())))
            .collect(),
        Value::String(text) => {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(text)
                .map_err(|e| invalid(format!("bad base64 vector: {e}")))?;
            if bytes.len() % 4 != 0 {
                return Err(invalid("a base64 vector is not whole f32s".into()));
            }
            Ok(bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect())
        }
        _ => Err(invalid("no \"embedding\"".into())),
    }
}

fn invalid(detail: String) -> LlmError {
    LlmError::new(ErrorKind::InvalidResponse, format!("embeddings answer: {detail}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_say_what_each_format_expects() {
        let inputs = ["a".to_owned(), "b".to_owned()];
        let openai: Value =
            serde_json::from_str(&EmbeddingsFormat::OpenAi.request_body("m", &inputs, EmbedAs::Query, false)).unwrap();
        assert_eq!(openai, json!({"model": "m", "input": ["a", "b"], "encoding_format": "float"}));
        let voyage: Value =
            serde_json::from_str(&EmbeddingsFormat::OpenAi.request_body("m", &inputs, EmbedAs::Query, true)).unwrap();
        assert_eq!(voyage["input_type"], "query");
        let ollama: Value =
            serde_json::from_str(&EmbeddingsFormat::Ollama.request_body("m", &inputs, EmbedAs::Passage, true)).unwrap();
        assert_eq!(ollama, json!({"model": "m", "input": ["a", "b"], "truncate": false}));
        assert_eq!(EmbeddingsFormat::Ollama.path(), "/api/embed");
    }

    #[test]
    fn answers_are_read_in_input_order_as_numbers_or_base64() {
        let b64 =
            base64::engine::general_purpose::STANDARD.encode([1.5f32.to_le_bytes(), (-2.0f32).to_le_bytes()].concat());
        let body = json!({"data": [{"index": 1, "embedding": b64}, {"index": 0, "embedding": [0.25, 0.5]}], "usage": {"prompt_tokens": 7}});
        let got = EmbeddingsFormat::OpenAi.parse_answer(&body.to_string(), 2).unwrap();
        assert_eq!(got, Embedded { vectors: vec![vec![0.25, 0.5], vec![1.5, -2.0]], tokens: 7 });
        let ollama = json!({"embeddings": [[1.0, 0.0]], "prompt_eval_count": 3}).to_string();
        assert_eq!(EmbeddingsFormat::Ollama.parse_answer(&ollama, 1).unwrap().tokens, 3);
    }

    #[test]
    fn malformed_answers_are_named() {
        let short = json!({"data": [{"index": 0, "embedding": [1.0]}]}).to_string();
        let e = EmbeddingsFormat::OpenAi.parse_answer(&short, 2).unwrap_err();
        assert_eq!(e.kind, ErrorKind::InvalidResponse);
        assert!(e.detail.contains("1 vectors for 2 inputs"));
        let ragged = json!({"embeddings": [[1.0], [1.0, 2.0]]}).to_string();
        assert!(EmbeddingsFormat::Ollama.parse_answer(&ragged, 2).is_err());
        assert!(EmbeddingsFormat::OpenAi.parse_answer("<html>", 1).is_err());
        let gap = json!({"data": [{"index": 3, "embedding": [1.0]}]}).to_string();
        assert!(EmbeddingsFormat::OpenAi.parse_answer(&gap, 1).is_err());
    }

    #[test]
    fn an_input_over_the_models_context_is_too_large_whatever_the_status() {
        let llama = r#"{"error":{"code":500,"message":"input (602 tokens) is too large to process. increase the physical batch size (current batch size: 512)","type":"server_error"}}"#;
        let e = failure(500, llama);
        assert_eq!(e.kind, ErrorKind::TooLarge);
        assert!(!e.retryable() && e.refused_as_sent());
        let ollama = r#"{"error":"the input length exceeds the context length"}"#;
        assert_eq!(failure(400, ollama).kind, ErrorKind::TooLarge);
        assert_eq!(failure(429, r#"{"error":{"message":"slow down"}}"#).kind, ErrorKind::RateLimit);
        assert_eq!(failure(401, "no").kind, ErrorKind::Auth);
        assert_eq!(failure(500, r#"{"error":{"message":"boom"}}"#).kind, ErrorKind::Server);
    }
}
