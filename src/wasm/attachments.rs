//! What a message carries besides its text, through the exported `MessageProcessor`: notes,
//! folders, images and PDFs attached (checked, read and copied by the core), the `@` picker's
//! matches; and the checks the view makes before it reads a file or fills the input (free
//! functions: a method costs the module its borrow checks, for nothing here).

use js_sys::Promise;
use wasm_bindgen::prelude::*;

use super::convert::promise;
use super::processor::WasmMessageProcessor;

#[wasm_bindgen(js_class = MessageProcessor)]
impl WasmMessageProcessor {
    /// Attaches a note, folder, image or PDF of the vault for the next message; rejects with
    /// what to show on the chip.
    #[wasm_bindgen(js_name = attachVault, unchecked_return_type = "Promise<Attachment>")]
    pub fn attach_vault(&self, path: String) -> Promise {
        let core = self.core.clone();
        promise(async move { core.attach_vault(&path).await })
    }

    /// The `@` picker's best matches for what was typed after the `@` (the newest notes for
    /// nothing yet).
    #[wasm_bindgen(unchecked_return_type = "Promise<Mention[]>")]
    pub fn mentions(&self, query: String, limit: u32) -> Promise {
        let core = self.core.clone();
        promise(async move { Ok::<_, String>(core.mentions(&query, limit as usize).await) })
    }

    /// Attaches an image or PDF pasted or dropped into the chat (scaled down by the view first
    /// when large); rejects with what to show on the chip.
    #[wasm_bindgen(js_name = attachBytes, unchecked_return_type = "Promise<Attachment>")]
    pub fn attach_bytes(&self, name: String, bytes: Vec<u8>) -> Promise {
        let core = self.core.clone();
        promise(async move { core.attach_bytes(&name, &bytes).await })
    }
}

/// Why a pasted or dropped file of this size cannot be attached (checked before it is read), or
/// undefined.
#[wasm_bindgen(js_name = pasteSizeProblem)]
pub fn paste_size_problem(name: &str, size: f64) -> Option<String> {
    crate::check_paste_size(name, size as u64).err().map(|e| e.to_string())
}

/// The chat input's text for "Ask the agent about the selection".
#[wasm_bindgen(js_name = selectionQuote)]
pub fn selection_quote(path: &str, from_line: u32, to_line: u32, text: &str) -> String {
    crate::selection_quote(path, from_line, to_line, text)
}
