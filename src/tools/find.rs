//! `search_files` and `list_files`: answered from the search index once it is built
//! (`indexer`), else by listing the vault and reading every note, as before — and then the
//! answer says so. From the index, a plain query of term characters is counted without reading
//! a note (only the notes shown are read, for their excerpts); any other query is narrowed by
//! the index (a phrase by its words' positions, a regular expression by the literals it cannot
//! match without) and confirmed on the candidate notes' text only, by the same line scan a full
//! search uses — so both give the same answer.

use std::rc::Rc;

use crate::lean::fold_case;

use super::args::Args;
use super::budget::{thousands, Budget};
use super::call::{ToolContext, ToolOutput};
use super::indexer::{searchable, Listing, Phase};
use super::note_paths::{checked, entries, protected, real, Step};
use crate::host::Host;
use crate::vault::glob::Glob;
use crate::vault::index::{is_term, required_literals, tokens};
use crate::vault::real::{listable, Access, Skipped};
use crate::vault::search::{rank, Corpus, FileHit, FileScan, Matcher, LINE_WORK};
use crate::vault::VaultEntry;

/// Most entries `list_files` returns.
const MAX_LIST: usize = 500;
/// Most results `search_files` returns.
const MAX_RESULTS: usize = 50;
/// Work (bytes × the pattern's weight) `search_files` does between two looks at its budget.
const SLICE_WORK: usize = LINE_WORK;

/// What the index can tell about a query before any note is read.
enum Plan {
    /// Counted from the index: a plain, case-insensitive query of term characters.
    Exact(String),
    /// Notes that may hold this phrase (folded words) are read.
    Phrase(Vec<String>),
    /// Notes holding every one of these literals are read.
    Literals(Vec<String>),
    /// Every note is read.
    All,
}

fn plan(query: &str, regex: bool, case_sensitive: bool, weight: usize) -> Plan {
    if regex && weight > 1 {
        // An expensive pattern searches long lines in part only, and the answer says which:
        // every note is read, as a scan would, so that what it says is the same.
        return Plan::All;
    }
    if regex {
        // Inline flags (verbose mode's comments) are beyond the literal reader.
        let literals = if query.contains("(?") { Vec::new() } else { required_literals(query) };
        return if literals.is_empty() { Plan::All } else { Plan::Literals(literals) };
    }
    let folded = fold_case(query);
    if !case_sensitive && is_term(&folded) {
        return Plan::Exact(folded);
    }
    let words: Vec<String> = tokens(&folded).map(str::to_owned).collect();
    if words.is_empty() {
        Plan::All
    } else {
        Plan::Phrase(words)
    }
}

/// A search's findings so far.
#[derive(Default)]
struct Found {
    hits: Vec<FileHit>,
    scanned: usize,
    cut_lines: usize,
    stopped: bool,
}

/// Reads notes and searches their lines, within the budget.
async fn scan<H: Host>(
    ctx: &ToolContext<'_, H>,
    matcher: &Matcher,
    notes: &[&VaultEntry],
    budget: &mut Budget<'_, H>,
    found: &mut Found,
) {
    'files: for entry in notes {
        if !budget.pace().await {
            found.stopped = true;
            break;
        }
        let Ok(text) = ctx.host.vault_read(&entry.path).await else {
            found.scanned += 1;
            continue;
        };
        let mut scan = FileScan::new(matcher, entry, &text);
        while scan.step(matcher, SLICE_WORK) {
            if !budget.pace().await {
                found.stopped = true;
                found.cut_lines += scan.cut_lines;
                found.hits.extend(scan.finish());
                break 'files;
            }
        }
        found.cut_lines += scan.cut_lines;
        found.hits.extend(scan.finish());
        found.scanned += 1;
    }
}

/// Searches the candidate notes through the index: counted hits, and the notes still to read.
fn from_index<'e>(
    ctx_index: &super::indexer::SearchIndex,
    matcher: &Matcher,
    plan: &Plan,
    candidates: &[&'e VaultEntry],
    folded: Option<&[String]>,
) -> (Vec<FileHit>, Vec<&'e VaultEntry>, usize) {
    ctx_index.with(|index| {
        // The notes that can match at all, from the term list (then only those are looked at).
        let counted = match plan {
            Plan::Exact(needle) => index.counts(needle),
            _ => Vec::new(),
        };
        let narrowed = match plan {
            Plan::Exact(_) => Some(counted.iter().map(|(d, _)| *d).collect()),
            Plan::Literals(literals) => Some(index.containing_all(literals)),
            Plan::Phrase(words) => Some(index.containing_all(words)),
            Plan::All => None,
        };
        let may = |id: u32| narrowed.as_ref().is_none_or(|n| n.binary_search(&id).is_ok());
        // A plain, case-insensitive query matches a name as the folded name contains it.
        let plain_needle = match plan {
            Plan::Exact(needle) => Some(needle.as_str()),
            _ => None,
        };
        let words: Vec<&str> = match plan {
            Plan::Phrase(words) => words.iter().map(String::as_str).collect(),
            _ => Vec::new(),
        };
        let (mut hits, mut to_read, mut settled) = (Vec::new(), Vec::new(), 0);
        for (i, entry) in candidates.iter().enumerate() {
            let Some((id, doc)) = index.doc(&entry.path) else {
                to_read.push(*entry);
                continue;
            };
            if doc.unreadable {
                // A scan counts it and finds nothing in it.
                settled += 1;
                continue;
            }
            let named = match (plain_needle, folded) {
                (Some(needle), Some(folded)) => folded[i].contains(needle),
                _ => matcher.name_matches(&entry.path),
            };
            if !named && !may(id) {
                settled += 1;
                continue;
            }
            let read = match plan {
                Plan::Exact(_) => {
                    let matches = counted.binary_search_by_key(&id, |(d, _)| *d).map_or(0, |k| counted[k].1);
                    if matches > 0 || named {
                        hits.push(FileHit {
                            path: entry.path.clone(),
                            matches,
                            name_matches: named,
                            excerpts: Vec::new(),
                            modified_ms: entry.modified_ms,
                            size: entry.size,
                        });
                    }
                    false
                }
                Plan::Phrase(_) => named || index.may_contain_phrase(doc, &words),
                Plan::Literals(_) | Plan::All => true,
            };
            if read {
                to_read.push(*entry);
            } else {
                settled += 1;
            }
        }
        (hits, to_read, settled)
    })
}

/// Why this answer did not come from the index, for the end of it.
fn scan_note<H: Host>(ctx: &ToolContext<'_, H>) -> String {
    match ctx.index.phase() {
        _ if ctx.settings.search_index_max_mb == 0 => String::new(),
        Phase::Building(done, total) if total > 0 => format!(
            "\n\n[the search index is being built ({} of {} notes): this answer comes from a full scan]",
            thousands(done),
            thousands(total)
        ),
        Phase::Off(why) => format!("\n\n[the search index is off ({why}): this answer comes from a full scan]"),
        _ => "\n\n[the search index is being built: this answer comes from a full scan]".to_owned(),
    }
}

pub(super) async fn search_files<H: Host>(ctx: &ToolContext<'_, H>, args: &Args) -> Step<ToolOutput> {
    let query = args.string("query");
    let (regex, case_sensitive) = (args.flag("regex"), args.flag("case_sensitive"));
    let matcher = Matcher::new(&query, regex, case_sensitive)
        .map_err(|e| ToolOutput::error(format!("Invalid input for search_files: {e}.")))?;
    let (listing, listed) = vault_entries(ctx).await?;
    let all: &[VaultEntry] = listing.as_ref().map_or(&listed, |l| &l.entries);
    let folder = folder_arg(ctx, args, all)?;
    let limit = args.number("max_results").unwrap_or(20).clamp(1, MAX_RESULTS);
    let mut budget = Budget::start(ctx.host);
    let prefix = format!("{}/", fold_case(&folder));
    let protected = protected(ctx);
    let mut skipped = Skipped::default();
    let mut candidates: Vec<&VaultEntry> = Vec::new();
    let mut candidates_folded: Vec<String> = Vec::new();
    for (i, entry) in all.iter().enumerate() {
        let owned;
        let path = match &listing {
            Some(l) => &l.folded[i],
            None => {
                owned = fold_case(&entry.path);
                &owned
            }
        };
        if !folder.is_empty() && !path.starts_with(&prefix) {
            continue;
        }
        if let Err(what) = listable(entry, &protected, ctx.settings.follow_linked_folders) {
            skipped.add(what);
            continue;
        }
        // A link inside the vault is searched under its real path, not twice.
        if searchable(entry, path) {
            candidates.push(entry);
            if listing.is_some() {
                candidates_folded.push(path.clone());
            }
        }
    }
    let corpus = Corpus {
        notes: candidates.len(),
        avg_size: candidates.iter().map(|e| e.size as f64).sum::<f64>() / candidates.len().max(1) as f64,
    };
    let mut found = Found::default();
    let mut notes = String::new();
    let mut counted = false;
    match &listing {
        None => {
            scan(ctx, &matcher, &candidates, &mut budget, &mut found).await;
            notes.push_str(&scan_note(ctx));
        }
        Some(_) => {
            let plan = plan(&query, regex, case_sensitive, matcher.weight());
            counted = matches!(plan, Plan::Exact(_));
            let (hits, to_read, settled) =
                from_index(ctx.index, &matcher, &plan, &candidates, Some(&candidates_folded));
            found.hits = hits;
            found.scanned = settled;
            scan(ctx, &matcher, &to_read, &mut budget, &mut found).await;
        }
    }
    if found.stopped {
        notes.push_str(&format!(
            "\n\n[search stopped after {} s: {} of {} notes searched; narrow it with folder, or use a simpler pattern]",
            budget.elapsed_s(),
            thousands(found.scanned),
            thousands(candidates.len())
        ));
    }
    if found.cut_lines > 0 {
        notes.push_str(&format!(
            "\n\n[{} long lines were searched in their first {} characters only: the pattern is expensive (weight {}); a simpler one searches them whole]",
            thousands(found.cut_lines),
            thousands(LINE_WORK / matcher.weight()),
            matcher.weight()
        ));
    }
    notes.push_str(&skipped.describe());
    let mut hits = found.hits;
    rank(&mut hits, corpus);
    if counted {
        // Counted from the index: the notes shown are read for their excerpts.
        for hit in hits.iter_mut().take(limit) {
            budget.pace().await;
            if let Ok(text) = ctx.host.vault_read(&hit.path).await {
                let entry = VaultEntry { path: hit.path.clone(), ..VaultEntry::default() };
                let mut scan = FileScan::new(&matcher, &entry, &text);
                while scan.step(&matcher, usize::MAX) {}
                if let Some(read) = scan.finish() {
                    hit.excerpts = read.excerpts;
                }
            }
        }
    }
    let scanned = found.scanned;
    if hits.is_empty() {
        return Ok(ToolOutput::ok(format!("No note matches {:?} ({scanned} notes searched).{notes}", query)));
    }
    let total = hits.len();
    let mut out = format!("{total} notes match {:?} ({scanned} searched), best first:", query);
    for hit in hits.iter().take(limit) {
        out.push_str(&format!(
            "\n\n{} — {} match{}{}",
            hit.path,
            hit.matches,
            if hit.matches == 1 { "" } else { "es" },
            if hit.name_matches { ", name matches" } else { "" }
        ));
        for (line, excerpt) in &hit.excerpts {
            out.push_str(&format!("\n  {line}: {excerpt}"));
        }
    }
    if total > limit {
        out.push_str(&format!("\n\n[{} more not shown]", total - limit));
    }
    out.push_str(&notes);
    Ok(ToolOutput::ok(out))
}

/// The vault's entries: the index's listing (brought up to date) when the index is ready, else
/// the vault listed now — and the index started in the background for the next call.
async fn vault_entries<H: Host>(ctx: &ToolContext<'_, H>) -> Step<(Option<Rc<Listing>>, Vec<VaultEntry>)> {
    let listing =
        if ctx.settings.search_index_max_mb == 0 { None } else { ctx.index.current(ctx.host, ctx.settings).await };
    if listing.is_some() {
        return Ok((listing, Vec::new()));
    }
    (ctx.start_index)();
    Ok((None, entries(ctx).await?))
}

/// The `folder` argument as a real vault folder ("" for the whole vault).
fn folder_arg<H: Host>(ctx: &ToolContext<'_, H>, args: &Args, all: &[VaultEntry]) -> Step<String> {
    match args.str("folder") {
        Some(f) => real(ctx, &checked(ctx, f)?, all, Access::Read),
        None => Ok(String::new()),
    }
}

pub(super) async fn list_files<H: Host>(ctx: &ToolContext<'_, H>, args: &Args) -> Step<ToolOutput> {
    let (listing, listed) = vault_entries(ctx).await?;
    let all: &[VaultEntry] = listing.as_ref().map_or(&listed, |l| &l.entries);
    let folder = folder_arg(ctx, args, all)?;
    let limit = args.number("limit").unwrap_or(50).clamp(1, MAX_LIST);
    let glob = match args.str("glob") {
        Some(g) => Some(Glob::new(g).map_err(|e| ToolOutput::error(format!("Invalid input for list_files: {e}.")))?),
        None => None,
    };
    let mut budget = Budget::start(ctx.host);
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
    crate::lean::sort_by(&mut files, |a, b| b.modified_ms.cmp(&a.modified_ms).then_with(|| a.path.cmp(&b.path)));
    if files.is_empty() {
        return Ok(ToolOutput::ok(format!("No files match.{notes}")));
    }
    let total = files.len();
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
