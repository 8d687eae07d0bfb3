//! Requests doomed by their attachments (issue 32): one over the API's 32 MB is never sent and
//! says which attachment to drop; a request the server refuses (400, 413) is set aside at once
//! rather than sent again at every start; a refusal names the attachment it was about.

mod common;

use common::*;
use serde_json::{json, Value};
use smarthole_agent::testing::{FakeHost, Reply};
use smarthole_agent::{attach_vault, Attachment};

/// A PDF of about `mb` megabytes: one page, padded, ended as a whole file is.
fn pdf(mb: usize) -> Vec<u8> {
    let mut bytes = b"%PDF-1.7\n1 0 obj << /Type /Page >>\nstream\n".to_vec();
    bytes.extend((0..mb * 1024 * 1024).map(|i| b'a' + (i % 26) as u8));
    bytes.extend(b"\nendstream\ntrailer\n%%EOF\n");
    bytes
}

fn with(id: &str, attachments: &[Attachment]) -> Value {
    let mut message = direct(id, "read these");
    message["attachments"] = json!(attachments);
    message
}

fn attach(host: &FakeHost, path: &str) -> Attachment {
    host.run(attach_vault(host, &settings(), path)).expect("attached")
}

#[test]
fn a_request_over_the_limit_is_never_sent_says_what_to_drop_and_is_not_tried_again() {
    let host = FakeHost::new();
    host.put_binary("Big report.pdf", &pdf(13));
    host.put_binary("Appendix.pdf", &pdf(12));
    let files = [attach(&host, "Big report.pdf"), attach(&host, "Appendix.pdf")];
    let p = processor(&host);
    let result = host.run(p.process(with("big", &files)));
    assert!(host.requests().is_empty(), "nothing was sent");
    assert_eq!(result.error_code.as_deref(), Some("request_too_large"));
    let error = result.error.unwrap_or_default();
    assert!(error.contains("over the AI service's 32.0 MB limit"), "{error}");
    assert!(error.ends_with("Send it again without Big report.pdf (13.0 MB)."), "{error}");
    assert!(host.file("failed/big.json").is_some(), "set aside at once");
    assert!(inbox(&host).is_empty());
    drop(p);
    let p = processor(&host);
    let summary = host.run(p.reprocess_pending()).expect("restart");
    assert!(summary.results.is_empty() && host.requests().is_empty(), "not sent again at the next start");
    // Without the largest, the same message goes.
    host.script([Reply::text("Read.")]);
    let fits = host.run(p.process(with("fits", &files[1..])));
    assert!(fits.success, "{fits:?}");
}

#[test]
fn a_413_or_a_400_is_sent_once_and_set_aside() {
    for (status, kind, code) in
        [(413, "request_too_large", "request_too_large"), (400, "invalid_request_error", "invalid_request")]
    {
        let host = FakeHost::new();
        host.script([Reply::error(status, kind)]);
        let p = processor(&host);
        let result = host.run(p.process(direct("doomed", "hello")));
        assert_eq!(result.error_code.as_deref(), Some(code), "{status}");
        assert_eq!(host.requests().len(), 1, "{status}: sent once");
        let failed = host.file("failed/doomed.json").expect("set aside");
        assert!(failed.contains("refused it as sent"), "{status}: {failed}");
        drop(p);
        let p = processor(&host);
        host.run(p.reprocess_pending()).expect("restart");
        assert_eq!(host.requests().len(), 1, "{status}: not sent again at the next start");
    }
}

#[test]
fn a_refusal_that_points_at_an_attachment_names_it() {
    let host = FakeHost::new();
    host.put_binary("Scan.pdf", &pdf(1));
    let scan = attach(&host, "Scan.pdf");
    let refusal = json!({"type": "error", "error": {"type": "invalid_request_error",
        "message": "messages.0.content.1.pdf.source.base64.data: The PDF specified was not valid."}});
    host.script([Reply::ErrorBody { status: 400, body: refusal.to_string() }]);
    let p = processor(&host);
    let result = host.run(p.process(with("scan", &[scan])));
    let error = result.error.unwrap_or_default();
    assert!(
        error.starts_with("The AI service refused the attachment Scan.pdf; send the message again without it."),
        "{error}"
    );
    assert!(!error.contains("too long"), "{error}");
}
