//! The proposal drawn while the model writes it: the answer so far, and its hunks sent to the
//! editor as `edit_proposal` events — at every piece of the answer, or for a long passage at most
//! one every `STREAM_EVERY_MS`, so it is not diffed at every token — whichever agent writes it
//! (the built-in one or an ACP agent).

use std::cell::RefCell;

use crate::edit_in_place::{proposal_hunks, EditTarget};
use crate::event::Event;
use crate::host::Host;

/// Least time between two streamed proposals of a long passage.
const STREAM_EVERY_MS: u64 = 40;
/// Passages up to this size are drawn at every piece of the answer (their diff costs little).
const DRAWN_EACH_PIECE_BYTES: usize = 16 * 1024;

/// The edit in place being answered, if the message in flight is one.
#[derive(Default)]
pub(crate) struct EditStreams {
    current: RefCell<Option<Stream>>,
}

struct Stream {
    message_id: String,
    target: EditTarget,
    answer: String,
    sent_ms: Option<u64>,
}

impl EditStreams {
    /// A run of `message_id` starts: its answer is followed if it is an edit in place.
    pub(crate) fn begin(&self, message_id: &str, target: Option<&EditTarget>) {
        *self.current.borrow_mut() = target.map(|t| Stream {
            message_id: message_id.to_owned(),
            target: t.clone(),
            answer: String::new(),
            sent_ms: None,
        });
    }

    /// A model call starts over (a retry): what the failed one wrote is void.
    pub(crate) fn restart(&self, message_id: &str) {
        if let Some(s) = self.current.borrow_mut().as_mut().filter(|s| s.message_id == message_id) {
            s.answer.clear();
        }
    }

    /// More of the answer to `message_id`; its proposal goes out when the last is old enough.
    pub(crate) fn push<H: Host>(&self, host: &H, message_id: &str, text: &str) {
        let mut current = self.current.borrow_mut();
        let Some(s) = current.as_mut().filter(|s| s.message_id == message_id) else { return };
        s.answer.push_str(text);
        let now = host.now_ms();
        let long = s.target.lines.len() > DRAWN_EACH_PIECE_BYTES;
        if long && s.sent_ms.is_some_and(|sent| now.saturating_sub(sent) < STREAM_EVERY_MS) {
            return;
        }
        s.sent_ms = Some(now);
        host.emit(&Event::EditProposal {
            message_id: s.message_id.clone(),
            path: s.target.path.clone(),
            hunks: proposal_hunks(&s.target, &s.answer, true),
        });
    }

    /// The run ended: nothing more is followed.
    pub(crate) fn end(&self) {
        self.current.borrow_mut().take();
    }
}
