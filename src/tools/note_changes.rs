//! The note tools that change the vault: write, edit, create a folder, delete, move. Each is a
//! proposed change (a diff, `vault::diff`) that waits for the user's approval — of all hunks or
//! some — unless the user set that tool to auto-approve or approved it for this conversation;
//! every applied change is recorded for undo (`review.rs`, `undo`).

use crate::lean::fold_case;
use serde_json::json;

use super::args::Args;
use super::budget::thousands;
use super::call::{ToolContext, ToolOutput};
use super::note_paths::{checked, entries, real, Step};
use super::review::{approved, exact_note, io, proposal, record_applied, review_and_apply, size_words, timed_proposal};

use crate::host::Host;
use crate::undo::MAX_MOVE_CHECK_BYTES;
use crate::vault::diff::{bytes_hash, content_hash, ChangeKind, ProposedChange};
use crate::vault::line_edits::{apply, lines, Edit, MAX_NOTE_BYTES};
use crate::vault::path::{parent, with_note_extension};
use crate::vault::real::Access;
use crate::vault::resolve::find;

use super::note_paths::{existing_file, real_entry};
use super::scope::SEARCHABLE;

pub(super) async fn write_file<H: Host>(ctx: &ToolContext<'_, H>, args: &Args) -> Step<ToolOutput> {
    let content = args.string("content");
    if content.len() > MAX_NOTE_BYTES {
        return Err(ToolOutput::error(format!(
            "The content is {} bytes; a note may have at most {} bytes. Nothing was written; split it into several notes.",
            thousands(content.len()),
            thousands(MAX_NOTE_BYTES)
        )));
    }
    let normalized = checked(ctx, &args.string("path"))?;
    if normalized.is_empty() {
        return Err(ToolOutput::error("write_file needs a file name, not the vault's root."));
    }
    let all = entries(ctx).await?;
    let (located, found) = real_entry(ctx, &normalized, &all, Access::Write)?;
    let lines_count = lines(&content).len();
    match found {
        Some(entry) if entry.is_folder => Err(ToolOutput::error(format!("{} is a folder.", entry.path))),
        Some(entry) => {
            let base = exact_note(ctx, &entry.path).await?;
            if base == content {
                return Ok(ToolOutput::ok(format!("{} already has this content; it was not changed.", entry.path)));
            }
            let change = timed_proposal(ctx, ChangeKind::Overwrite, &entry.path, &base, &content);
            let summary =
                format!("Replace the whole content of {} ({} → {} characters)", entry.path, base.len(), content.len());
            let details = json!({"path": entry.path, "content": content});
            let path = entry.path.clone();
            Ok(ToolOutput::ok(match review_and_apply(ctx, "write_file", summary, details, base, change).await? {
                None => format!("Replaced the content of {path} ({lines_count} lines)."),
                Some(partial) => format!("Changed the content of {path} in part: {}", partial.for_model()),
            }))
        }
        None => {
            let path = with_note_extension(&located);
            ctx.host.vault_create(&path, &content).await.map_err(io("create the note"))?;
            let change = proposal(ChangeKind::Create, &path, "", &content);
            let all = change.hunks.iter().map(|h| h.number).collect();
            record_applied(ctx, change, all, None, Some(content_hash(&content))).await;
            Ok(ToolOutput::ok(format!("Created {path} ({lines_count} lines).")))
        }
    }
}

fn needs<T>(value: Option<T>, field: &str, operation: &str) -> Step<T> {
    value.ok_or_else(|| ToolOutput::error(format!("Invalid input for edit_file: {operation} needs {field}.")))
}

pub(super) async fn edit_file<H: Host>(ctx: &ToolContext<'_, H>, args: &Args) -> Step<ToolOutput> {
    let operation = args.string("operation");
    let op = operation.as_str();
    let edit = match op {
        "replace" => Edit::Replace {
            old: needs(args.str("old_text").map(str::to_owned), "old_text", op)?,
            new: needs(args.str("new_text").map(str::to_owned), "new_text", op)?,
            all: args.flag("replace_all"),
        },
        // The schema admits only these three operations and positions.
        "insert" => Edit::Insert {
            line: needs(args.number("line"), "line", op)?,
            after: args.str("position") != Some("before"),
            text: needs(args.str("text").map(str::to_owned), "text", op)?,
        },
        _ => Edit::DeleteLines {
            start: needs(args.number("start_line"), "start_line", op)?,
            end: needs(args.number("end_line"), "end_line", op)?,
        },
    };
    let file = existing_file(ctx, &args.string("path"), Access::Write).await?;
    let base = exact_note(ctx, &file.path).await?;
    let new =
        apply(&edit, &base, &file.path).map_err(|e| ToolOutput::error(format!("{e}. The note was not changed.")))?;
    if new == base {
        return Ok(ToolOutput::ok(format!("{} was not changed.", file.path)));
    }
    let change = timed_proposal(ctx, ChangeKind::Edit, &file.path, &base, &new);
    let summary = format!("Edit {} ({op}: {})", file.path, size_words(&change));
    let details = json!({"path": file.path, "operation": op});
    Ok(ToolOutput::ok(match review_and_apply(ctx, "edit_file", summary, details, base, change).await? {
        None => format!("Edited {} ({op}).", file.path),
        Some(partial) => format!("Edited {} ({op}) in part: {}", file.path, partial.for_model()),
    }))
}

pub(super) async fn create_folder<H: Host>(ctx: &ToolContext<'_, H>, args: &Args) -> Step<ToolOutput> {
    let path = checked(ctx, &args.string("path"))?;
    if path.is_empty() {
        return Err(ToolOutput::error("create_folder needs a folder name."));
    }
    let all = entries(ctx).await?;
    let (path, found) = real_entry(ctx, &path, &all, Access::Write)?;
    match found {
        Some(e) if e.is_folder => Ok(ToolOutput::ok(format!("The folder {} already exists.", e.path))),
        Some(e) => Err(ToolOutput::error(format!("{} already exists as a file.", e.path))),
        None => {
            ctx.host.vault_create_folder(&path).await.map_err(io("create the folder"))?;
            Ok(ToolOutput::ok(format!("Created the folder {path}.")))
        }
    }
}

pub(super) async fn delete_file<H: Host>(ctx: &ToolContext<'_, H>, args: &Args) -> Step<ToolOutput> {
    let file = existing_file(ctx, &args.string("path"), Access::Entry).await?;
    // A text note's content is kept for undo (and shown as removed lines); other files are not,
    // nor a note that is not UTF-8 (its text would not give its bytes back).
    let before = if SEARCHABLE.iter().any(|ext| fold_case(&file.path).ends_with(ext)) {
        ctx.host.vault_read_bytes(&file.path).await.ok().and_then(|bytes| String::from_utf8(bytes).ok())
    } else {
        None
    };
    let mut change = proposal(ChangeKind::Delete, &file.path, before.as_deref().unwrap_or(""), "");
    if before.is_none() {
        change.base_hash = String::new();
    }
    let summary = format!("Delete {} (to the trash)", file.path);
    approved(ctx, "delete_file", summary, json!({"path": file.path}), Some(&change)).await?;
    if before.is_some() {
        // Deleted only as it was proposed: a note changed meanwhile is left for a new look.
        let now = ctx.host.vault_read_bytes(&file.path).await.map_err(io("read the note"))?;
        if bytes_hash(&now) != change.base_hash {
            return Err(ToolOutput::error(format!(
                "{} changed after its deletion was proposed, so it was not deleted (conflict).",
                file.path
            )));
        }
    }
    ctx.host.vault_trash(&file.path).await.map_err(io("delete the note"))?;
    let all = change.hunks.iter().map(|h| h.number).collect();
    record_applied(ctx, change, all, before, None).await;
    Ok(ToolOutput::ok(format!("Moved {} to the trash.", file.path)))
}

pub(super) async fn move_file<H: Host>(ctx: &ToolContext<'_, H>, args: &Args) -> Step<ToolOutput> {
    let file = existing_file(ctx, &args.string("from"), Access::Entry).await?;
    let target = checked(ctx, &args.string("to"))?;
    if target.is_empty() {
        return Err(ToolOutput::error("move_file needs a target path."));
    }
    let all = entries(ctx).await?;
    let mut target = real(ctx, &target, &all, Access::Write)?;
    if let Some(folder) = all.iter().find(|e| e.is_folder && e.path.eq_ignore_ascii_case(&target)) {
        // Moving into a folder keeps the name.
        let name = file.path.rsplit('/').next().unwrap_or(&file.path);
        target = format!("{}/{name}", folder.path);
    } else if !target.rsplit('/').next().unwrap_or("").contains('.') {
        // A new name without extension keeps the old one.
        if let Some(ext) = file.path.rsplit_once('.').map(|(_, e)| e) {
            target = format!("{target}.{ext}");
        }
    }
    let target = real(ctx, &target, &all, Access::Write)?;
    if find(&target, &all).map_err(|e| ToolOutput::error(format!("{e}.")))?.is_some() {
        return Err(ToolOutput::error(format!("{target} already exists; choose another name.")));
    }
    let change = ProposedChange {
        kind: ChangeKind::Move,
        path: file.path.clone(),
        to: Some(target.clone()),
        base_hash: String::new(),
        hunks: Vec::new(),
    };
    approved(
        ctx,
        "move_file",
        format!("Move {} to {target} (links are updated)", file.path),
        json!({"from": file.path, "to": target}),
        Some(&change),
    )
    .await?;
    let folder = parent(&target);
    if !folder.is_empty() && !all.iter().any(|e| e.is_folder && e.path == folder) {
        ctx.host.vault_create_folder(folder).await.map_err(io("create the target folder"))?;
    }
    // What was moved, for undo to check it moves back that and nothing else.
    let moved = if file.size <= MAX_MOVE_CHECK_BYTES {
        ctx.host.vault_read_bytes(&file.path).await.ok().map(|bytes| bytes_hash(&bytes))
    } else {
        None
    };
    ctx.host.vault_rename(&file.path, &target).await.map_err(io("move the note"))?;
    record_applied(ctx, change, Vec::new(), None, moved).await;
    Ok(ToolOutput::ok(format!("Moved {} to {target}.", file.path)))
}
