//! What the settings tab asks of the processor besides the settings themselves: the model
//! server's connection check (which also notes whether the model takes images, for the
//! attachment chips) with the embedding server's lines when one is set, and the usage ledger's
//! totals.

use super::handle::MessageProcessor;
use crate::host::Host;
use crate::host_types::HostError;
use crate::llm_client::check::{check_connection, ConnectionCheck};
use crate::llm_client::check_embeddings::embeddings_lines;
use crate::usage::{totals, UsageTotals};

impl<H: Host + 'static> MessageProcessor<H> {
    /// Checks the model server with small real requests (the settings' "Check connection", the
    /// headless `--check`): a line per step, and the models the server lists.
    pub async fn check_connection(&self) -> ConnectionCheck {
        let settings = self.settings();
        let mut report = check_connection(&self.inner.host, &settings).await;
        // The embedding server is checked whatever the chat's server said: it is another server.
        report.lines.extend(embeddings_lines(&self.inner.host, &settings).await);
        report.ok = report.lines.iter().all(|l| l.ok || l.optional);
        report.lines.iter_mut().for_each(|line| self.inner.config.mask_in_place(&mut line.text));
        if let Some(images) = report.lines.iter().find(|l| l.step == "images") {
            self.inner.attachments.images_checked(&settings, images.ok);
        }
        report
    }

    /// The day's and the month's token use and estimated cost (the usage ledger, local time),
    /// for the settings.
    pub async fn usage_totals(&self) -> Result<UsageTotals, HostError> {
        totals(&self.inner.host).await
    }
}
