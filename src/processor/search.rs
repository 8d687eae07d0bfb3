//! The vault's search index as the processor runs it (`tools::indexer` builds and answers it):
//! started in the background once, written back every minute while it changes, told of every
//! change to the vault, and its state for the status line.

use super::handle::MessageProcessor;
use crate::host::Host;
use crate::host_types::LogLevel;
use crate::tools::indexer::Phase;

/// How often the search index is written back while it changes.
const SEARCH_INDEX_SAVE_MS: u64 = 60_000;

impl<H: Host + 'static> MessageProcessor<H> {
    /// Starts building the vault's search index in the background, once (the hosts call it after
    /// `initialize`; the first `search_files` does otherwise); then writes it back every minute
    /// while it changes. Progress arrives as `Event::SearchIndex`; messages are never held up by
    /// it.
    pub fn start_search_index(&self) {
        if self.settings().search_index_max_mb == 0 || !self.inner.search.claim_start() {
            return;
        }
        self.spawn(|this| async move {
            let settings = this.settings();
            this.inner.search.build(&this.inner.host, &settings).await;
            loop {
                this.inner.host.sleep(SEARCH_INDEX_SAVE_MS).await;
                this.inner.search.save(&this.inner.host).await;
            }
        });
    }

    /// A note or folder was created, changed, deleted or renamed (`kind`, for the log): the
    /// search index repairs itself before its next answer.
    pub fn vault_changed(&self, path: &str, kind: &str) {
        let inner = &self.inner;
        inner.host.log(LogLevel::Debug, &format!("vault {kind}: {path}"));
        inner.search.changed(Some(path));
        inner.attachments.vault_changed(kind);
    }

    /// The search index's state, notes held and size in memory (bytes).
    pub fn search_index_status(&self) -> (String, usize, usize) {
        let search = &self.inner.search;
        let state = match search.phase() {
            Phase::Idle => "idle".to_owned(),
            Phase::Building(done, total) => format!("building {done}/{total}"),
            Phase::Ready => "ready".to_owned(),
            Phase::Off(why) => format!("off: {why}"),
        };
        (state, search.with(|i| i.len()), search.bytes())
    }
}
