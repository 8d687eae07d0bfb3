//! What the chat view is told so that it only draws: the messages in flight (an event at each
//! change, the same list read at once), Stop answered synchronously with what is left, and the
//! hidden "Chat opened" line the core records when the view opens.

mod common;

use common::*;
use smarthole_agent::testing::{FakeHost, Reply};
use smarthole_agent::{Event, Host, InFlightMessage, LineRole};

fn ids(messages: &[InFlightMessage]) -> Vec<&str> {
    messages.iter().map(|m| m.message_id.as_str()).collect()
}

/// Every `in_flight` event so far, as lists of ids.
fn in_flight_events(host: &FakeHost) -> Vec<Vec<String>> {
    host.events()
        .into_iter()
        .filter_map(|e| match e {
            Event::InFlight { messages } => Some(messages.into_iter().map(|m| m.message_id).collect()),
            _ => None,
        })
        .collect()
}

#[test]
fn a_message_is_in_flight_from_its_arrival_to_its_answer() {
    let host = FakeHost::new();
    host.script([Reply::slow_text("one", 50), Reply::text("two")]);
    let p = processor(&host);
    let first = p.process(direct("1", "one"));
    let second = p.process(direct("2", "two"));
    assert_eq!(ids(&p.messages_in_flight()), ["1", "2"], "listed as soon as accepted");
    host.run(async { futures::join!(first, second) });
    assert!(p.messages_in_flight().is_empty(), "idle once both are answered");
    assert_eq!(in_flight_events(&host), [vec!["1"], vec!["1", "2"], vec!["2"], vec![]] as [Vec<&str>; 4]);
}

#[test]
fn stop_answers_at_once_with_what_is_left_before_the_cancelled_result_arrives() {
    let host = FakeHost::new();
    host.script([Reply::slow_text("first, slow", 100), Reply::text("second answered")]);
    let p = processor(&host);
    let (first, second) = host.run(async {
        let stop = async {
            host.sleep(150).await;
            let answer = p.stop();
            assert_eq!(answer.stopped.as_deref(), Some("1"));
            assert_eq!(ids(&answer.in_flight), ["2"], "the stopped one is gone at once; the next still waits");
            assert_eq!(ids(&p.messages_in_flight()), ["2"]);
        };
        let (a, b, ()) = futures::join!(p.process(direct("1", "one")), p.process(direct("2", "two")), stop);
        (a, b)
    });
    assert!(first.cancelled);
    assert_eq!(second.response.as_deref(), Some("second answered"));
    assert!(p.messages_in_flight().is_empty());
    let idle = p.stop();
    assert_eq!((idle.stopped, idle.in_flight), (None, vec![]), "Stop when idle changes nothing");
}

#[test]
fn a_scheduled_run_of_another_conversation_is_listed_with_its_conversation() {
    let host = FakeHost::new();
    host.script([Reply::text("done")]);
    let p = processor(&host);
    let mut job = direct("w1", "run the job");
    job["source"] = "worker".into();
    job["metadata"] = serde_json::json!({"conversationId": "conv-job"});
    let run = p.process(job);
    let listed = p.messages_in_flight();
    assert_eq!(listed[0].conversation_id.as_deref(), Some("conv-job"), "the view can tell it is not its own");
    host.run(run);
}

#[test]
fn the_chat_opening_records_the_hidden_line_the_core_words() {
    let host = FakeHost::new();
    host.script([Reply::text("hello!")]);
    let p = processor(&host);
    let id = host.run(p.chat_opened()).unwrap();
    host.run(p.process(direct("a", "hi")));
    let lines = host.run(p.conversation_lines(&id)).unwrap();
    assert_eq!((lines[0].role, lines[0].visible), (LineRole::System, false));
    assert_eq!(serde_json::to_value(&lines[0].content).unwrap()[0]["text"], "Chat opened");
    assert!(!host.requests()[0].body.to_string().contains("Chat opened"), "never sent to the model");
}
