//! What the pipeline keeps for attachments: the `@` picker's listing of the vault, the copies
//! already read and checked (turns send them again), and the server and model whose last
//! connection check refused an image (an image attached for them is refused on its chip, before
//! anything is sent).

use std::cell::RefCell;

use crate::attachment::{AttachError, Attachment, AttachmentKind, Copies, Mentions};
use crate::settings::Settings;

/// The picker's listing, the checked copies, and the model known to refuse images.
#[derive(Default)]
pub(crate) struct AttachmentState {
    /// The `@` picker's listing of the vault.
    pub(crate) mentions: Mentions,
    /// Attachments' copies read and checked, for the turns that send them again.
    pub(crate) copies: Copies,
    /// The server and model whose last connection check refused an image.
    images_refused: RefCell<Option<(String, String)>>,
}

impl AttachmentState {
    /// A note or folder changed (`kind`, as the host names it): an edit changes no name the
    /// picker offers, anything else may.
    pub(crate) fn vault_changed(&self, kind: &str) {
        if kind != "modify" {
            self.mentions.changed();
        }
    }

    /// What the last connection check of `settings`' server and model found: whether the model
    /// took an image.
    pub(crate) fn images_checked(&self, settings: &Settings, taken: bool) {
        let refused = (!taken).then(|| (settings.base_url.clone(), settings.model.clone()));
        *self.images_refused.borrow_mut() = refused;
    }

    /// An attached image refused when the chat's model is known not to take images (its last
    /// connection check said so): said on the chip, before anything is sent.
    pub(crate) fn taken_by_model(
        &self,
        settings: &Settings,
        attached: Result<Attachment, AttachError>,
    ) -> Result<Attachment, AttachError> {
        let attachment = attached?;
        let refused = self.images_refused.borrow();
        let same = refused.as_ref().is_some_and(|(url, model)| *url == settings.base_url && *model == settings.model);
        if same && attachment.kind == AttachmentKind::Image {
            return Err(AttachError::ModelTakesNoImages {
                model: settings.model.clone(),
                server: settings.base_url.clone(),
            });
        }
        Ok(attachment)
    }
}
