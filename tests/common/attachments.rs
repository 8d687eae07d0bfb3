//! Helpers of the attachment tests: files made to measure (a PNG whose chunks are whole, a
//! PDF), attaching, a message carrying attachments, and what a request sent.

use base64::Engine;
use serde_json::{json, Value};
use smarthole_agent::testing::FakeHost;
use smarthole_agent::{attach_vault, AttachError, Attachment, Settings};

use super::direct;

/// A PNG whose chunks are whole (IHDR, an IDAT of `filler` bytes, IEND); its pixels are not a
/// real image (nothing here decodes them).
pub fn png(width: u32, height: u32, filler: usize) -> Vec<u8> {
    let mut b = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
    b.extend(width.to_be_bytes());
    b.extend(height.to_be_bytes());
    b.extend([8, 6, 0, 0, 0, 0, 0, 0, 0]);
    b.extend((filler as u32).to_be_bytes());
    b.extend(b"IDAT");
    b.extend((0..filler).map(|i| (i * 7 % 251) as u8));
    b.extend([0, 0, 0, 0]);
    b.extend(b"\0\0\0\0IEND\xae\x42\x60\x82");
    b
}

pub const PDF: &[u8] = b"%PDF-1.7\n1 0 obj << /Type /Pages /Count 1 >>\n2 0 obj << /Type /Page >>\n%%EOF";

pub fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

pub fn attach(host: &FakeHost, settings: &Settings, path: &str) -> Result<Attachment, AttachError> {
    host.run(attach_vault(host, settings, path))
}

pub fn with_attachments(id: &str, text: &str, attachments: &[Attachment]) -> Value {
    let mut message = direct(id, text);
    message["attachments"] = json!(attachments);
    message
}

/// The newest user message of a request, as blocks.
pub fn last_user_blocks(body: &Value) -> Vec<Value> {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let user = messages.iter().rev().find(|m| m["role"] == "user").cloned().unwrap_or_default();
    user["content"].as_array().cloned().unwrap_or_default()
}

pub fn all_blocks(body: &Value) -> Vec<Value> {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .collect()
}

pub fn copies(host: &FakeHost) -> Vec<String> {
    host.paths_under("attachments")
}
