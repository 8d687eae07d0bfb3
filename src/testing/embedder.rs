//! A scripted embedding server: requests to `/v1/embeddings` or `/api/embed` answered with
//! vectors made from the words of each input (each word hashed into one of the dimensions), so
//! texts sharing words are close and a test can reason about rankings; or with a queued fault
//! (an error status, NaN, another dimension). Every text embedded is recorded.

use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::replies::{BodyEnd, EmbedFault, Reply};
use super::state::FakeHost;
use crate::host_types::HttpRequest;

/// The vector the scripted server gives a text: each lower-cased word adds 1 to the dimension
/// its hash picks.
pub fn fake_embedding(text: &str, dims: usize) -> Vec<f32> {
    let mut v = vec![0f32; dims];
    for word in text.split(|c: char| !c.is_alphanumeric()).filter(|w| w.len() > 2) {
        let digest = Sha256::digest(word.to_lowercase().as_bytes());
        let at = u64::from_le_bytes([
            digest[0], digest[1], digest[2], digest[3], digest[4], digest[5], digest[6], digest[7],
        ]);
        v[(at % dims as u64) as usize] += 1.0;
    }
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm == 0.0 {
        v[0] = 1.0;
    } else {
        v.iter_mut().for_each(|x| *x /= norm);
    }
    v
}

impl FakeHost {
    /// Serves embeddings of `dims` dimensions from now on.
    pub fn serve_embeddings(&self, dims: usize) {
        let mut e = self.state.embedder.borrow_mut();
        e.dims = dims;
        e.down = false;
    }

    /// The next embeddings request gets `fault` instead of vectors.
    pub fn embeddings_fault(&self, fault: EmbedFault) {
        self.state.embedder.borrow_mut().faults.push_back(fault);
    }

    /// Every embeddings request is refused (`true`) or served again (`false`).
    pub fn embeddings_down(&self, down: bool) {
        self.state.embedder.borrow_mut().down = down;
    }

    /// Each embeddings answer takes `ms` of virtual time (a slow CPU server).
    pub fn embeddings_delay(&self, ms: u64) {
        self.state.embedder.borrow_mut().delay_ms = ms;
    }

    /// The texts embedded so far, in order (passages and queries).
    pub fn embedded_texts(&self) -> Vec<String> {
        self.state.embedder.borrow().texts.clone()
    }

    /// How long the scripted server takes to answer.
    pub(super) fn embeddings_delay_ms(&self) -> u64 {
        self.state.embedder.borrow().delay_ms
    }

    /// The scripted server's answer to an embeddings request, if it is one and the server runs.
    pub(super) fn embeddings_reply(&self, request: &HttpRequest) -> Option<Reply> {
        let ollama = request.url.ends_with("/api/embed");
        if !(ollama || request.url.ends_with("/v1/embeddings")) {
            return None;
        }
        let mut e = self.state.embedder.borrow_mut();
        if e.dims == 0 {
            return None;
        }
        if e.down {
            return Some(Reply::NetworkError);
        }
        let body: Value = serde_json::from_str(&request.body).unwrap_or(Value::Null);
        let inputs: Vec<String> = match &body["input"] {
            Value::String(s) => vec![s.clone()],
            Value::Array(items) => items.iter().filter_map(|i| i.as_str().map(str::to_owned)).collect(),
            _ => Vec::new(),
        };
        let (dims, nan) = match e.faults.pop_front() {
            Some(EmbedFault::Status(status, body)) => return Some(Reply::ErrorBody { status, body }),
            Some(EmbedFault::Unreachable) => return Some(Reply::NetworkError),
            Some(EmbedFault::Nan) => (e.dims, true),
            Some(EmbedFault::Dims(d)) => (d, false),
            None => (e.dims, false),
        };
        e.texts.extend(inputs.iter().cloned());
        let vectors: Vec<Vec<f32>> = inputs.iter().map(|t| fake_embedding(t, dims)).collect();
        let number = |x: f32| if nan { Value::String("NaN".into()) } else { json!(x) };
        let rows: Vec<Value> = vectors.iter().map(|v| Value::Array(v.iter().map(|&x| number(x)).collect())).collect();
        let answer = if ollama {
            json!({"model": body["model"], "embeddings": rows})
        } else {
            let data: Vec<Value> = rows
                .into_iter()
                .enumerate()
                .map(|(i, r)| json!({"object": "embedding", "index": i, "embedding": r}))
                .collect();
            json!({"object": "list", "data": data, "usage": {"prompt_tokens": inputs.len() * 10}})
        };
        let mut text = answer.to_string();
        if nan {
            text = text.replace("\"NaN\"", "NaN");
        }
        Some(Reply::Raw { status: 200, chunks: vec![text], end: BodyEnd::Close })
    }
}
