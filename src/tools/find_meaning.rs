//! `search_files` by meaning and hybrid (issue 35): the query embedded, the notes ranked by
//! their best passage's cosine (`tools::meaning`), and in hybrid mode fused with the notes
//! ranked by the query's words (BM25 over the search index) — a weighted sum of each list's
//! normalised scores, which kept meaning's recall where equal-weight rank fusion lost it
//! (docs/BENCHMARKS.md). Each note answers with its passage. When meaning cannot answer (no
//! embedding server, none reachable, nothing embedded yet), the caller searches by words and
//! says why.

use std::collections::HashMap;

use super::budget::join_all;
use super::call::{ToolContext, ToolOutput};
use super::indexer::Listing;
use super::meaning::{configured, MeaningPhase};
use crate::host::Host;
use crate::lean::fold_case;
use crate::vault::meaning::fusion::{fuse, MEANING_WEIGHT};
use crate::vault::search_index::tokens;

/// Notes each ranking gives the fusion (measured best on the recall benchmark).
const CANDIDATES: usize = 50;
/// Longest excerpt of a passage, in characters.
const EXCERPT_CHARS: usize = 400;

/// How `search_files` ranks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Mode {
    Words,
    Meaning,
    Hybrid,
}

/// The mode asked for, or the default: hybrid where meaning can answer and the query is not a
/// pattern, words otherwise.
pub(crate) fn mode<H: Host>(ctx: &ToolContext<'_, H>, asked: &str, pattern: bool) -> Result<Mode, String> {
    let mode = match asked {
        "" if pattern || !ctx.services.meaning.usable(ctx.settings) => Mode::Words,
        "" | "hybrid" => Mode::Hybrid,
        "meaning" => Mode::Meaning,
        "words" => Mode::Words,
        other => return Err(format!("mode must be \"hybrid\", \"meaning\" or \"words\", not {other:?}")),
    };
    if pattern && mode != Mode::Words {
        return Err("a regular expression or a case-sensitive search is by words: set mode to \"words\"".to_owned());
    }
    Ok(mode)
}

/// Why meaning cannot answer now, if it cannot.
fn unavailable<H: Host>(ctx: &ToolContext<'_, H>) -> Option<String> {
    if !configured(ctx.settings) {
        return Some("no embedding server is set up (Settings → Search by meaning)".to_owned());
    }
    if ctx.services.meaning.usable(ctx.settings) {
        return None;
    }
    Some(match ctx.services.meaning.phase() {
        MeaningPhase::Paused(why) => why,
        MeaningPhase::Building(done, total) => format!("the meaning index is being built ({done} of {total} notes)"),
        _ => "the meaning index holds no note yet".to_owned(),
    })
}

/// The answer by meaning (or hybrid), or why there is none (the caller then searches by words).
pub(crate) async fn search<H: Host>(
    ctx: &ToolContext<'_, H>,
    query: &str,
    listing: Option<&Listing>,
    prefix: &str,
    limit: usize,
    mode: Mode,
) -> Result<ToolOutput, String> {
    if let Some(why) = unavailable(ctx) {
        return Err(why);
    }
    let meaning = ctx.services.meaning;
    let vector = meaning.query_vector(ctx.host, ctx.settings, query).await.map_err(|e| {
        format!(
            "the embedding server ({}) could not embed the query: {}",
            ctx.settings.embeddings_base_url,
            e.user_message(&ctx.settings.embeddings_model)
        )
    })?;
    let keep = in_folder(prefix);
    let near = meaning.nearest(&vector, CANDIDATES, &keep);
    let passages: HashMap<&str, (u32, u32)> = near.iter().map(|n| (n.path.as_str(), n.lines)).collect();
    let by_meaning: Vec<(String, f32)> = near.iter().map(|n| (n.path.clone(), n.score)).collect();
    let words: Vec<String> = tokens(&fold_case(query)).map(str::to_owned).collect();
    let ranked = match (mode, listing) {
        (Mode::Hybrid, Some(_)) => {
            let by_words = words_ranking(ctx, &words, &keep);
            fuse(&by_words, &by_meaning, MEANING_WEIGHT)
        }
        _ => by_meaning,
    };
    if ranked.is_empty() {
        return Ok(ToolOutput::ok(format!(
            "No note is close to {query:?} ({} notes searched by meaning).",
            meaning.with(|i| i.notes())
        )));
    }
    let shown: Vec<&(String, f32)> = ranked.iter().take(limit).collect();
    let texts = join_all(shown.iter().map(|(path, _)| ctx.host.vault_read(path))).await;
    let how = if mode == Mode::Hybrid { "by meaning and words" } else { "by meaning" };
    let mut out = format!("{} notes for {query:?} {how}, best first:", shown.len());
    for ((path, _), text) in shown.iter().zip(texts) {
        let Ok(text) = text else { continue };
        let lines = passages.get(path.as_str()).copied().unwrap_or_else(|| best_lines(&text, &words));
        out.push_str(&format!("\n\n{path} — lines {}–{}\n  {}", lines.0, lines.1, excerpt(&text, lines)));
    }
    if let MeaningPhase::Building(done, total) = meaning.phase() {
        out.push_str(&format!(
            "\n\n[the meaning index is still being built ({done} of {total} notes): notes not embedded yet are found by their words only]"
        ));
    }
    Ok(ToolOutput::ok(out))
}

/// Whether a note is in the folder searched (`prefix`: its folded path with a slash, or `""`
/// for the whole vault).
pub(crate) fn in_folder(prefix: &str) -> impl Fn(&str) -> bool + '_ {
    move |path| prefix.is_empty() || fold_case(path).starts_with(prefix)
}

/// The notes ranked by the query's words (BM25 over the search index), as (path, score).
pub(crate) fn words_ranking<H: Host>(
    ctx: &ToolContext<'_, H>,
    words: &[String],
    keep: impl Fn(&str) -> bool,
) -> Vec<(String, f32)> {
    ctx.services.index.with(|index| {
        index
            .rank_words(words, CANDIDATES * 4)
            .into_iter()
            .filter_map(|(id, score)| index.by_id(id).map(|d| (d.path.clone(), score)))
            .filter(|(path, _)| keep(path))
            .take(CANDIDATES)
            .collect()
    })
}

/// The line holding most of the query's words (a note found by its words alone).
pub(crate) fn best_lines(text: &str, words: &[String]) -> (u32, u32) {
    let best = text
        .lines()
        .enumerate()
        .max_by_key(|(i, line)| {
            let folded = fold_case(line);
            let held = tokens(&folded).filter(|t| words.iter().any(|w| w == t)).count();
            (held, std::cmp::Reverse(*i))
        })
        .map_or(0, |(i, _)| i);
    let line = u32::try_from(best + 1).unwrap_or(u32::MAX);
    (line, line)
}

/// A passage's lines as one excerpt line, shortened.
pub(crate) fn excerpt(text: &str, (first, last): (u32, u32)) -> String {
    let joined: Vec<&str> = text
        .lines()
        .skip(first.saturating_sub(1) as usize)
        .take((last.saturating_sub(first) + 1) as usize)
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let joined = joined.join(" ");
    if joined.chars().count() <= EXCERPT_CHARS {
        joined
    } else {
        let cut: String = joined.chars().take(EXCERPT_CHARS).collect();
        format!("{cut}…")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts_take_the_passages_lines_and_the_line_with_most_words() {
        let text = "# Refunds\n\nMoney back within 30 days.\nAsk support.\n";
        assert_eq!(excerpt(text, (3, 4)), "Money back within 30 days. Ask support.");
        let words = vec!["ask".to_owned(), "support".to_owned()];
        assert_eq!(best_lines(text, &words), (4, 4));
        assert!(excerpt(&"x".repeat(1000), (1, 1)).ends_with('…'));
    }
}
