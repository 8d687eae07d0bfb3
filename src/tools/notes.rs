//! The note tools: what the agent can do in the vault — their definitions, the dispatch by name
//! (input checked against its schema, read-only tools bounded in time), and the tools that only
//! read (read a note, a note's facts, the open note). Every path goes through `vault::path`
//! first (`note_paths.rs`); the tools that change the vault are `note_changes.rs`.

use serde_json::Value;

use super::args::Args;
use super::budget::TOOL_BUDGET_MS;
use super::call::{tool_def, ToolContext, ToolOutput};
use super::note_changes::{create_folder, delete_file, edit_file, move_file, write_file};
use super::note_paths::{entries, existing_file, protected, real, Step};
use super::review::io;

use crate::host::Host;
use crate::llm::ToolDef;
use crate::vault::line_edits::lines;
use crate::vault::path::is_protected;
use crate::vault::real::Access;
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
        "Search the notes. mode \"hybrid\" (the default when search by meaning is set up) ranks notes by what the query means and by its words: use it for questions and topics in everyday words (\"how do I get a refund\"). mode \"meaning\" ranks by meaning alone (notes that say it in other words). mode \"words\" matches the text: a word or phrase as written (\"quotes\" for an exact phrase), or a regular expression with regex=true; use it for names, tags, exact wording. Results are ranked, with the matching passage or lines as excerpts.",
        r#"{"type":"object","properties":{"query":{"type":"string"},"mode":{"type":"string","enum":["hybrid","meaning","words"]},"regex":{"type":"boolean"},"case_sensitive":{"type":"boolean"},"folder":{"type":"string"},"max_results":{"type":"integer","minimum":1,"maximum":50}},"required":["query"]}"#,
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

/// A note tool's call in the user's words, for its chip ("Delete Notes/Old.md"); none for a name
/// that is not a note tool.
pub(super) fn words(name: &str, input: &Value) -> Option<String> {
    let arg = |key: &str| input.get(key).and_then(Value::as_str).unwrap_or("").to_owned();
    Some(match name {
        "read_file" => format!("Read {}", arg("path")),
        "write_file" => format!("Write {}", arg("path")),
        "edit_file" => format!("Edit {}", arg("path")),
        "delete_file" => format!("Delete {}", arg("path")),
        "move_file" => format!("Move {} to {}", arg("from"), arg("to")),
        "create_folder" => format!("Create the folder {}", arg("path")),
        "search_files" => format!("Search the notes for “{}”", arg("query")),
        "list_files" => {
            let folder = arg("folder");
            let glob = arg("glob");
            let folder = if folder.is_empty() { "the vault".to_owned() } else { folder };
            if glob.is_empty() {
                format!("List {folder}")
            } else {
                format!("List {folder} ({glob})")
            }
        }
        "get_file_info" => format!("Look up {}", arg("path")),
        "get_active_note" => "Read the open note".to_owned(),
        _ => return None,
    })
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
        "list_files" => super::list::list_files(ctx, args).await,
        "get_file_info" => get_file_info(ctx, args).await,
        _ => get_active_note(ctx).await,
    };
    if !READ_ONLY.contains(&name) {
        // The host's own event may come later: the index looks again before its next answer.
        ctx.services.index.changed(None);
    }
    result.unwrap_or_else(|e| e)
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
