//! `search_files`: answered from the search index once it is built (`indexer`), else by listing
//! the vault and reading every note, as before — and then the answer says so (`list_files` is
//! `list.rs`). From the index, a plain query of term characters is counted without reading
//! a note (only the notes shown are read, for their excerpts); any other query is narrowed by
//! the index (a phrase by its words' positions, a regular expression by the literals it cannot
//! match without) and confirmed on the candidate notes' text only, by the same line scan a full
//! search uses — so both give the same answer.

use std::borrow::Cow;
use std::rc::Rc;

use crate::lean::fold_case;

use super::args::Args;
use super::budget::{thousands, Budget};
use super::call::{ToolContext, ToolOutput};
use super::find_meaning::{self, Mode};
use super::find_scan::{scan, Found};
use super::indexer::{Listing, Phase};
use super::note_paths::{folder_arg, protected, vault_entries, Step};
use super::scope::Scope;
use crate::host::Host;
use crate::vault::search::{rank, score, Corpus, FileHit, FileScan, Matcher, LINE_WORK};
use crate::vault::search_index::{context_folded, is_term, required_literals, tokens};
use crate::vault::VaultEntry;

/// Most results `search_files` returns.
const MAX_RESULTS: usize = 50;

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
    if case_sensitive && query.chars().any(context_folded) {
        // Folded whole, the query may not be what the text around a match folds to: narrowed by
        // its runs of other term characters only, each folded alone (as a regex's literals).
        let literals: Vec<String> = query
            .split(|c: char| !c.is_alphanumeric() || context_folded(c))
            .map(fold_case)
            .filter(|run| is_term(run))
            .collect();
        return if literals.is_empty() { Plan::All } else { Plan::Literals(literals) };
    }
    let words: Vec<String> = tokens(&folded).map(str::to_owned).collect();
    if words.is_empty() {
        Plan::All
    } else {
        Plan::Phrase(words)
    }
}

/// A note counted from the index: its entry, its matches, whether its name matches.
type Counted = (u32, usize, bool);

/// What the index settles of a search: the notes it counted (a plain query), the notes still to
/// read (by entry), and how many it settled without reading.
struct FromIndex {
    counted: Vec<Counted>,
    to_read: Vec<u32>,
    settled: usize,
    /// Long lines of the notes a regex search settled without reading (a scan that read them
    /// would have searched those lines in part, and said so).
    cut_lines: usize,
}

/// Searches the candidate notes (entries of `listing`) through the index.
fn from_index(
    ctx_index: &super::indexer::SearchIndex,
    listing: &Listing,
    matcher: &Matcher,
    plan: &Plan,
    scope: &Scope,
) -> FromIndex {
    ctx_index.with(|index| {
        // How many times a plain query occurs in each note, by note id, from the term list.
        let table = match plan {
            Plan::Exact(needle) => index.counts(needle),
            _ => Vec::new(),
        };
        // The notes that can match at all (then only those are looked at).
        let narrowed = match plan {
            Plan::Literals(literals) => Some(index.containing_all(literals)),
            Plan::Phrase(words) => Some(index.containing_all(words)),
            Plan::Exact(_) | Plan::All => None,
        };
        let may = |id: u32| match plan {
            Plan::Exact(_) => table.get(id as usize).is_some_and(|&n| n > 0),
            _ => narrowed.as_ref().is_none_or(|n| n.get(id as usize).is_some_and(|&holds| holds)),
        };
        let literals: &[String] = match plan {
            Plan::Literals(literals) => literals,
            _ => &[],
        };
        let names = scope.names_matching(matcher, literals, &listing.entries);
        let words: Vec<&str> = match plan {
            Plan::Phrase(words) => words.iter().map(String::as_str).collect(),
            _ => Vec::new(),
        };
        let mut out = FromIndex { counted: Vec::new(), to_read: Vec::new(), settled: 0, cut_lines: 0 };
        let regex = matches!(matcher, Matcher::Regex(..));
        for (k, &i) in scope.candidates.iter().enumerate() {
            let id = listing.ids[i as usize];
            let Some(doc) = index.by_id(id) else {
                out.to_read.push(i);
                continue;
            };
            if doc.unreadable {
                // A scan counts it and finds nothing in it.
                out.settled += 1;
                continue;
            }
            let named = names[k];
            // A note that cannot match is settled unread; one that can, as the plan says.
            let read = if named || may(id) {
                match plan {
                    Plan::Exact(_) => {
                        out.counted.push((i, table.get(id as usize).map_or(0, |&n| n as usize), named));
                        false
                    }
                    Plan::Phrase(_) => named || index.may_contain_phrase(doc, &words),
                    Plan::Literals(_) | Plan::All => true,
                }
            } else {
                false
            };
            if read {
                out.to_read.push(i);
            } else {
                out.settled += 1;
                if regex {
                    out.cut_lines += doc.long_lines as usize;
                }
            }
        }
        out
    })
}

/// The best `limit` of the counted notes and of the notes read, ranked as [`rank`] ranks them
/// all (the same scores, ties by path) without making a hit of every counted note; and how many
/// there are in all.
fn rank_counted(
    listing: &Listing,
    counted: &[Counted],
    read: Vec<FileHit>,
    corpus: Corpus,
    limit: usize,
) -> (Vec<FileHit>, usize) {
    let entry = |i: u32| &listing.entries[i as usize];
    let newest = counted.iter().map(|c| entry(c.0).modified_ms).chain(read.iter().map(|h| h.modified_ms)).max();
    let newest = newest.unwrap_or(0);
    let with = counted.iter().filter(|c| c.1 > 0).count() + read.iter().filter(|h| h.matches > 0).count();
    let total = counted.len() + read.len();
    // Counted notes as (score, entry); hits read as (score, their place in `read` past the
    // entries' range).
    let scored = counted
        .iter()
        .map(|&(i, matches, named)| {
            let e = entry(i);
            (score(matches, named, e.size, e.modified_ms, newest, corpus, with), Err((i, matches, named)))
        })
        .chain(read.iter().enumerate().map(|(k, h)| (h.score(newest, corpus, with), Ok(k))));
    let path = |at: &Result<usize, Counted>| match at {
        Ok(k) => read[*k].path.as_str(),
        Err(c) => entry(c.0).path.as_str(),
    };
    let best = crate::lean::top_by(scored, limit, |(sa, a), (sb, b)| {
        sb.partial_cmp(sa).unwrap_or(std::cmp::Ordering::Equal).then_with(|| path(a).cmp(path(b)))
    });
    let mut read: Vec<Option<FileHit>> = read.into_iter().map(Some).collect();
    let hits = best
        .into_iter()
        .filter_map(|(_, at)| match at {
            Ok(k) => read[k].take(),
            Err((i, matches, name_matches)) => {
                let e = entry(i);
                Some(FileHit {
                    path: e.path.clone(),
                    matches,
                    name_matches,
                    excerpts: Vec::new(),
                    modified_ms: e.modified_ms,
                    size: e.size,
                })
            }
        })
        .collect();
    (hits, total)
}

/// A query of several words no note holds as written: the notes holding its words, ranked by
/// BM25 (from the index only; `None` without it or when no note holds any of them).
async fn by_words<H: Host>(
    ctx: &ToolContext<'_, H>,
    query: &str,
    listing: Option<&Listing>,
    prefix: &str,
    limit: usize,
    notes: &str,
) -> Option<ToolOutput> {
    listing?;
    let words: Vec<String> = tokens(&fold_case(query)).map(str::to_owned).collect();
    if words.len() < 2 {
        return None;
    }
    let ranked = find_meaning::words_ranking(ctx, &words, find_meaning::in_folder(prefix));
    if ranked.is_empty() {
        return None;
    }
    let shown: Vec<&(String, f32)> = ranked.iter().take(limit).collect();
    let texts = super::budget::join_all(shown.iter().map(|(path, _)| ctx.host.vault_read(path))).await;
    let mut out = format!("No note holds {query:?} as written; {} notes holding its words, best first:", shown.len());
    for ((path, _), text) in shown.iter().zip(texts) {
        let Ok(text) = text else { continue };
        let lines = find_meaning::best_lines(&text, &words);
        out.push_str(&format!("\n\n{path}\n  {}: {}", lines.0, find_meaning::excerpt(&text, lines)));
    }
    out.push_str(notes);
    Some(ToolOutput::ok(out))
}

/// Why this answer did not come from the index, for the end of it.
fn scan_note<H: Host>(ctx: &ToolContext<'_, H>) -> String {
    match ctx.services.index.phase() {
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
    let mut query = args.string("query");
    let (regex, case_sensitive) = (args.flag("regex"), args.flag("case_sensitive"));
    let mode = find_meaning::mode(ctx, &args.string("mode"), regex || case_sensitive)
        .map_err(|e| ToolOutput::error(format!("Invalid input for search_files: {e}.")))?;
    // By words, "quotes" ask for the phrase as written.
    if mode == Mode::Words && !regex && query.len() > 2 && query.starts_with('"') && query.ends_with('"') {
        query = query[1..query.len() - 1].to_owned();
    }
    let matcher = Matcher::new(&query, regex, case_sensitive)
        .map_err(|e| ToolOutput::error(format!("Invalid input for search_files: {e}.")))?;
    // From the start: listing a big vault takes seconds of the tool's time too.
    let mut budget = Budget::start(ctx.host);
    let (listing, listed) = vault_entries(ctx).await?;
    let all: &[VaultEntry] = listing.as_ref().map_or(&listed, |l| &l.entries);
    let folder = folder_arg(ctx, args, all)?;
    let limit = args.number("max_results").unwrap_or(20).clamp(1, MAX_RESULTS);
    let prefix = if folder.is_empty() { String::new() } else { format!("{}/", fold_case(&folder)) };
    let protected = protected(ctx);
    let scope = match &listing {
        Some(l) => l.scope(&prefix, &protected),
        None => {
            let folded = |i: usize| Cow::Owned(fold_case(&all[i].path));
            Rc::new(Scope::new(all, folded, &prefix, &protected, ctx.settings.follow_linked_folders))
        }
    };
    let mut fell_back = String::new();
    if mode != Mode::Words {
        match find_meaning::search(ctx, &query, listing.as_deref(), &prefix, limit, mode).await {
            Ok(answer) => return Ok(answer),
            Err(why) => {
                fell_back = format!("\n\n[search by meaning is unavailable ({why}): these results are by words]")
            }
        }
    }
    let (candidates, corpus) = (&scope.candidates, scope.corpus);
    let entries_of = |list: &[u32]| -> Vec<&VaultEntry> { list.iter().map(|&i| &all[i as usize]).collect() };
    let mut found = Found::default();
    let mut notes = String::new();
    let mut hits;
    let total;
    match &listing {
        None => {
            scan(ctx, &matcher, &entries_of(candidates), &mut budget, &mut found).await;
            notes.push_str(&scan_note(ctx));
            hits = std::mem::take(&mut found.hits);
            rank(&mut hits, corpus);
            total = hits.len();
        }
        Some(l) => {
            let plan = plan(&query, regex, case_sensitive, matcher.weight());
            let settled = from_index(ctx.services.index, l, &matcher, &plan, &scope);
            found.scanned = settled.settled;
            found.cut_lines = settled.cut_lines;
            scan(ctx, &matcher, &entries_of(&settled.to_read), &mut budget, &mut found).await;
            (hits, total) = rank_counted(l, &settled.counted, std::mem::take(&mut found.hits), corpus, limit);
            // Counted from the index: the notes shown are read for their excerpts, together.
            let unread: Vec<usize> = (0..hits.len()).filter(|&k| hits[k].excerpts.is_empty()).collect();
            let texts = super::budget::join_all(unread.iter().map(|&k| ctx.host.vault_read(&hits[k].path))).await;
            for (k, text) in unread.into_iter().zip(texts) {
                let Ok(text) = text else { continue };
                let entry = VaultEntry { path: hits[k].path.clone(), ..VaultEntry::default() };
                let mut scan = FileScan::new(&matcher, &entry, &text);
                while scan.step(&matcher, usize::MAX) {}
                if let Some(read) = scan.finish() {
                    hits[k].excerpts = read.excerpts;
                }
            }
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
    notes.push_str(&scope.skipped.describe());
    notes.push_str(&fell_back);
    let scanned = found.scanned;
    if hits.is_empty() {
        // Several words no note holds as written (a question in everyday words): the notes
        // holding its words, ranked by them — from the index only, as the scan cannot rank them.
        if !regex && !case_sensitive {
            if let Some(answer) = by_words(ctx, &query, listing.as_deref(), &prefix, limit, &notes).await {
                return Ok(answer);
            }
        }
        return Ok(ToolOutput::ok(format!("No note matches {:?} ({scanned} notes searched).{notes}", query)));
    }
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
