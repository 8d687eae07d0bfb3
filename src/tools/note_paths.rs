//! The note tools' common first steps: a path checked as text, the vault's listing without the
//! protected folders (or the search index's listing when it is ready), a path's real location, a
//! folder argument, and the existing note it names (apart from `notes.rs` so that `find.rs`, the
//! search and listing tools, use them without depending on the other note tools).

use std::rc::Rc;

use super::args::Args;
use super::call::{ToolContext, ToolOutput};
use super::indexer::Listing;
use crate::host::Host;
use crate::vault::path::{is_protected, normalize, protected_folders};
use crate::vault::real::{locate, Access};
use crate::vault::resolve::existing;
use crate::vault::VaultEntry;

pub(super) type Step<T> = Result<T, ToolOutput>;

pub(super) fn protected<H: Host>(ctx: &ToolContext<'_, H>) -> Vec<String> {
    protected_folders(&ctx.host.config_folder(), &ctx.settings.protected_folders)
}

/// A checked, normalised path.
pub(super) fn checked<H: Host>(ctx: &ToolContext<'_, H>, path: &str) -> Step<String> {
    normalize(path, &protected(ctx)).map_err(|e| ToolOutput::error(format!("Path {path:?} refused: {e}.")))
}

/// The vault's entries outside the protected folders (links and special files included, with
/// their kind: `vault::real` decides what may be reached).
pub(super) async fn entries<H: Host>(ctx: &ToolContext<'_, H>) -> Step<Vec<VaultEntry>> {
    let protected = protected(ctx);
    let all = ctx
        .host
        .vault_list(ctx.settings.follow_linked_folders)
        .await
        .map_err(|e| ToolOutput::error(format!("Could not list the vault: {e}.")))?;
    Ok(all.into_iter().filter(|e| is_protected(&e.path, &protected).is_none()).collect())
}

/// Where a checked path really is (links on its way followed), or the refusal the model reads.
pub(super) fn real<H: Host>(ctx: &ToolContext<'_, H>, path: &str, all: &[VaultEntry], access: Access) -> Step<String> {
    locate(path, all, &protected(ctx), access, ctx.settings.follow_linked_folders)
        .map_err(|e| ToolOutput::error(format!("Path {path:?} refused: {e}.")))
}

/// The entry a path names once its real location is known (`vault::real::real_entry`), with the
/// refusal the model reads.
pub(super) fn real_entry<H: Host>(
    ctx: &ToolContext<'_, H>,
    normalized: &str,
    all: &[VaultEntry],
    access: Access,
) -> Step<(String, Option<VaultEntry>)> {
    crate::vault::real::real_entry(normalized, all, &protected(ctx), access, ctx.settings.follow_linked_folders)
        .map_err(|e| ToolOutput::error(e.to_string()))
}

/// The existing file a path names (the case rule applied), at its real location.
pub(super) async fn existing_file<H: Host>(ctx: &ToolContext<'_, H>, path: &str, access: Access) -> Step<VaultEntry> {
    let normalized = checked(ctx, path)?;
    let all = entries(ctx).await?;
    let (_, found) = real_entry(ctx, &normalized, &all, access)?;
    let entry = match found {
        Some(entry) => entry,
        None => existing(&normalized, &[])
            .map_err(|e| ToolOutput::error(format!("{e}. Use list_files or search_files to find the right path.")))?
            .clone(),
    };
    if entry.is_folder {
        return Err(ToolOutput::error(format!("{} is a folder, not a note.", entry.path)));
    }
    Ok(entry)
}

/// The vault's entries: the index's listing (brought up to date) when the index is ready, else
/// the vault listed now — and the index started in the background for the next call.
pub(super) async fn vault_entries<H: Host>(ctx: &ToolContext<'_, H>) -> Step<(Option<Rc<Listing>>, Vec<VaultEntry>)> {
    let listing = if ctx.settings.search_index_max_mb == 0 {
        None
    } else {
        ctx.services.index.current(ctx.host, ctx.settings).await
    };
    if listing.is_some() {
        return Ok((listing, Vec::new()));
    }
    (ctx.services.start_index)();
    Ok((None, entries(ctx).await?))
}

/// The `folder` argument as a real vault folder ("" for the whole vault).
pub(super) fn folder_arg<H: Host>(ctx: &ToolContext<'_, H>, args: &Args, all: &[VaultEntry]) -> Step<String> {
    match args.str("folder") {
        Some(f) => real(ctx, &checked(ctx, f)?, all, Access::Read),
        None => Ok(String::new()),
    }
}
