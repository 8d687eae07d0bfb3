//! Review-first edits (issue 15): a change to a note is proposed as a diff (line hunks, changed
//! words), applied only on the user's yes — all hunks or some — against the content it was made
//! from, and undoable after a restart, byte for byte, unless the note moved on.

mod common;

use common::*;
use futures::future::join;
use serde_json::{json, Value};
use smarthole_agent::testing::{FakeHost, Reply};
use smarthole_agent::{ApprovalRequest, Decision, Event, Host, LineKind, MessageProcessor};

const NOTE: &str = "Notes/Plan.md";
const BEFORE: &str = "# Plan\nalpha\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nomega\n";

/// The user's answer to the first request: a decision and, optionally, the hunks accepted;
/// `edit` runs while the request waits (a note changed meanwhile).
type Meanwhile = Box<dyn Fn(&FakeHost)>;

fn answer(
    host: &FakeHost,
    p: &MessageProcessor<FakeHost>,
    id: &str,
    calls: &[(&str, &str, Value)],
    decision: Decision,
    hunks: Option<Vec<usize>>,
    meanwhile: Option<Meanwhile>,
) -> Vec<ApprovalRequest> {
    host.script([Reply::tools("", calls), Reply::text("done")]);
    let user = async {
        let mut seen = Vec::new();
        for _ in 0..calls.len() {
            let request = loop {
                if let Some(r) = p.pending_approvals().into_iter().next() {
                    break r;
                }
                host.sleep(100).await;
                if p.current_message_id().is_none() && !seen.is_empty() {
                    return seen;
                }
            };
            if let Some(edit) = &meanwhile {
                edit(host);
            }
            p.decide_approval_hunks(&request.id, decision, hunks.clone()).await.expect("decided");
            seen.push(request);
        }
        seen
    };
    let (result, seen) = host.run(join(p.process(direct(id, "change it")), user));
    assert!(result.success, "{result:?}");
    seen
}

/// A write_file over the note changing its second and its last line: two hunks.
fn two_hunk_edit() -> Vec<(&'static str, &'static str, Value)> {
    vec![(
        "t1",
        "write_file",
        json!({"path": NOTE, "content": BEFORE.replace("alpha", "ALPHA one").replace("omega", "OMEGA")}),
    )]
}

#[test]
fn an_edit_is_proposed_as_hunks_with_the_changed_words() {
    let host = FakeHost::new();
    host.put_note(NOTE, BEFORE);
    let p = processor(&host);
    let calls =
        [("t1", "edit_file", json!({"path": NOTE, "operation": "replace", "old_text": "alpha", "new_text": "beta"}))];
    let seen = answer(&host, &p, "m1", &calls, Decision::ApproveOnce, None, None);
    let change = seen[0].change.clone().expect("the request carries the diff");
    assert_eq!(change.path, NOTE);
    assert_eq!(change.hunks.len(), 1);
    let removed = change.hunks[0].lines.iter().find(|l| l.kind == LineKind::Removed).expect("a removed line");
    assert_eq!(removed.text, "alpha\n");
    let words: Vec<&str> = removed.words.iter().filter(|w| w.changed).map(|w| w.text.as_str()).collect();
    assert_eq!(words, ["alpha"]);
    assert_eq!(host.note(NOTE).unwrap(), BEFORE.replace("alpha", "beta"));
    let (out, is_error) = tool_result(&host, "t1");
    assert_eq!((out.as_str(), is_error), ("Edited Notes/Plan.md (replace).", false));
}

#[test]
fn partial_acceptance_applies_exactly_the_accepted_hunks() {
    let host = FakeHost::new();
    host.put_note(NOTE, BEFORE);
    let p = processor(&host);
    let seen = answer(&host, &p, "m1", &two_hunk_edit(), Decision::ApproveOnce, Some(vec![2]), None);
    assert_eq!(seen[0].change.as_ref().unwrap().hunks.len(), 2);
    assert_eq!(host.note(NOTE).unwrap(), BEFORE.replace("omega", "OMEGA"));
    let (out, _) = tool_result(&host, "t1");
    assert!(out.contains("hunk 2 applied, 1 rejected"), "{out}");
    // The model cannot guess which of its changes stand: it is given the note as it is now.
    assert!(out.ends_with(&format!("The note now reads:\n{}", BEFORE.replace("omega", "OMEGA"))), "{out}");
    let applied = host.events().into_iter().find_map(|e| match e {
        Event::ChangeApplied { applied_hunks, .. } => Some(applied_hunks),
        _ => None,
    });
    assert_eq!(applied, Some(vec![2]));
}

#[test]
fn a_note_changed_between_proposal_and_approval_is_not_overwritten() {
    let host = FakeHost::new();
    host.put_note(NOTE, BEFORE);
    let p = processor(&host);
    let meanwhile: Meanwhile = Box::new(|h: &FakeHost| h.put_note(NOTE, "the user typed this\n"));
    answer(&host, &p, "m1", &two_hunk_edit(), Decision::ApproveOnce, None, Some(meanwhile));
    assert_eq!(host.note(NOTE).unwrap(), "the user typed this\n");
    let (out, is_error) = tool_result(&host, "t1");
    assert!(is_error && out.contains("conflict"), "{out}");
}

#[test]
fn undo_after_a_restart_restores_byte_identical_content() {
    let host = FakeHost::new();
    host.put_note(NOTE, BEFORE);
    host.put_note("Old.md", "old\r\nno newline at the end");
    let p = processor(&host);
    let calls = [
        ("t1", "edit_file", json!({"path": NOTE, "operation": "delete_lines", "start_line": 2, "end_line": 13})),
        ("t2", "write_file", json!({"path": "New.md", "content": "fresh"})),
        ("t3", "move_file", json!({"from": "Old.md", "to": "Archive/Old.md"})),
    ];
    answer(&host, &p, "m1", &calls, Decision::ApproveOnce, None, None);
    assert_eq!(host.note(NOTE).unwrap(), "# Plan\n");
    assert!(host.note("New.md").is_some() && host.note("Archive/Old.md").is_some());
    let restarted = processor(&host);
    let report = host.run(restarted.undo_turn("m1"));
    assert!(report.refused.is_empty(), "{report:?}");
    assert_eq!(report.restored.len(), 3, "{report:?}");
    assert_eq!(host.note(NOTE).unwrap(), BEFORE);
    assert_eq!(host.note("New.md"), None);
    assert_eq!(host.note("Old.md").unwrap(), "old\r\nno newline at the end");
    // Nothing is left to undo.
    let again = host.run(restarted.undo_turn("m1"));
    assert!(again.restored.is_empty() && again.refused.is_empty(), "{again:?}");
}

#[test]
fn undo_is_refused_for_a_note_that_moved_on_and_a_delete_is_undone() {
    let host = FakeHost::new();
    host.put_note(NOTE, BEFORE);
    host.put_note("Gone.md", "keep me\n");
    let p = processor(&host);
    let calls = [
        ("t1", "edit_file", json!({"path": NOTE, "operation": "replace", "old_text": "alpha", "new_text": "beta"})),
        ("t2", "delete_file", json!({"path": "Gone.md"})),
    ];
    answer(&host, &p, "m1", &calls, Decision::ApproveOnce, None, None);
    assert_eq!(host.note("Gone.md"), None);
    host.put_note(NOTE, "the user rewrote it\n");
    let report = host.run(p.undo_turn("m1"));
    assert_eq!(report.restored, vec!["Gone.md".to_owned()]);
    assert_eq!(report.refused.len(), 1);
    assert_eq!(report.refused[0].path, NOTE);
    assert!(report.refused[0].reason.contains("changed since"), "{report:?}");
    assert_eq!(host.note(NOTE).unwrap(), "the user rewrote it\n");
    assert_eq!(host.note("Gone.md").unwrap(), "keep me\n");
}

#[test]
fn a_rejection_never_changes_a_note_whatever_the_model_calls() {
    let host = FakeHost::new();
    host.put_note(NOTE, BEFORE);
    host.put_note("Other.md", "other\n");
    let p = processor(&host);
    let calls = [
        ("t1", "edit_file", json!({"path": NOTE, "operation": "delete_lines", "start_line": 1, "end_line": 13})),
        ("t2", "write_file", json!({"path": NOTE, "content": ""})),
        ("t3", "move_file", json!({"from": "Other.md", "to": "Moved.md"})),
        ("t4", "delete_file", json!({"path": NOTE})),
    ];
    let seen = answer(&host, &p, "m1", &calls, Decision::Reject, None, None);
    assert_eq!(seen.len(), 4, "every change was asked");
    assert_eq!(host.note(NOTE).unwrap(), BEFORE);
    assert_eq!(host.note("Other.md").unwrap(), "other\n");
    assert_eq!(host.note("Moved.md"), None);
    for id in ["t1", "t2", "t3", "t4"] {
        assert!(tool_result(&host, id).1, "{id} reported as not done");
    }
}

#[test]
fn an_auto_approved_edit_is_applied_shown_as_a_diff_and_undoable() {
    let host = FakeHost::new();
    host.put_note(NOTE, BEFORE);
    let settings = smarthole_agent::Settings { auto_approve_tools: vec!["edit_file".into()], ..settings() };
    let p = processor_with(&host, settings);
    let (out, is_error) = tool_call(
        &host,
        &p,
        "m1",
        "edit_file",
        json!({"path": NOTE, "operation": "replace", "old_text": "alpha", "new_text": "beta"}),
    );
    assert_eq!((out.as_str(), is_error), ("Edited Notes/Plan.md (replace).", false));
    assert!(p.pending_approvals().is_empty());
    let shown = host.events().into_iter().find_map(|e| match e {
        Event::ChangeApplied { message_id, change, applied_hunks, .. } => Some((message_id, change, applied_hunks)),
        _ => None,
    });
    let (message_id, change, applied) = shown.expect("the change is shown");
    assert_eq!((message_id.as_str(), applied), ("m1", vec![1]));
    assert_eq!(change.hunks[0].lines.iter().filter(|l| l.kind == LineKind::Added).count(), 1);
    let report = host.run(p.undo_turn("m1"));
    assert_eq!(report.restored, vec![NOTE.to_owned()]);
    assert_eq!(host.note(NOTE).unwrap(), BEFORE);
}

#[test]
fn approve_for_this_conversation_covers_the_next_edit() {
    let host = FakeHost::new();
    host.put_note(NOTE, BEFORE);
    let p = processor(&host);
    let first =
        [("t1", "edit_file", json!({"path": NOTE, "operation": "replace", "old_text": "alpha", "new_text": "beta"}))];
    answer(&host, &p, "m1", &first, Decision::ApproveConversation, None, None);
    let asked = host.events().iter().filter(|e| matches!(e, Event::ApprovalRequested { .. })).count();
    let (out, is_error) = tool_call(
        &host,
        &p,
        "m2",
        "edit_file",
        json!({"path": NOTE, "operation": "replace", "old_text": "omega", "new_text": "end"}),
    );
    assert!(!is_error, "{out}");
    assert_eq!(host.events().iter().filter(|e| matches!(e, Event::ApprovalRequested { .. })).count(), asked);
    assert_eq!(host.note(NOTE).unwrap(), BEFORE.replace("alpha", "beta").replace("omega", "end"));
}

#[test]
fn a_reopened_turn_shows_each_card_at_its_tool_call_and_what_undo_did() {
    let host = FakeHost::new();
    host.put_note(NOTE, BEFORE);
    host.put_note("Keep.md", "keep\n");
    let p = processor(&host);
    let calls = [
        ("t1", "edit_file", json!({"path": NOTE, "operation": "replace", "old_text": "alpha", "new_text": "beta"})),
        ("t2", "delete_file", json!({"path": "Keep.md"})),
    ];
    // The first is approved, the second rejected.
    host.script([Reply::tools("", &calls), Reply::text("done")]);
    let user = async {
        for decision in [Decision::ApproveOnce, Decision::Reject] {
            let request = loop {
                if let Some(r) = p.pending_approvals().into_iter().next() {
                    break r;
                }
                host.sleep(100).await;
            };
            p.decide_approval_hunks(&request.id, decision, None).await.expect("decided");
        }
    };
    let (result, ()) = host.run(join(p.process(direct("m1", "tidy up")), user));
    assert!(result.success, "{result:?}");
    let restarted = processor(&host);
    let review = host.run(restarted.turn_review("m1"));
    // Both were asked within the same millisecond of virtual time: their order is not the point.
    let mut asked: Vec<(Option<&str>, &str)> =
        review.approvals.iter().map(|r| (r.tool_use_id.as_deref(), r.status.as_str())).collect();
    asked.sort();
    assert_eq!(asked, [(Some("t1"), "approved"), (Some("t2"), "rejected")]);
    let changed: Vec<(&str, &str, bool)> =
        review.changes.iter().map(|c| (c.tool_use_id.as_str(), c.change.path.as_str(), c.undone)).collect();
    assert_eq!(changed, [("t1", NOTE, false)], "only the approved change was applied");
    assert_eq!(review.changes[0].applied_hunks, vec![1]);
    let report = host.run(restarted.undo_turn("m1"));
    assert_eq!(report.restored, vec![NOTE.to_owned()]);
    let after = host.run(restarted.turn_review("m1"));
    assert!(after.changes[0].undone, "the change is still shown, as undone");
    assert_eq!(host.note(NOTE).unwrap(), BEFORE);
    assert_eq!(host.note("Keep.md").unwrap(), "keep\n");
}
