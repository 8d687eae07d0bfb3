//! `list_files`: a folder's notes and folders, from the search index's listing once it is built
//! (else the vault listed now), filtered by a glob, newest or by name, with what was skipped
//! (protected folders, links that lead outside) said.

use crate::lean::fold_case;

use super::args::Args;
use super::budget::{thousands, Budget};
use super::call::{ToolContext, ToolOutput};
use super::note_paths::{protected, Step};
use crate::host::Host;
use crate::vault::glob::Glob;
use crate::vault::real::{listable, Skipped};
use crate::vault::VaultEntry;

use super::note_paths::{folder_arg, vault_entries};

/// Most entries `list_files` returns.
const MAX_LIST: usize = 500;

pub(super) async fn list_files<H: Host>(ctx: &ToolContext<'_, H>, args: &Args) -> Step<ToolOutput> {
    let mut budget = Budget::start(ctx.host);
    let (listing, listed) = vault_entries(ctx).await?;
    let all: &[VaultEntry] = listing.as_ref().map_or(&listed, |l| &l.entries);
    let folder = folder_arg(ctx, args, all)?;
    let limit = args.number("limit").unwrap_or(50).clamp(1, MAX_LIST);
    let glob = match args.str("glob") {
        Some(g) => Some(Glob::new(g).map_err(|e| ToolOutput::error(format!("Invalid input for list_files: {e}.")))?),
        None => None,
    };
    let prefix = if folder.is_empty() { String::new() } else { format!("{}/", fold_case(&folder)) };
    let considered = all.len();
    let protected = protected(ctx);
    let mut skipped = Skipped::default();
    let mut files: Vec<&VaultEntry> = Vec::new();
    let mut looked = 0;
    let mut stopped = false;
    for (i, entry) in all.iter().enumerate() {
        if !budget.pace().await {
            stopped = true;
            break;
        }
        looked += 1;
        let inside = match &listing {
            Some(l) => l.folded[i].starts_with(&prefix),
            None => fold_case(&entry.path).starts_with(&prefix),
        };
        if !inside {
            continue;
        }
        if let Err(what) = listable(entry, &protected, ctx.settings.follow_linked_folders) {
            skipped.add(what);
            continue;
        }
        if !entry.is_folder && glob.as_ref().is_none_or(|g| g.matches(&entry.path)) {
            files.push(entry);
        }
    }
    let mut notes = if stopped {
        format!(
            "\n[listing stopped after {} s: {} of {} entries looked at; narrow it with folder or a simpler glob]",
            budget.elapsed_s(),
            thousands(looked),
            thousands(considered)
        )
    } else {
        String::new()
    };
    notes.push_str(&skipped.describe());
    let total = files.len();
    let files =
        crate::lean::top_by(files, limit, |a, b| b.modified_ms.cmp(&a.modified_ms).then_with(|| a.path.cmp(&b.path)));
    if files.is_empty() {
        return Ok(ToolOutput::ok(format!("No files match.{notes}")));
    }
    let mut out = format!("{total} files, newest first:");
    for f in files.iter().take(limit) {
        out.push_str(&format!("\n{} ({} bytes, modified {})", f.path, f.size, crate::time::format_iso(f.modified_ms)));
    }
    if total > limit {
        out.push_str(&format!("\n[{} more; raise limit or narrow with folder/glob]", total - limit));
    }
    out.push_str(&notes);
    Ok(ToolOutput::ok(out))
}
