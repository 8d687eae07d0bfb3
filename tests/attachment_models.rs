//! Attachments and what the model server takes (issue 23): an image refused by the connection
//! check or by the model is said so, and the conversation goes on; a server without PDFs is named
//! before anything is sent; a large image is scaled by the host where it can be.

mod common;

use common::attachments::*;
use common::*;

use serde_json::{json, Value};
use smarthole_agent::testing::{BodyEnd, FakeHost, Reply};
use smarthole_agent::ApiFormat;
use smarthole_agent::{attach_bytes, AttachError, Settings};

#[test]
fn a_server_that_cannot_take_pdfs_is_said_so_before_anything_is_sent() {
    let host = FakeHost::new();
    host.put_binary("paper.pdf", PDF);
    let s = Settings { api_format: ApiFormat::Openai, ..settings() };
    let err = attach(&host, &s, "paper.pdf").unwrap_err();
    assert_eq!(err, AttachError::FormatCannotTakePdf);
    assert!(err.to_string().contains("cannot take PDFs"));
    assert!(host.requests().is_empty());
}

#[test]
fn a_model_whose_connection_check_refused_an_image_is_said_so_when_an_image_is_attached() {
    let host = FakeHost::new();
    host.put_binary("shot.png", &png(10, 10, 50));
    host.put_note("a.md", "text goes anywhere");
    let p = processor(&host);
    let probe = Reply::tools("", &[("t1", "connection_probe", json!({"word": "ping"}))]);
    host.script([
        Reply::error(404, "not_found_error"),
        Reply::text("OK"),
        probe,
        Reply::error(400, "invalid_request_error"),
    ]);
    let report = host.run(p.check_connection());
    let images = report.lines.iter().find(|l| l.step == "images").expect("an images line");
    assert!(!images.ok, "{report:?}");
    let refused = host.run(p.attach_vault("shot.png")).unwrap_err();
    assert!(refused.to_string().contains("test-model at http://model.test did not take an image"), "{refused}");
    let pasted = host.run(p.attach_bytes("Pasted image.png", &png(10, 10, 50))).unwrap_err();
    assert_eq!(pasted, refused);
    assert!(host.run(p.attach_vault("a.md")).is_ok(), "notes still go");

    // A check that passes clears it.
    let probe = Reply::tools("", &[("t1", "connection_probe", json!({"word": "ping"}))]);
    host.script([Reply::error(404, "not_found_error"), Reply::text("OK"), probe, Reply::text("Red")]);
    let report = host.run(p.check_connection());
    assert!(report.lines.iter().all(|l| l.ok), "{report:?}");
    assert!(host.run(p.attach_vault("shot.png")).is_ok());
}

#[test]
fn a_model_that_refuses_an_image_is_quoted_and_the_conversation_goes_on_without_it() {
    // No connection check was made: the model's own refusal is what the user learns.
    let host = FakeHost::new();
    host.put_binary("shot.png", &png(10, 10, 50));
    let image = attach(&host, &settings(), "shot.png").unwrap();
    let refusal = "image input is not supported - hint: if this is unexpected, you may need to provide the mmproj";
    host.script([Reply::Raw {
        status: 400,
        chunks: vec![json!({"error": {"code": 400, "message": refusal, "type": "invalid_request_error"}}).to_string()],
        end: BodyEnd::Close,
    }]);
    host.script([Reply::text("Fine.")]);
    let p = processor(&host);
    let first = host.run(p.process(with_attachments("m1", "look", &[image])));
    assert_eq!(first.error_code.as_deref(), Some("invalid_request"));
    assert_eq!(
        first.error.as_deref(),
        Some(format!("The AI service refused the request, which carried shot.png: it may be damaged or of a kind this model does not take. The server said: {refusal}").as_str())
    );
    // The refused message is not sent again with the next one: the conversation is not stuck.
    let second = host.run(p.process(direct("m2", "just text")));
    assert!(second.success, "{second:?}");
    let requests = host.requests();
    assert_eq!(requests.len(), 2);
    assert!(all_blocks(&requests[1].body).iter().all(|b| b["type"] != "image"));
}

#[test]
fn a_large_image_is_scaled_down_by_the_host_where_it_can_and_refused_with_the_reason_where_it_cannot() {
    let host = FakeHost::new();
    let panorama = png(9000, 3000, 6 * 1024 * 1024);
    host.put_binary("Photos/panorama.png", &panorama);
    host.put_binary("Photos/small.png", &png(800, 600, 1000));
    host.put_binary("Photos/huge.png", &png(4000, 3000, 21 * 1024 * 1024));
    let s = settings();
    // A host that cannot scale (the Node host): the original is checked, and refused.
    let refused = attach(&host, &s, "Photos/panorama.png").unwrap_err();
    assert!(matches!(refused, AttachError::TooLarge { .. }), "{refused}");
    assert_eq!(host.scale_requests(), [("image/png".to_owned(), 1568, 5 * 1024 * 1024)]);
    // One that can: the scaled picture is what is copied and sent, under the vault path.
    let scaled = png(1568, 523, 2_000);
    host.scale_images_to(&scaled);
    let image = attach(&host, &s, "Photos/panorama.png").unwrap();
    assert_eq!(
        (image.path.as_str(), image.pasted, image.pixels, image.bytes),
        ("Photos/panorama.png", false, Some((1568, 523)), scaled.len() as u64)
    );
    // Pasted bytes go the same way.
    let pasted = host.run(attach_bytes(&host, &s, "Pasted image.png", &panorama)).unwrap();
    assert_eq!((pasted.pasted, pasted.pixels, pasted.hash.as_str()), (true, Some((1568, 523)), image.hash.as_str()));
    // A small image is never sent to be scaled; one past what is read at all is refused before
    // it is read (so never sent to be scaled either); nor is one claiming more pixels than is safe
    // to decode (a few compressed megabytes can claim billions).
    let asked = host.scale_requests().len();
    attach(&host, &s, "Photos/small.png").unwrap();
    host.put_binary("Photos/bomb.png", &png(40_000, 40_000, 1_000));
    assert!(matches!(attach(&host, &s, "Photos/bomb.png"), Err(AttachError::TooManyPixels { .. })));
    assert!(matches!(attach(&host, &s, "Photos/huge.png"), Err(AttachError::TooLarge { .. })));
    assert_eq!(host.scale_requests().len(), asked);

    host.script([Reply::text("A wide view.")]);
    let p = processor(&host);
    assert!(host.run(p.process(with_attachments("m1", "what is this?", &[image]))).success);
    let blocks = last_user_blocks(&host.requests()[0].body);
    let sent: Vec<&Value> = blocks.iter().filter(|b| b["type"] == "image").collect();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0]["source"]["data"], b64(&scaled), "the scaled picture, not the original");
}
