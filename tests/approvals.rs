//! Approvals end to end with the scripted model: the agent asks to delete a note, the request
//! appears (the chat view's card), and the user's answer — or its absence — decides.

mod common;

use common::*;
use futures::future::join;
use serde_json::{json, Value};
use smarthole_agent::testing::internals::APPROVAL_TIMEOUT_MS;
use smarthole_agent::testing::{FakeHost, Reply};
use smarthole_agent::Event;
use smarthole_agent::Host;
use smarthole_agent::ProcessResult;
use smarthole_agent::{ApprovalError, ApprovalRequest, ApprovalStatus, Decision};
use smarthole_agent::{MessageProcessor, Settings};

const NOTE: &str = "Notes/Old.md";

fn setup() -> (FakeHost, MessageProcessor<FakeHost>) {
    let host = FakeHost::new();
    host.put_note(NOTE, "old text");
    let p = processor(&host);
    (host, p)
}

fn delete_call(id: &str) -> Reply {
    Reply::tools("", &[(id, "delete_file", json!({"path": NOTE}))])
}

/// Processes `message` while a user answers the first approval request with `decision` after
/// `after_ms` of virtual time (`None`: nobody answers).
fn with_answer(
    host: &FakeHost,
    p: &MessageProcessor<FakeHost>,
    message: Value,
    decision: Option<Decision>,
    after_ms: u64,
) -> (ProcessResult, Option<ApprovalRequest>) {
    let user = async {
        let request = loop {
            if let Some(r) = p.pending_approvals().into_iter().next() {
                break r;
            }
            host.sleep(100).await;
        };
        host.sleep(after_ms).await;
        match decision {
            Some(d) => Some(p.decide_approval(&request.id, d).await.expect("decision taken")),
            None => Some(request),
        }
    };
    host.run(join(p.process(message), user))
}

fn requested(host: &FakeHost) -> Vec<ApprovalRequest> {
    host.events()
        .into_iter()
        .filter_map(|e| match e {
            Event::ApprovalRequested { request } => Some(*request),
            _ => None,
        })
        .collect()
}

fn saved(host: &FakeHost, id: &str) -> ApprovalRequest {
    serde_json::from_str(&host.file(&format!("approvals/{id}.json")).expect("the request is persisted"))
        .expect("parses")
}

#[test]
fn rejected_the_note_stays_and_the_model_is_told() {
    let (host, p) = setup();
    host.script([delete_call("d1"), Reply::text("Understood, I kept it.")]);
    let (result, decided) = with_answer(&host, &p, direct("a", "delete my old note"), Some(Decision::Reject), 2_000);
    let decided = decided.unwrap();
    assert_eq!(decided.status, ApprovalStatus::Rejected);
    let card = &requested(&host)[0];
    assert_eq!(card.summary, "Delete Notes/Old.md (to the trash)");
    assert_eq!(card.action, "delete_file");
    assert!(card.id.starts_with("apr-") && card.id.len() > 10, "a random id: {}", card.id);
    assert_eq!(card.expires_ms - card.created_ms, APPROVAL_TIMEOUT_MS);
    assert_eq!(host.note(NOTE).as_deref(), Some("old text"), "the note is still there");
    assert!(host.trashed().is_empty());
    let (told, is_error) = tool_result(&host, "d1");
    assert!(is_error && told.contains("rejected") && told.contains("Nothing was changed"), "{told}");
    assert_eq!(result.response.as_deref(), Some("Understood, I kept it."));
    assert_eq!(saved(&host, &card.id).status, ApprovalStatus::Rejected);
    assert!(p.pending_approvals().is_empty());
}

#[test]
fn approved_the_note_goes_to_the_trash() {
    let (host, p) = setup();
    host.script([delete_call("d1"), Reply::text("Deleted.")]);
    let (result, decided) =
        with_answer(&host, &p, direct("a", "delete my old note"), Some(Decision::ApproveOnce), 30_000);
    assert_eq!(decided.unwrap().status, ApprovalStatus::Approved);
    assert!(host.note(NOTE).is_none());
    assert_eq!(host.trashed(), [(NOTE.to_owned(), "old text".to_owned())]);
    assert_eq!(tool_result(&host, "d1"), ("Moved Notes/Old.md to the trash.".to_owned(), false));
    assert!(result.success);
    let resolved = host
        .events()
        .into_iter()
        .any(|e| matches!(e, Event::ApprovalResolved { request } if request.status == ApprovalStatus::Approved));
    assert!(resolved, "the card learns the outcome");
}

#[test]
fn no_answer_in_five_minutes_is_a_rejection() {
    let (host, p) = setup();
    host.script([delete_call("d1"), Reply::text("No answer, so I left it.")]);
    let started = host.now();
    let (result, request) = with_answer(&host, &p, direct("a", "delete my old note"), None, 0);
    let request = request.unwrap();
    assert!(host.now() - started >= APPROVAL_TIMEOUT_MS, "it waited the full 5 minutes");
    assert_eq!(host.note(NOTE).as_deref(), Some("old text"));
    let (told, is_error) = tool_result(&host, "d1");
    assert!(is_error && told.contains("No answer from the user within 5 minutes"), "{told}");
    assert!(result.success);
    let settled = saved(&host, &request.id);
    assert_eq!((settled.status, settled.note.as_deref()), (ApprovalStatus::Expired, Some("timeout")));
    assert_eq!(serde_json::to_value(&settled).unwrap()["settleReason"], "timeout", "the view reads the tag");
    // A late click changes nothing.
    let late = host.run(p.decide_approval(&request.id, Decision::ApproveOnce));
    assert_eq!(late, Err(ApprovalError::AlreadyDecided { id: request.id.clone(), status: ApprovalStatus::Expired }));
    assert_eq!(host.note(NOTE).as_deref(), Some("old text"));
}

#[test]
fn approve_for_this_conversation_covers_later_calls_of_the_same_tool_only() {
    let (host, p) = setup();
    host.put_note("Notes/Other.md", "other");
    host.put_note("Notes/Third.md", "third");
    host.script([delete_call("d1"), Reply::text("Deleted.")]);
    with_answer(&host, &p, direct("a", "delete my old note"), Some(Decision::ApproveConversation), 1_000);
    host.script([
        Reply::tools("", &[("d2", "delete_file", json!({"path": "Notes/Other.md"}))]),
        Reply::text("Also deleted."),
    ]);
    host.run(p.process(direct("b", "and the other one")));
    assert_eq!(requested(&host).len(), 1, "no second card for the same tool in the same conversation");
    assert!(host.note("Notes/Other.md").is_none());
    // Another tool still asks.
    host.script([
        Reply::tools("", &[("m1", "move_file", json!({"from": "Notes/Third.md", "to": "Archive"}))]),
        Reply::text("ok"),
    ]);
    with_answer(&host, &p, direct("c", "archive the third"), Some(Decision::Reject), 0);
    assert_eq!(requested(&host).len(), 2);
    assert_eq!(host.note("Notes/Third.md").as_deref(), Some("third"));
    // A new conversation asks again.
    host.run(p.new_conversation()).unwrap();
    host.put_note(NOTE, "back");
    host.script([delete_call("d3"), Reply::text("ok")]);
    with_answer(&host, &p, direct("d", "delete it again"), Some(Decision::Reject), 0);
    assert_eq!(requested(&host).len(), 3);
}

#[test]
fn an_auto_approved_tool_does_not_ask() {
    let host = FakeHost::new();
    host.put_note(NOTE, "old text");
    let p = processor_with(&host, Settings { auto_approve_tools: vec!["delete_file".into()], ..settings() });
    host.script([delete_call("d1"), Reply::text("Deleted.")]);
    host.run(p.process(direct("a", "delete my old note")));
    assert!(requested(&host).is_empty());
    assert!(host.note(NOTE).is_none());
    let bad =
        MessageProcessor::new(host.clone(), Settings { auto_approve_tools: vec!["read_file".into()], ..settings() });
    assert!(bad.err().unwrap().to_string().contains("cannot be auto-approved"));
}

#[test]
fn stop_while_waiting_rejects_the_request_and_does_nothing() {
    let (host, p) = setup();
    host.script([delete_call("d1")]);
    let stopper = async {
        while p.pending_approvals().is_empty() {
            host.sleep(100).await;
        }
        assert!(p.cancel_current_processing());
    };
    let (result, ()) = host.run(join(p.process(direct("a", "delete my old note")), stopper));
    assert!(result.cancelled);
    host.run_for(1_000);
    let request = &requested(&host)[0];
    let settled = saved(&host, &request.id);
    assert_eq!(settled.status, ApprovalStatus::Rejected);
    assert!(settled.note.unwrap().contains("stopped"));
    assert_eq!(host.note(NOTE).as_deref(), Some("old text"));
    assert!(p.pending_approvals().is_empty());
}

#[test]
fn a_restart_while_waiting_never_approves_and_the_tool_is_not_run() {
    let (host, p) = setup();
    host.script([delete_call("d1")]);
    let crashed =
        host.run_until(p.process(direct("a", "delete my old note")), |e| matches!(e, Event::ApprovalRequested { .. }));
    assert!(crashed.is_none());
    drop(p);
    let request_id =
        host.paths_under("approvals")[0].trim_start_matches("approvals/").trim_end_matches(".json").to_owned();
    assert_eq!(saved(&host, &request_id).status, ApprovalStatus::Pending, "persisted before the card was shown");

    host.script([Reply::text("The app restarted before you answered, so I did not delete it.")]);
    let p = processor(&host);
    let settled = saved(&host, &request_id);
    assert_eq!(settled.status, ApprovalStatus::Expired);
    assert!(settled.note.unwrap().contains("restarted"));
    assert!(p.pending_approvals().is_empty());
    assert!(host.run(p.decide_approval(&request_id, Decision::ApproveOnce)).is_err(), "an old card cannot approve");
    let summary = host.run(p.reprocess_pending()).unwrap();
    assert!(summary.results[0].success);
    assert_eq!(host.note(NOTE).as_deref(), Some("old text"), "the interrupted delete is not run again");
    let (told, is_error) = tool_result(&host, "d1");
    assert!(is_error && told.contains("interrupted"), "{told}");
}

#[test]
fn a_hub_message_tells_the_hub_an_approval_waits() {
    let host = FakeHost::new();
    host.put_note(NOTE, "old text");
    let p = processor_with(&host, Settings { hub_enabled: true, ..settings() });
    host.script([delete_call("d1"), Reply::text("Kept it.")]);
    with_answer(&host, &p, from_hub("h1", "delete my old note"), Some(Decision::Reject), 0);
    let notes = host.hub_responses("notification");
    let first = &notes[0]["payload"]["payload"];
    assert_eq!(first["priority"], "high");
    assert!(first["body"].as_str().unwrap().contains("Approval needed: Delete Notes/Old.md"), "{first}");
}

#[test]
fn overwrite_and_move_ask_too_with_what_will_change() {
    let (host, p) = setup();
    host.script([
        Reply::tools("", &[("w1", "write_file", json!({"path": NOTE, "content": "new"}))]),
        Reply::text("ok"),
    ]);
    with_answer(&host, &p, direct("a", "rewrite it"), Some(Decision::ApproveOnce), 0);
    assert_eq!(host.note(NOTE).as_deref(), Some("new"));
    let card = &requested(&host)[0];
    assert_eq!(card.summary, "Replace the whole content of Notes/Old.md (8 → 3 characters)");
    assert_eq!(card.details.as_ref().unwrap()["content"], "new");
    host.script([
        Reply::tools("", &[("m1", "move_file", json!({"from": NOTE, "to": "Archive/Old"}))]),
        Reply::text("ok"),
    ]);
    with_answer(&host, &p, direct("b", "archive it"), Some(Decision::ApproveOnce), 0);
    assert_eq!(requested(&host)[1].summary, "Move Notes/Old.md to Archive/Old.md (links are updated)");
    assert_eq!(host.note("Archive/Old.md").as_deref(), Some("new"));
    // Creating a note does not ask; editing part of one does (issue 15: every change is reviewed).
    host.script([
        Reply::tools("", &[("c1", "write_file", json!({"path": "Fresh.md", "content": "x"}))]),
        Reply::text("ok"),
    ]);
    host.run(p.process(direct("c", "make a note")));
    assert_eq!(requested(&host).len(), 2);
    assert_eq!(host.note("Fresh.md").as_deref(), Some("x"));
    host.script([
        Reply::tools(
            "",
            &[(
                "e1",
                "edit_file",
                json!({"path": "Fresh.md", "operation": "replace", "old_text": "x", "new_text": "y"}),
            )],
        ),
        Reply::text("ok"),
    ]);
    with_answer(&host, &p, direct("d", "edit it"), Some(Decision::ApproveOnce), 0);
    assert_eq!(requested(&host).len(), 3);
    assert_eq!(host.note("Fresh.md").as_deref(), Some("y"));
}

#[test]
fn unknown_requests_cannot_be_decided() {
    let (host, p) = setup();
    assert_eq!(
        host.run(p.decide_approval("apr-nope", Decision::ApproveOnce)),
        Err(ApprovalError::Unknown("apr-nope".into()))
    );
}
