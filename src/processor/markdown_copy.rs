//! The Markdown copies of conversations (issue 19): after each recorded turn, when the user keeps
//! copies, and on demand for any conversation (the export command). What to add is worked out by
//! `conversation::markdown` from the note itself; this reads the history and writes the note.
//! Copies are written in the background, in turn order (under the store's lock), and a copy that
//! cannot be written is reported and never holds up or changes the history. A copy is written
//! only to a regular file in the copies folder, at its real location (never through a link).

use super::error::ProcessorError;
use super::handle::MessageProcessor;
use super::state::loaded;
use crate::conversation::markdown::{header, missing, note_path, real_copy_path, Missing};
use crate::event::{Event, NoticeLevel};
use crate::host::Host;
use crate::host_types::LogLevel;
use crate::store::{ConversationStore, StoreError};
use crate::vault::path::parent;

/// Turns read from the end of the history before the whole of it: a copy kept up to date lacks
/// only the newest turn.
const RECENT_TURNS: usize = 8;

impl<H: Host + 'static> MessageProcessor<H> {
    /// After a recorded turn: brings the conversation's copy up to date, in the background.
    pub(super) fn copy_turn_to_markdown(&self, conversation_id: String) {
        if !self.settings().markdown_copies {
            return;
        }
        self.spawn(|this| async move {
            if let Err(e) = this.export_conversation(&conversation_id).await {
                let host = &this.inner.host;
                host.log(LogLevel::Warn, &e.to_string());
                host.emit(&Event::Notice {
                    level: NoticeLevel::Warning,
                    text: format!(
                        "{e}. The conversation itself is saved; the copy is completed after the next answer."
                    ),
                });
            }
        });
    }

    /// Writes a conversation as a Markdown note — or what its note lacks, when it has one — in
    /// the folder of the Markdown copies; gives the note's path (issue 19).
    pub async fn export_conversation(&self, id: &str) -> Result<String, ProcessorError> {
        self.initialize().await?;
        let setting = self.settings().markdown_copies_folder.clone();
        // The settings refused a folder that does not normalise.
        let folder = crate::vault::normalize(&setting, &[]).unwrap_or(setting);
        let host = &self.inner.host;
        let mut guard = self.inner.store.lock().await;
        let store = loaded(&mut guard)?;
        let conversation = store.find(host, id).await?.ok_or_else(|| StoreError::Unknown(id.to_owned()))?;
        // The copy kept with the conversation, while it is in the copies folder (a new folder
        // chosen since, or an index naming another note, starts a copy in the folder).
        let kept = conversation.markdown_copy.clone().filter(|p| parent(p) == folder);
        let path = kept.unwrap_or_else(|| note_path(&folder, &conversation));
        let failed = |reason: String| ProcessorError::MarkdownCopy { path: path.clone(), reason };
        let all = host.vault_list(false).await.map_err(|e| failed(format!("the vault could not be listed: {e}")))?;
        let real = real_copy_path(&path, &folder, &all, &host.config_folder()).map_err(failed)?;
        // A note that cannot be read is taken as absent: creating it then fails if it is there.
        let existing = host.vault_read(&real).await.ok();
        let text = match lacking(store, host, id, existing.as_deref().unwrap_or("")).await? {
            Some(text) => text,
            None => return Ok(path),
        };
        match existing {
            None => {
                let note = format!("{}{text}", header(&conversation));
                host.vault_create(&real, &note).await.map_err(|e| failed(e.to_string()))?;
            }
            Some(note) => {
                // Added at the end, never rewritten, a blank line apart from what is there.
                let gap = match (note.is_empty() || note.ends_with("\n\n"), note.ends_with('\n')) {
                    (true, _) => "",
                    (false, true) => "\n",
                    (false, false) => "\n\n",
                };
                host.vault_append(&real, &format!("{gap}{text}")).await.map_err(|e| failed(e.to_string()))?;
            }
        }
        if conversation.markdown_copy.as_deref() != Some(path.as_str()) {
            let kept = path.clone();
            store
                .update(host, id, move |c| {
                    c.markdown_copy = Some(kept);
                    Ok(())
                })
                .await?;
        }
        Ok(path)
    }
}

/// The Markdown a copy whose text is `note` lacks, `None` when it lacks nothing: from the newest
/// turns when they reach back to what the note holds, else from the whole history.
async fn lacking<H: Host>(
    store: &mut ConversationStore,
    host: &H,
    id: &str,
    note: &str,
) -> Result<Option<String>, StoreError> {
    let (recent, _, before) = store.read_view_page(host, id, None, RECENT_TURNS).await?;
    let found = match missing(note, &recent, before.is_none()) {
        Missing::ReadFurther => {
            let (all, _) = store.read_view_lines(host, id).await?;
            missing(note, &all, true)
        }
        found => found,
    };
    Ok(match found {
        Missing::Text(text) => Some(text),
        Missing::Nothing | Missing::ReadFurther => None,
    })
}
