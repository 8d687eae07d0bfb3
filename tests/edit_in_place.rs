//! Edit in place (issue 36): a selection and what to do become a message like any other; its
//! answer is drawn as it streams, proposed hunk by hunk (one per run of changed lines), applied as
//! the user answers onto the note as it is then — their typing elsewhere kept — and undone byte
//! for byte. Stop leaves the note untouched.

mod common;

use common::*;
use futures::future::join;
use smarthole_agent::testing::{FakeHost, Reply};
use smarthole_agent::{ApprovalRequest, Decision, EditError, Event, Host, MessageProcessor};

const NOTE: &str = "Notes/Trip.md";
const BEFORE: &str =
    "# Trip\n\nWe leave on monday.\nThe train is at nine.\nBring the tickets.\nPack light.\n\nOther notes.\n";

/// UTF-16 offsets of `needle`'s start and end in `text` (what CodeMirror gives).
fn span(text: &str, needle: &str) -> (usize, usize) {
    let at = text.find(needle).expect("needle in text");
    let from = text[..at].encode_utf16().count();
    (from, from + needle.encode_utf16().count())
}

/// The first pending approval, waited for.
async fn approval(host: &FakeHost, p: &MessageProcessor<FakeHost>) -> ApprovalRequest {
    loop {
        if let Some(r) = p.pending_approvals().into_iter().next() {
            return r;
        }
        host.sleep(50).await;
    }
}

fn proposals(host: &FakeHost) -> Vec<usize> {
    host.events()
        .into_iter()
        .filter_map(|e| match e {
            Event::EditProposal { hunks, .. } => Some(hunks.len()),
            _ => None,
        })
        .collect()
}

#[test]
fn a_selection_is_rewritten_hunk_by_hunk_onto_the_note_the_user_kept_typing_in() {
    let host = FakeHost::new();
    host.put_note(NOTE, BEFORE);
    let p = processor(&host);
    let answer = "We leave on Tuesday.\nThe train is at nine.\nBring the tickets.\nPack very light.";
    host.script([Reply::slow_text(answer, 30)]);
    let selection = span(BEFORE, "We leave on monday.\nThe train is at nine.\nBring the tickets.\nPack light.");
    let (started, work) = p.edit_in_place(NOTE, BEFORE, selection, "fix the day, pack lighter").expect("started");
    assert_eq!((started.start_line, started.end_line), (3, 6));
    assert_eq!(started.said, "Editing the selection (lines 3–6).");
    let typed = BEFORE.replace("Other notes.", "Other notes, typed meanwhile.");
    let user = async {
        let request = approval(&host, &p).await;
        // The user typed in another paragraph while the answer streamed.
        host.put_note(NOTE, &typed);
        p.decide_approval_hunks(&request.id, Decision::ApproveOnce, Some(vec![1])).await.expect("decided");
        request
    };
    let (result, request) = host.run(join(work, user));
    assert!(result.success, "{result:?}");
    // Drawn while it streamed, then proposed whole: one hunk per changed line.
    assert!(!proposals(&host).is_empty(), "the proposal streamed");
    assert_eq!(request.tool_use_id.as_deref(), Some("edit-in-place"));
    let change = request.change.expect("the change");
    assert_eq!(change.hunks.len(), 2);
    assert_eq!((change.hunks[0].old_start, change.hunks[1].old_start), (3, 6));
    // Exactly hunk 1, and the user's typing.
    assert_eq!(host.note(NOTE).unwrap(), typed.replace("monday", "Tuesday"));
    let response = result.response.unwrap_or_default();
    assert!(response.ends_with("Applied to Notes/Trip.md in part: hunk 1 applied, 2 rejected."), "{response}");
    // The request asked for words only: no tools, no earlier turns, the passage and the ask.
    let requests = host.requests();
    let body = requests.last().expect("a request").body.to_string();
    assert!(!body.contains("\"tools\""), "{body}");
    assert!(body.contains("<passage>") && body.contains("fix the day, pack lighter"), "{body}");
    // Undo gives back the note as it was before the change, the user's typing in it.
    let report = host.run(p.undo_turn(&started.message.id));
    assert_eq!(report.restored, [NOTE]);
    assert_eq!(host.note(NOTE).unwrap(), typed);
}

#[test]
fn no_selection_takes_the_paragraph_at_the_cursor_and_says_so() {
    let host = FakeHost::new();
    host.put_note(NOTE, BEFORE);
    let p = processor(&host);
    let (cursor, _) = span(BEFORE, "train");
    let (started, _work) = p.edit_in_place(NOTE, BEFORE, (cursor, cursor), "shorter").expect("started");
    assert_eq!(started.said, "No selection: editing the paragraph at the cursor (lines 3–6).");
    let (blank, _) = span(BEFORE, "\nWe leave");
    assert_eq!(p.edit_in_place(NOTE, BEFORE, (blank, blank), "x").err(), Some(EditError::NothingHere));
    assert_eq!(p.edit_in_place(NOTE, BEFORE, (0, 3), " ").err(), Some(EditError::NoInstruction));
    assert_eq!(p.edit_in_place(NOTE, BEFORE, (0, 999), "x").err(), Some(EditError::BadRange));
}

#[test]
fn stop_mid_answer_leaves_the_note_untouched_and_asks_nothing() {
    let host = FakeHost::new();
    host.put_note(NOTE, BEFORE);
    let p = processor(&host);
    host.script([Reply::slow_text(&"Pack it all up now. ".repeat(40), 20)]);
    let (started, work) = p.edit_in_place(NOTE, BEFORE, span(BEFORE, "Pack light."), "louder").expect("started");
    let stop = async {
        while proposals(&host).is_empty() {
            host.sleep(20).await;
        }
        assert!(p.cancel_current_processing());
    };
    let (result, ()) = host.run(join(work, stop));
    assert!(result.cancelled, "{result:?}");
    assert_eq!(host.note(NOTE).unwrap(), BEFORE);
    assert!(p.pending_approvals().is_empty());
    assert_eq!(started.scope, smarthole_agent::EditScope::Selection);
}

#[test]
fn a_passage_changed_under_the_answer_is_not_proposed() {
    let host = FakeHost::new();
    host.put_note(NOTE, BEFORE);
    let p = processor(&host);
    host.script([Reply::slow_text("Pack nothing.", 20)]);
    let (_, work) = p.edit_in_place(NOTE, BEFORE, span(BEFORE, "Pack light."), "change").expect("started");
    let meanwhile = async {
        host.sleep(5).await;
        host.put_note(NOTE, &BEFORE.replace("Pack light.", "Pack heavy."));
    };
    let (result, ()) = host.run(join(work, meanwhile));
    assert!(p.pending_approvals().is_empty());
    let response = result.response.unwrap_or_default();
    assert!(response.contains("The passage changed while the agent wrote"), "{response}");
    assert_eq!(host.note(NOTE).unwrap(), BEFORE.replace("Pack light.", "Pack heavy."));
}
