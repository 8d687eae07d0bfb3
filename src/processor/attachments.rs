//! What the user points at, before a message is sent: the `@` picker's matches, and a note,
//! folder, image or PDF attached — checked, read and copied at once, so the chip can say what will
//! be sent (or why nothing will). Kept state: `state/attachments.rs`.

use super::handle::MessageProcessor;
use crate::attachment::{attach_bytes_kept, attach_vault_kept, AttachError, Attachment, Mention};
use crate::host::Host;

impl<H: Host + 'static> MessageProcessor<H> {
    /// The `@` picker's best `limit` matches for what was typed after the `@`.
    pub async fn mentions(&self, query: &str, limit: usize) -> Vec<Mention> {
        let inner = &self.inner;
        inner.attachments.mentions.find(&inner.host, &self.settings(), query, limit).await
    }

    /// Attaches a note, folder, image or PDF of the vault for the next message (the chat's `@`
    /// picker, headless `--attach`): checked, read and copied now, so the chip can say what will
    /// be sent (or why nothing will).
    pub async fn attach_vault(&self, path: &str) -> Result<Attachment, AttachError> {
        let (inner, settings) = (&self.inner, self.settings());
        let attached = attach_vault_kept(&inner.host, &settings, &inner.attachments.copies, path).await;
        inner.attachments.taken_by_model(&settings, attached)
    }

    /// Attaches an image or PDF pasted or dropped into the chat.
    pub async fn attach_bytes(&self, name: &str, bytes: &[u8]) -> Result<Attachment, AttachError> {
        let (inner, settings) = (&self.inner, self.settings());
        let attached = attach_bytes_kept(&inner.host, &settings, &inner.attachments.copies, name, bytes).await;
        inner.attachments.taken_by_model(&settings, attached)
    }
}
