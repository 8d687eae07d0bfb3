//! The note tools: what the agent can do in the vault. Every path goes through `vault::path`
//! first; edit, overwrite, delete and move are proposed changes (a diff, `vault::diff`) that wait
//! for the user's approval — of all hunks or some — unless the user set that tool to auto-approve
//! or approved it for this conversation. Every applied change is recorded for undo (`undo`).

use crate::lean::fold_case;
use serde_json::{json, Value};

use super::args::Args;
use super::budget::{thousands, TOOL_BUDGET_MS};
use super::call::{tool_def, ToolContext, ToolOutput};
use super::note_paths::{checked, entries, protected, real, Step};
use super::review::{approved, exact_note, io, proposal, record_applied, review_and_apply, size_words, timed_proposal};

use crate::host::Host;
use crate::llm::ToolDef;
use crate::undo::MAX_MOVE_CHECK_BYTES;
use crate::vault::diff::{bytes_hash, content_hash, ChangeKind, ProposedChange};
use crate::vault::line_edits::{apply, lines, Edit, MAX_NOTE_BYTES};
use crate::vault::path::{is_protected, parent, with_note_extension};
use crate::vault::real::Access;
use crate::vault::resolve::{existing, find};
use crate::vault::VaultEntry;

/// Most lines `read_file` returns at once.
const MAX_READ_LINES: usize = 400;
/// Most characters `read_file` returns at once.
const MAX_READ_CHARS: usize = 20_000;
/// Time a read-only tool may wait on the host beyond its budget before it answers anyway.
const HOST_GRACE_MS: u64 = 2_000;
/// The tools that only read: when the host does not answer in time they are abandoned (nothing
/// half-done can be left behind), and the model is told.
const READ_ONLY: [&str; 5] = ["read_file", "search_files", "list_files", "get_file_info", "get_active_note"];
use super::scope::SEARCHABLE;

/// The note tools, in the order offered to the model: name, description, input schema.
const TOOLS: [(&str, &str, &str); 10] = [
    (
        "read_file",
        "Read a note (or part of it, by line numbers). Long notes are returned in pieces; the answer says how to read on.",
        r#"{"type":"object","properties":{"path":{"type":"string","description":"Vault path, e.g. Projects/Plan.md"},"start_line":{"type":"integer","minimum":1},"end_line":{"type":"integer","minimum":1}},"required":["path"]}"#,
    ),
    (
        "write_file",
        "Create a note, or replace the whole content of an existing one (replacing needs the user's approval). A name without extension gets .md.",
        r#"{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}"#,
    ),
    (
        "edit_file",
        "Change part of a note: operation \"replace\" (old_text → new_text; old_text must appear once unless replace_all), \"insert\" (text before or after line), or \"delete_lines\" (start_line to end_line).",
        r#"{"type":"object","properties":{"path":{"type":"string"},"operation":{"type":"string","enum":["replace","insert","delete_lines"]},"old_text":{"type":"string"},"new_text":{"type":"string"},"replace_all":{"type":"boolean"},"line":{"type":"integer","minimum":0},"position":{"type":"string","enum":["before","after"]},"text":{"type":"string"},"start_line":{"type":"integer","minimum":1},"end_line":{"type":"integer","minimum":1}},"required":["path","operation"]}"#,
    ),
    (
        "create_folder",
        "Create a folder (and its parents).",
        r#"{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}"#,
    ),
    (
        "delete_file",
        "Move a note or file to the trash (needs the user's approval).",
        r#"{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}"#,
    ),
    (
        "move_file",
        "Rename or move a note; links to it are updated (needs the user's approval).",
        r#"{"type":"object","properties":{"from":{"type":"string"},"to":{"type":"string"}},"required":["from","to"]}"#,
    ),
    (
        "search_files",
        "Search the notes' text (plain text, or a regular expression with regex=true). Results are ranked, with excerpts and line numbers.",
        r#"{"type":"object","properties":{"query":{"type":"string"},"regex":{"type":"boolean"},"case_sensitive":{"type":"boolean"},"folder":{"type":"string"},"max_results":{"type":"integer","minimum":1,"maximum":50}},"required":["query"]}"#,
    ),
    (
        "list_files",
        "List notes and files, newest first, optionally in a folder and matching a glob (e.g. \"**/*.md\", \"Daily/2026-*\").",
        r#"{"type":"object","properties":{"folder":{"type":"string"},"glob":{"type":"string"},"limit":{"type":"integer","minimum":1,"maximum":500}}}"#,
    ),
    (
        "get_file_info",
        "Size, dates, line and word counts, headings, tags and links of a note.",
        r#"{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}"#,
    ),
    (
        "get_active_note",
        "The note open in the editor, with its content.",
        r#"{"type":"object","properties":{}}"#,
    ),
];

/// Definitions of the note tools.
pub(super) fn definitions() -> Vec<ToolDef> {
    TOOLS.iter().map(|(name, description, schema)| tool_def(name, description, schema)).collect()
}

/// Whether `name` is a note tool.
pub(super) fn has(name: &str) -> bool {
    TOOLS.iter().any(|(n, _, _)| *n == name)
}

/// Names of the note tools.
pub(super) fn names() -> impl Iterator<Item = &'static str> {
    TOOLS.iter().map(|(n, _, _)| *n)
}

/// Runs a note tool by name, its input checked against its schema first.
pub(super) async fn run<H: Host>(ctx: &ToolContext<'_, H>, name: &str, input: &Value) -> ToolOutput {
    let Some((_, _, schema)) = TOOLS.iter().find(|(n, _, _)| *n == name) else {
        return ToolOutput::error(format!("Unknown note tool {name}."));
    };
    let args = match Args::parse(name, schema, input) {
        Ok(args) => args,
        Err(e) => return e,
    };
    // A write cut half-way would leave the note in doubt: only reads are abandoned.
    let read_only = READ_ONLY.contains(&name);
    let late = TOOL_BUDGET_MS + HOST_GRACE_MS;
    let work = std::pin::pin!(dispatch(ctx, name, &args));
    let timer = std::pin::pin!(async move {
        if read_only {
            ctx.host.sleep(late).await;
        } else {
            std::future::pending::<()>().await;
        }
    });
    match futures::future::select(work, timer).await {
        futures::future::Either::Left((output, _)) => output,
        futures::future::Either::Right(_) => ToolOutput::error(format!(
            "{name} got no answer from the vault within {} s and was stopped; nothing was changed. Try again, or narrow it (a folder, a smaller range).",
            late / 1000
        )),
    }
}

async fn dispatch<H: Host>(ctx: &ToolContext<'_, H>, name: &str, args: &Args) -> ToolOutput {
    let result = match name {
        "read_file" => read_file(ctx, args).await,
        "write_file" => write_file(ctx, args).await,
        "edit_file" => edit_file(ctx, args).await,
        "create_folder" => create_folder(ctx, args).await,
        "delete_file" => delete_file(ctx, args).await,
        "move_file" => move_file(ctx, args).await,
        "search_files" => super::find::search_files(ctx, args).await,
        "list_files" => super::find::list_files(ctx, args).await,
        "get_file_info" => get_file_info(ctx, args).await,
        _ => get_active_note(ctx).await,
    };
    if !READ_ONLY.contains(&name) {
        // The host's own event may come later: the index looks again before its next answer.
        ctx.services.index.changed(None);
    }
    result.unwrap_or_else(|e| e)
}

/// The entry a path names once its real location is known (`vault::real::real_entry`), with the
/// refusal the model reads.
fn real_entry<H: Host>(
    ctx: &ToolContext<'_, H>,
    normalized: &str,
    all: &[VaultEntry],
    access: Access,
) -> Step<(String, Option<VaultEntry>)> {
    crate::vault::real::real_entry(normalized, all, &protected(ctx), access, ctx.settings.follow_linked_folders)
        .map_err(|e| ToolOutput::error(e.to_string()))
}

/// The existing file a path names (the case rule applied), at its real location.
async fn existing_file<H: Host>(ctx: &ToolContext<'_, H>, path: &str, access: Access) -> Step<VaultEntry> {
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

async fn read_file<H: Host>(ctx: &ToolContext<'_, H>, args: &Args) -> Step<ToolOutput> {
    let file = existing_file(ctx, &args.string("path"), Access::Read).await?;
    let text = ctx.host.vault_read(&file.path).await.map_err(io("read the note"))?;
    let all = lines(&text);
    let total = all.len();
    let start = args.number("start_line").unwrap_or(1).max(1);
    if start > total.max(1) {
        return Err(ToolOutput::error(format!("{} has {total} lines; start_line {start} is past the end.", file.path)));
    }
    let wanted_end = args.number("end_line").unwrap_or(total).min(total).max(start);
    let mut shown = String::new();
    let mut end = start - 1;
    for (i, line) in all.iter().enumerate().take(wanted_end).skip(start - 1) {
        if i + 1 - start >= MAX_READ_LINES || shown.len() + line.len() > MAX_READ_CHARS {
            break;
        }
        shown.push_str(line);
        shown.push('\n');
        end = i + 1;
    }
    if text.is_empty() {
        return Ok(ToolOutput::ok(format!("{} is empty.", file.path)));
    }
    let mut out = format!("{} (lines {start}–{end} of {total}):\n{shown}", file.path);
    if end < wanted_end {
        out.push_str(&format!(
            "[…cut at {} lines / {} characters; read on with start_line {}]",
            MAX_READ_LINES,
            MAX_READ_CHARS,
            end + 1
        ));
    }
    Ok(ToolOutput::ok(out))
}

async fn write_file<H: Host>(ctx: &ToolContext<'_, H>, args: &Args) -> Step<ToolOutput> {
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
                Some(applied) => {
                    format!("Changed the content of {path} in part: {applied}")
                }
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

async fn edit_file<H: Host>(ctx: &ToolContext<'_, H>, args: &Args) -> Step<ToolOutput> {
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
        Some(applied) => format!("Edited {} ({op}) in part: {applied}", file.path),
    }))
}

async fn create_folder<H: Host>(ctx: &ToolContext<'_, H>, args: &Args) -> Step<ToolOutput> {
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

async fn delete_file<H: Host>(ctx: &ToolContext<'_, H>, args: &Args) -> Step<ToolOutput> {
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

async fn move_file<H: Host>(ctx: &ToolContext<'_, H>, args: &Args) -> Step<ToolOutput> {
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

async fn get_file_info<H: Host>(ctx: &ToolContext<'_, H>, args: &Args) -> Step<ToolOutput> {
    let file = existing_file(ctx, &args.string("path"), Access::Read).await?;
    let text = ctx.host.vault_read(&file.path).await.map_err(io("read the note"))?;
    Ok(ToolOutput::ok(describe(&file, &text)))
}

/// A note's facts: size, dates, counts, headings, tags, links.
fn describe(file: &VaultEntry, text: &str) -> String {
    let all = lines(text);
    let words = text.split_whitespace().count();
    let headings: Vec<&str> = all
        .iter()
        .filter(|l| l.starts_with('#') && l.trim_start_matches('#').starts_with(' '))
        .take(20)
        .copied()
        .collect();
    let mut tags: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| {
            w.len() > 1
                && w.starts_with('#')
                && !w[1..].starts_with('#')
                && w[1..].chars().next().is_some_and(|c| !c.is_ascii_digit())
        })
        .collect();
    crate::lean::sort_by(&mut tags, |a, b| a.cmp(b));
    tags.dedup();
    let mut links: Vec<&str> = text
        .split("[[")
        .skip(1)
        .filter_map(|s| s.split("]]").next())
        .map(|l| l.split('|').next().unwrap_or(l))
        .collect();
    crate::lean::sort_by(&mut links, |a, b| a.cmp(b));
    links.dedup();
    format!(
        "{}\nsize: {} bytes\ncreated: {}\nmodified: {}\nlines: {}\nwords: {}\nheadings: {}\ntags: {}\nlinks: {}",
        file.path,
        file.size,
        crate::time::format_iso(file.created_ms),
        crate::time::format_iso(file.modified_ms),
        if text.is_empty() { 0 } else { all.len() },
        words,
        if headings.is_empty() { "none".to_owned() } else { headings.join(" | ") },
        if tags.is_empty() { "none".to_owned() } else { tags.join(" ") },
        if links.is_empty() { "none".to_owned() } else { links.join(", ") },
    )
}

async fn get_active_note<H: Host>(ctx: &ToolContext<'_, H>) -> Step<ToolOutput> {
    let Some(path) = ctx.host.active_note().await else { return Ok(ToolOutput::ok("No note is open in the editor.")) };
    if let Some(folder) = is_protected(&path, &protected(ctx)) {
        return Err(ToolOutput::error(format!("The open file is in {folder}, which the agent may not read.")));
    }
    let all = entries(ctx).await?;
    let path = real(ctx, &path, &all, Access::Read)?;
    let text = ctx.host.vault_read(&path).await.map_err(io("read the open note"))?;
    let shown: String = text.chars().take(MAX_READ_CHARS).collect();
    let cut = if shown.len() < text.len() {
        "\n[…cut; use read_file with start_line to read on]".to_owned()
    } else {
        String::new()
    };
    Ok(ToolOutput::ok(format!("The open note is {path}:\n{shown}{cut}")))
}
