//! The chat view's conversations through the exported `MessageProcessor`: the list, a page of
//! one, reading, new, reopening, exporting, the hidden system line, usage so far, schedules.
//! Each call goes to the core in one hop.

use js_sys::Promise;
use wasm_bindgen::prelude::*;

use super::convert::promise;
use super::processor::WasmMessageProcessor;
use crate::ScheduleChange;

#[wasm_bindgen(js_class = MessageProcessor)]
impl WasmMessageProcessor {
    /// Every conversation's metadata, oldest first.
    #[wasm_bindgen(unchecked_return_type = "Promise<Conversation[]>")]
    pub fn conversations(&self) -> Promise {
        let core = self.core.clone();
        promise(async move { core.conversations().await })
    }

    /// Writes a conversation as a Markdown note (or what its note lacks); resolves with the
    /// note's path.
    #[wasm_bindgen(js_name = exportConversation, unchecked_return_type = "Promise<string>")]
    pub fn export_conversation(&self, id: String) -> Promise {
        let core = self.core.clone();
        promise(async move { core.export_conversation(&id).await })
    }

    /// A page of a conversation: its newest `limit` turns before the cursor `before` (from an
    /// earlier page; the end when absent), oldest first.
    #[wasm_bindgen(js_name = conversationPage, unchecked_return_type = "Promise<ConversationPage>")]
    pub fn conversation_page(&self, id: String, before: Option<f64>, limit: u32) -> Promise {
        let core = self.core.clone();
        let before = before.filter(|b| b.is_finite() && *b >= 0.0).map(|b| b as u64);
        promise(async move { core.conversation_page(&id, before, limit as usize).await })
    }

    /// What a conversation has cost so far: every turn's usage added up.
    #[wasm_bindgen(js_name = conversationUsage, unchecked_return_type = "Promise<Usage>")]
    pub fn conversation_usage(&self, id: String) -> Promise {
        let core = self.core.clone();
        promise(async move { core.conversation_usage(&id).await })
    }

    /// The conversation new messages go to, or null.
    #[wasm_bindgen(js_name = currentConversation, unchecked_return_type = "Promise<Conversation | null>")]
    pub fn current_conversation(&self) -> Promise {
        let core = self.core.clone();
        promise(async move { Ok::<_, String>(core.current_conversation().await) })
    }

    /// "New chat": ends the current conversation.
    #[wasm_bindgen(js_name = newConversation, unchecked_return_type = "Promise<void>")]
    pub fn new_conversation(&self) -> Promise {
        let core = self.core.clone();
        promise(async move { core.new_conversation().await })
    }

    /// Makes a past conversation current again.
    #[wasm_bindgen(js_name = openConversation, unchecked_return_type = "Promise<Conversation>")]
    pub fn open_conversation(&self, id: String) -> Promise {
        let core = self.core.clone();
        promise(async move { core.open_conversation(&id).await })
    }

    /// Conversations with a schedule, soonest run first.
    #[wasm_bindgen(unchecked_return_type = "Promise<Conversation[]>")]
    pub fn scheduled(&self) -> Promise {
        let core = self.core.clone();
        promise(async move { Ok::<_, String>(core.scheduled().await) })
    }

    /// Pauses, resumes or deletes a conversation's schedule; resolves with the conversation.
    #[wasm_bindgen(js_name = changeSchedule, unchecked_return_type = "Promise<Conversation>")]
    pub fn change_schedule(
        &self,
        id: String,
        #[wasm_bindgen(unchecked_param_type = "ScheduleChange")] change: String,
    ) -> Promise {
        let core = self.core.clone();
        promise(async move {
            let change = match change.as_str() {
                "pause" => ScheduleChange::Pause,
                "resume" => ScheduleChange::Resume,
                "delete" => ScheduleChange::Delete,
                other => return Err(format!("unknown schedule change {other:?}: use pause, resume or delete")),
            };
            core.change_schedule(&id, change).await.map_err(|e| e.to_string())
        })
    }
}
