//! Edit in place in the pipeline: the message made from the editor's selection and queued like a
//! typed one, and, once its answer is written, the answer proposed as a change to the note
//! (`tools::edit_in_place`), whose outcome ends the turn's answer.

use std::future::Future;

use futures::future::FutureExt;
use serde::Serialize;

use super::handle::MessageProcessor;
use crate::agent::TurnOutcome;
use crate::edit_in_place::{locate, prompt, said, utf16_to_byte, EditError, EditScope, EditTarget};
use crate::host::Host;
use crate::hub::Priority;
use crate::llm::{ApiMessage, ContentBlock, Role};
use crate::message::{ProcessResult, RoutedMessage};
use crate::tools::edit_in_place::{propose, EDIT_IN_PLACE};
use crate::tools::ToolContext;

/// What `editInPlace` answers at once: the message queued, and the passage it works on.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EditStarted {
    pub message: RoutedMessage,
    pub scope: EditScope,
    /// The whole lines the passage lies in (1-based, inclusive).
    pub start_line: usize,
    pub end_line: usize,
    /// What the user is told about the passage taken.
    pub said: String,
}

impl<H: Host + 'static> MessageProcessor<H> {
    /// An edit in place asked in the editor: `text` is the editor's document and `from..to` the
    /// selection in UTF-16 units (CodeMirror's positions); with none, the paragraph at the cursor.
    /// Returns at once with the queued message; its run is the future.
    pub fn edit_in_place(
        &self,
        path: &str,
        text: &str,
        (from, to): (usize, usize),
        instruction: &str,
    ) -> Result<(EditStarted, impl Future<Output = ProcessResult> + 'static), EditError> {
        let target = locate(path, text, utf16_to_byte(text, from)?, utf16_to_byte(text, to)?, instruction)?;
        let mut message = self.new_message(&prompt(&target));
        let started = EditStarted {
            message: message.clone(),
            scope: target.scope,
            start_line: target.start_line,
            end_line: target.end_line(),
            said: said(&target),
        };
        message.edit = Some(Box::new(target));
        let work = self.accept_message(message);
        let this = self.clone();
        Ok((started, async move {
            let mut result = work.await;
            result.mask_texts(&|text| this.inner.config.mask_in_place(text));
            result
        }))
    }

    /// The answer to an edit in place proposed as the change to its note, waiting on the user's
    /// answer per hunk; what happened ends the turn's answer.
    pub(super) async fn propose_edit(&self, message: &RoutedMessage, target: &EditTarget, outcome: &mut TurnOutcome) {
        let settings = self.settings();
        let notify = |_: &str, _: Priority| {};
        let approve = |ask| self.ask_approval(message, ask).boxed_local();
        let start_index = || self.start_search_index();
        let services = self.turn_services(message, &notify, &approve, &[], &start_index);
        let mut ctx = ToolContext::new(&self.inner.host, &settings, services);
        ctx.tool_use_id = EDIT_IN_PLACE.to_owned();
        let out = propose(&ctx, target, &outcome.text()).await;
        outcome.push(ApiMessage {
            role: Role::Assistant,
            content: vec![ContentBlock::text(format!("\n\n{}", out.content))],
        });
    }
}
