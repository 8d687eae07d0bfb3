//! What waits on the user and what a turn changed, through the exported `MessageProcessor`:
//! approval requests and the answers to them (hunk by hunk), a turn's review and its undo.

use js_sys::Promise;
use wasm_bindgen::prelude::*;

use super::convert::{from_js, js_error, promise, to_js};
use super::processor::WasmMessageProcessor;
use crate::Decision;

#[wasm_bindgen(js_class = MessageProcessor)]
impl WasmMessageProcessor {
    /// The user's answer to an approval request; resolves with the request as it now stands,
    /// rejects when it is unknown or already settled. `hunks` (numbers from 1) accepts only
    /// those hunks of a proposed change; left out, all of them.
    #[wasm_bindgen(js_name = decideApproval, unchecked_return_type = "Promise<ApprovalRequest>")]
    pub fn decide_approval(
        &self,
        id: String,
        #[wasm_bindgen(unchecked_param_type = "ApprovalDecision")] decision: String,
        #[wasm_bindgen(unchecked_optional_param_type = "number[]")] hunks: Option<Vec<u32>>,
    ) -> Promise {
        let core = self.core.clone();
        promise(async move {
            let decision: Decision =
                crate::lean::from_value(&serde_json::Value::String(decision.clone())).map_err(|_| {
                    format!("unknown approval decision {decision:?}: use approve_once, approve_conversation or reject")
                })?;
            let hunks = hunks.map(|h| h.into_iter().map(|n| n as usize).collect());
            core.decide_approval_hunks(&id, decision, hunks).await.map_err(|e| e.to_string())
        })
    }

    /// Undoes every change to the notes the message's turn made; resolves with which notes were
    /// restored and which refused (changed since), and why.
    #[wasm_bindgen(js_name = undoTurn, unchecked_return_type = "Promise<UndoReport>")]
    pub fn undo_turn(&self, message_id: String) -> Promise {
        let core = self.core.clone();
        promise(async move { Ok::<_, String>(core.undo_turn(&message_id).await) })
    }

    /// What a turn asked and changed (approval requests, applied changes and whether each was
    /// undone): the chat view redraws a reopened conversation's cards from it.
    #[wasm_bindgen(js_name = turnReview, unchecked_return_type = "Promise<TurnReview>")]
    pub fn turn_review(&self, message_id: String) -> Promise {
        let core = self.core.clone();
        promise(async move { Ok::<_, String>(core.turn_review(&message_id).await) })
    }

    /// The newest turn of the current conversation whose changes to the notes can be undone
    /// (null when none): what the headless `/undo` reverts.
    #[wasm_bindgen(js_name = lastUndoableTurn, unchecked_return_type = "Promise<string | null>")]
    pub fn last_undoable_turn(&self) -> Promise {
        let core = self.core.clone();
        promise(async move { Ok::<_, String>(core.last_undoable_turn().await) })
    }

    /// An edit in place asked in the editor ("Edit selection with the agent"): `text` is the
    /// editor's document, `from`/`to` the selection in its positions (UTF-16 units; equal: the
    /// paragraph at the cursor). The message is queued like a typed one; its answer streams as
    /// `edit_proposal` events and is then proposed hunk by hunk (`approval_requested`). Throws,
    /// in words for the user, when there is nothing to edit.
    #[wasm_bindgen(js_name = editInPlace, unchecked_return_type = "EditStarted")]
    pub fn edit_in_place(
        &self,
        #[wasm_bindgen(unchecked_param_type = "EditInPlaceRequest")] request: JsValue,
    ) -> Result<JsValue, JsValue> {
        #[derive(serde::Deserialize)]
        struct Request {
            path: String,
            text: String,
            from: usize,
            to: usize,
            instruction: String,
        }
        let request: Request = crate::lean::from_value(&from_js(&request))
            .map_err(|e| js_error(format!("editInPlace takes {{path, text, from, to, instruction}}: {e}")))?;
        let (started, work) = self
            .core
            .edit_in_place(&request.path, &request.text, (request.from, request.to), &request.instruction)
            .map_err(js_error)?;
        // Runs as process() runs a message; its result arrives as the `response` event.
        let _ = promise(async move { Ok::<_, String>(work.await) });
        Ok(to_js(&started))
    }

    /// Approval requests waiting for an answer, oldest first.
    #[wasm_bindgen(js_name = pendingApprovals, unchecked_return_type = "ApprovalRequest[]")]
    pub fn pending_approvals(&self) -> JsValue {
        to_js(&self.core.pending_approvals())
    }
}
