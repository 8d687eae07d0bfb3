//! A request's attachments against the provider's limits, and which one the server refused.
//! Four 19 MB PDFs make a request the Messages API refuses whole (32 MB); sending it anyway
//! costs a round trip and says "too long" about the wrong thing. Before sending, the core adds
//! up what the message and the history's attachments will weigh and names what to drop; after a
//! refusal, it reads back which attachment the server's words point at.

use serde_json::Value;

use crate::attachment_ref::Attachment;
use crate::llm::MessagesJson;

/// The Messages API's limit for one request's body.
pub(crate) const MAX_REQUEST_BYTES: u64 = 32 * 1024 * 1024;

/// "1.2 MB", "830 KB", "12 bytes".
pub(crate) fn size_text(bytes: u64) -> String {
    const MB: f64 = 1024.0 * 1024.0;
    match bytes {
        b if b >= 1024 * 1024 => format!("{:.1} MB", b as f64 / MB),
        b if b >= 1024 => format!("{} KB", b / 1024),
        b => format!("{b} bytes"),
    }
}

/// What an attachment adds to a request's body: its copy, in base64 for images and PDFs.
fn sent_bytes(attachment: &Attachment) -> u64 {
    if attachment.kind.is_binary() {
        attachment.bytes.div_ceil(3) * 4
    } else {
        attachment.bytes
    }
}

/// The attachments a history refers to: each turn of its conversation sends them again.
pub(crate) fn history_attachments(history: &MessagesJson) -> Vec<Attachment> {
    if !history.has_attachments() {
        return Vec::new();
    }
    let mut text = String::with_capacity(history.len() + 2);
    history.write_with(&[], &mut text);
    let Ok(messages) = serde_json::from_str::<Vec<Value>>(&text) else { return Vec::new() };
    messages
        .iter()
        .filter_map(|m| m.get("content").and_then(Value::as_array))
        .flatten()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("attachment"))
        .filter_map(|b| crate::lean::from_value::<Attachment>(b.get("attachment")?).ok())
        .collect()
}

/// Why a request of `other_bytes` (prompt, history, tools) with these attachments would pass
/// the limit, naming the fewest of this message's attachments to drop — or, when the
/// conversation's earlier ones are the weight, saying to start a new chat. `None` when it fits.
pub(crate) fn over_limit(other_bytes: u64, message: &[Attachment], history: &[Attachment]) -> Option<String> {
    let total = other_bytes + message.iter().chain(history).map(sent_bytes).sum::<u64>();
    if total <= MAX_REQUEST_BYTES {
        return None;
    }
    let head = format!(
        "With its attachments this request would be {}, over the AI service's {} limit for one request, so it was not sent.",
        size_text(total),
        size_text(MAX_REQUEST_BYTES)
    );
    let mut own: Vec<&Attachment> = message.iter().collect();
    crate::lean::sort_by_key(&mut own, |a| std::cmp::Reverse(sent_bytes(a)));
    let mut left = total;
    let mut drop = Vec::new();
    for attachment in own {
        if left <= MAX_REQUEST_BYTES {
            break;
        }
        left -= sent_bytes(attachment);
        drop.push(named(attachment));
    }
    if left <= MAX_REQUEST_BYTES {
        return Some(format!("{head} Send it again without {}.", drop.join(" and ")));
    }
    let mut earlier: Vec<&Attachment> = history.iter().collect();
    crate::lean::sort_by_key(&mut earlier, |a| std::cmp::Reverse(sent_bytes(a)));
    let earlier: Vec<String> = earlier.iter().take(3).map(|a| named(a)).collect();
    Some(format!(
        "{head} Attachments from earlier in this conversation ({}) go with every message: start a new chat to leave them behind{}.",
        earlier.join(", "),
        if drop.is_empty() { String::new() } else { format!(", and send it without {}", drop.join(" and ")) }
    ))
}

/// "Report.pdf (19.0 MB)".
fn named(attachment: &Attachment) -> String {
    format!("{} ({})", attachment.path, size_text(attachment.bytes))
}

/// The attachments a sent request carried, in order, each with its place (`messages.N.content.M`).
fn sent_attachments(body: &Value) -> Vec<((usize, usize), String)> {
    let mut found = Vec::new();
    let messages = body.get("messages").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
    for (m, message) in messages.iter().enumerate() {
        let blocks = message.get("content").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
        for (b, block) in blocks.iter().enumerate() {
            let name = match block.get("type").and_then(Value::as_str) {
                Some("document") => block.get("title").and_then(Value::as_str).unwrap_or("a PDF").to_owned(),
                // The text block before an image names it (`<image path="…"/>`).
                Some("image") => b
                    .checked_sub(1)
                    .and_then(|p| blocks[p].get("text").and_then(Value::as_str))
                    .and_then(image_path)
                    .unwrap_or_else(|| "an image".to_owned()),
                _ => continue,
            };
            found.push(((m, b), name));
        }
    }
    found
}

/// The path in `<image path="…"/>`, its attribute escapes undone.
fn image_path(text: &str) -> Option<String> {
    let path = text.strip_prefix("<image path=\"")?.strip_suffix("\"/>")?;
    Some(path.replace("&quot;", "\"").replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&"))
}

/// The block a server's error points at (`messages.2.content.1…`), if it names one.
fn pointed_block(server_message: &str) -> Option<(usize, usize)> {
    let rest = &server_message[server_message.find("messages.")? + "messages.".len()..];
    let (message, rest) = rest.split_once('.')?;
    let rest = rest.strip_prefix("content.")?;
    let block: String = rest.chars().take_while(char::is_ascii_digit).collect();
    Some((message.parse().ok()?, block.parse().ok()?))
}

/// What to tell the user about a request the server refused, when it carried attachments: the
/// one the server's words point at, or the list of them. `None` when it carried none.
pub(crate) fn refused_attachment(body: &str, server_message: &str) -> Option<String> {
    let body: Value = serde_json::from_str(body).ok()?;
    let sent = sent_attachments(&body);
    if sent.is_empty() {
        return None;
    }
    if let Some(place) = pointed_block(server_message) {
        if let Some((_, name)) = sent.iter().find(|(p, _)| *p == place) {
            return Some(format!("The AI service refused the attachment {name}; send the message again without it."));
        }
    }
    let names: Vec<&str> = sent.iter().map(|(_, n)| n.as_str()).collect();
    let which = if names.len() == 1 { "it" } else { "one of them" };
    Some(format!(
        "The AI service refused the request, which carried {}: {which} may be damaged or of a kind this model does not take.",
        names.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attachment::AttachmentKind;

    fn attachment(path: &str, kind: AttachmentKind, mb: u64) -> Attachment {
        Attachment {
            kind,
            path: path.into(),
            hash: String::new(),
            media_type: String::new(),
            bytes: mb * 1024 * 1024,
            pasted: false,
            cut: None,
            pixels: None,
            pages: None,
        }
    }

    #[test]
    fn a_request_over_the_limit_names_the_fewest_largest_attachments_to_drop() {
        let pdfs: Vec<Attachment> =
            (1..=4).map(|i| attachment(&format!("Report-{i}.pdf"), AttachmentKind::Pdf, 19)).collect();
        let why = over_limit(2_000, &pdfs, &[]).expect("over");
        assert!(why.starts_with("With its attachments this request would be 101.3 MB"), "{why}");
        // 19 MB is 25.3 MB in base64: three must go for the fourth to fit.
        assert!(
            why.ends_with(
                "Send it again without Report-1.pdf (19.0 MB) and Report-2.pdf (19.0 MB) and Report-3.pdf (19.0 MB)."
            ),
            "{why}"
        );
        assert_eq!(over_limit(2_000, &pdfs[..1], &[]), None);
        let earlier = over_limit(2_000, &[], &pdfs[..2]).expect("over");
        assert!(earlier.contains("start a new chat to leave them behind."), "{earlier}");
        assert!(earlier.contains("Report-1.pdf (19.0 MB), Report-2.pdf (19.0 MB)"), "{earlier}");
    }

    #[test]
    fn a_refusal_names_the_attachment_the_server_pointed_at() {
        let body = serde_json::json!({"messages": [
            {"role": "user", "content": [{"type": "text", "text": "hi"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "hello"}]},
            {"role": "user", "content": [
                {"type": "text", "text": "<image path=\"Shots/a &amp; b.png\"/>"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}},
                {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "AAAA"}, "title": "Cut.pdf"},
                {"type": "text", "text": "what is this?"}]}
        ]})
        .to_string();
        let said = "messages.2.content.2.pdf.source.base64.data: The PDF specified was not valid.";
        assert_eq!(
            refused_attachment(&body, said).as_deref(),
            Some("The AI service refused the attachment Cut.pdf; send the message again without it.")
        );
        let image = refused_attachment(&body, "messages.2.content.1.image.source: Could not process image").unwrap();
        assert!(image.contains("the attachment Shots/a & b.png;"), "{image}");
        let vague = refused_attachment(&body, "invalid request").unwrap();
        assert!(vague.contains("which carried Shots/a & b.png, Cut.pdf:"), "{vague}");
        let plain = serde_json::json!({"messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]});
        assert_eq!(refused_attachment(&plain.to_string(), "too long"), None);
    }
}
