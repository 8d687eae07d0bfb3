//! Copies removed with the history that sent them: after "Clear history" the user's pasted
//! screenshots and PDFs must not stay behind under `.smarthole/attachments/`. A copy is kept while
//! a message still waiting (the inbox) or set aside (`failed/`, which a retry sends again) names
//! its hash, or a chip in the chat holds it (attached, not sent yet). The copies turns sent are
//! forgotten from memory too.

use super::resolve::Copies;
use crate::attachment_ref::{is_content_hash, COPIES_DIR};
use crate::bounded::{read_bounded, Bounded, MAX_INBOX_BYTES};
use crate::host::Host;
use crate::host_types::HostError;
use crate::inbox::{FAILED_DIR, INBOX_DIR};

/// Removes the copies nothing still needs; returns how many.
pub(crate) async fn remove_unneeded_copies<H: Host>(host: &H, copies: &Copies) -> Result<usize, HostError> {
    copies.forget_sent();
    let names = host.list_dir(COPIES_DIR).await?;
    if names.is_empty() {
        return Ok(0);
    }
    let mut waiting = String::new();
    for dir in [INBOX_DIR, FAILED_DIR] {
        for name in host.list_dir(dir).await? {
            if let Bounded::Text(text) = read_bounded(host, &format!("{dir}/{name}"), MAX_INBOX_BYTES).await? {
                waiting.push_str(&text);
            }
        }
    }
    let mut removed = 0;
    for name in names {
        let hash = name.split('.').next().unwrap_or_default();
        if !is_content_hash(hash) || waiting.contains(hash) || copies.awaits_sending(hash) {
            continue;
        }
        host.remove_file(&format!("{COPIES_DIR}/{name}")).await?;
        removed += 1;
    }
    Ok(removed)
}
