//! Stop: the request, wait or tool in flight is abandoned; the message resolves as cancelled
//! with nothing recorded and nothing left in the inbox; the next message runs normally.

mod common;

use common::*;
use smarthole_agent::testing::{FakeHost, Reply};
use smarthole_agent::Host;
use smarthole_agent::{Event, Stage};

#[test]
fn stop_mid_stream_leaves_nothing_behind_and_the_next_message_works() {
    let host = FakeHost::new();
    host.script([Reply::slow_text("a long answer that streams slowly", 100), Reply::text("next one fine")]);
    let p = processor(&host);
    let (result, stopped) = host.run(async {
        let stop = async {
            // message_start, content_block_start, then a delta every 100 ms.
            host.sleep(450).await;
            p.cancel_current_processing()
        };
        futures::join!(p.process(from_hub("c1", "tell me a story")), stop)
    });
    assert!(stopped);
    assert_eq!(result, smarthole_agent::ProcessResult::cancelled("c1"));
    assert!(!streamed_text(&host, "c1").is_empty(), "some text had streamed");
    assert!(history(&host).is_empty(), "nothing recorded");
    assert!(inbox(&host).is_empty(), "the message left the inbox");
    assert_eq!(host.hub_responses("notification").len(), 0, "no notification for a stop");
    assert_eq!(host.hub_responses("ack").len(), 1);
    assert!(!p.cancel_current_processing(), "idle again");
    let next = host.run(p.process(direct("c2", "hello")));
    assert_eq!(next.response.as_deref(), Some("next one fine"));
    assert_eq!(recorded_count(&host, "c2"), 1);
    assert_eq!(history(&host).len(), 2);
}

#[test]
fn stop_during_a_retry_wait_ends_the_wait() {
    let host = FakeHost::new();
    host.script([Reply::error(529, "overloaded_error"), Reply::text("never asked")]);
    let p = processor(&host);
    let result = host.run(async {
        let stop = async {
            host.sleep(500).await;
            p.cancel_current_processing();
        };
        futures::join!(p.process(direct("w", "hi")), stop).0
    });
    assert!(result.cancelled);
    assert_eq!(host.requests().len(), 1, "the retry never happened");
    assert_eq!(host.now() - smarthole_agent::testing::START_MS, 500, "it did not wait out the backoff");
}

#[test]
fn stop_while_waiting_for_the_response_head() {
    let host = FakeHost::new();
    host.script([Reply::hang(), Reply::text("after")]);
    let p = processor(&host);
    let result = host.run(async {
        let stop = async {
            host.sleep(10).await;
            p.cancel_current_processing();
        };
        futures::join!(p.process(direct("h", "hi")), stop).0
    });
    assert!(result.cancelled);
    assert!(host.run(p.process(direct("h2", "again"))).success);
}

#[test]
fn stop_cancels_only_the_message_in_flight() {
    let host = FakeHost::new();
    host.script([Reply::slow_text("first, slow", 100), Reply::text("second answered")]);
    let p = processor(&host);
    let (first, second) = host.run(async {
        let stop = async {
            host.sleep(150).await;
            assert_eq!(p.current_message_id().as_deref(), Some("1"));
            assert_eq!(p.queued(), 1);
            p.cancel_current_processing();
        };
        let (a, b, ()) = futures::join!(p.process(direct("1", "one")), p.process(direct("2", "two")), stop);
        (a, b)
    });
    assert!(first.cancelled);
    assert_eq!(second.response.as_deref(), Some("second answered"));
    assert!(!second.cancelled);
}

#[test]
fn stop_when_idle_is_a_no_op() {
    let host = FakeHost::new();
    let p = processor(&host);
    let before = host.events().len();
    assert!(!p.cancel_current_processing());
    assert_eq!(host.events().len(), before, "nothing happened");
}

#[test]
fn a_cancelled_message_is_not_retried_at_the_next_start() {
    let host = FakeHost::new();
    host.script([Reply::slow_text("streaming", 100)]);
    let p = processor(&host);
    host.run(async {
        let stop = async {
            host.sleep(150).await;
            p.cancel_current_processing();
        };
        futures::join!(p.process(direct("k", "hi")), stop)
    });
    drop(p);
    let p = processor(&host);
    let summary = host.run(p.reprocess_pending()).unwrap();
    assert!(summary.results.is_empty());
    assert_eq!(host.requests().len(), 1);
    assert!(host.events().iter().any(|e| matches!(e, Event::Stage { stage: Stage::InboxCleaned, .. })));
}
