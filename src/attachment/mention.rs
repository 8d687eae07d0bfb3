//! The `@` picker's answers: the vault's notes, folders, images and PDFs the agent may reach,
//! listed once and kept until the vault changes, matched fuzzily on every keystroke (a whole
//! name first, then a name's start, then letters in order) so 20,000 notes answer within a frame.

use std::cell::{Cell, RefCell};

use serde::Serialize;

use crate::attachment_ref::kind_by_name;
use crate::host::Host;
use crate::lean::fold_case;
use crate::settings::Settings;
use crate::vault::path::{is_protected, protected_folders};
use crate::vault::real::listable;

/// One answer of the picker.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Mention {
    pub path: String,
    pub is_folder: bool,
}

#[derive(Debug, Clone)]
struct Candidate {
    path: String,
    folded: String,
    /// Where the name starts in `folded` (after the last `/`).
    name_at: usize,
    is_folder: bool,
    modified_ms: u64,
}

/// The listing the picker matches against, listed on first use and again after a vault event.
#[derive(Debug, Default)]
pub(crate) struct Mentions {
    /// Counts the vault's changes of names: a listing made before the latest is not kept.
    changes: Cell<u64>,
    /// The listing, with the count of changes it was made after.
    listed: RefCell<Option<Listing>>,
    /// The last query and the candidates of the listing whose letters it has in order: a longer
    /// query typed after it can only match among them (the next keystroke scans those, not the
    /// vault). Forgotten whenever the listing is replaced, so it always indexes the one kept.
    narrowed: RefCell<Option<(String, Vec<usize>)>>,
}

#[derive(Debug)]
struct Listing {
    after_changes: u64,
    candidates: Vec<Candidate>,
}

impl Mentions {
    /// Forgets the listing (a note was created, renamed or deleted).
    pub(crate) fn changed(&self) {
        self.changes.set(self.changes.get() + 1);
        self.listed.borrow_mut().take();
        self.narrowed.borrow_mut().take();
    }

    /// The best `limit` matches for `query`; the newest notes for an empty one.
    pub(crate) async fn find<H: Host>(&self, host: &H, settings: &Settings, query: &str, limit: usize) -> Vec<Mention> {
        let changes = self.changes.get();
        if self.listed.borrow().as_ref().is_none_or(|l| l.after_changes != changes) {
            let candidates = list(host, settings).await;
            // Two keystrokes may list at once, and the vault may change while they do: the newest
            // listing is kept, and no narrowing made in the one it replaces crosses over.
            let mut listed = self.listed.borrow_mut();
            if listed.as_ref().is_none_or(|l| l.after_changes <= changes) {
                *listed = Some(Listing { after_changes: changes, candidates });
                self.narrowed.borrow_mut().take();
            }
        }
        let listed = self.listed.borrow();
        let Some(Listing { candidates, .. }) = listed.as_ref() else { return Vec::new() };
        let query = fold_case(query.trim());
        if query.is_empty() {
            let newest = candidates.iter().map(|c| (c.modified_ms as i64, c));
            return best(newest, limit);
        }
        let narrowed = self.narrowed.borrow_mut().take();
        let among: Vec<usize> = match narrowed {
            Some((last, matched)) if query.starts_with(&last) => matched,
            _ => (0..candidates.len()).collect(),
        };
        let scored: Vec<(i64, usize)> =
            among.into_iter().filter_map(|i| Some((score(&query, candidates.get(i)?)?, i))).collect();
        *self.narrowed.borrow_mut() = Some((query, scored.iter().map(|&(_, i)| i).collect()));
        best(scored.into_iter().map(|(s, i)| (s, &candidates[i])), limit)
    }
}

/// The `limit` best scored candidates, the shorter path first among equals.
fn best<'a>(scored: impl Iterator<Item = (i64, &'a Candidate)>, limit: usize) -> Vec<Mention> {
    let best =
        crate::lean::top_by(scored, limit, |a, b| b.0.cmp(&a.0).then_with(|| a.1.path.len().cmp(&b.1.path.len())));
    best.into_iter().map(|(_, c)| Mention { path: c.path.clone(), is_folder: c.is_folder }).collect()
}

async fn list<H: Host>(host: &H, settings: &Settings) -> Vec<Candidate> {
    let protected = protected_folders(&host.config_folder(), &settings.protected_folders);
    let Ok(entries) = host.vault_list(settings.follow_linked_folders).await else { return Vec::new() };
    entries
        .into_iter()
        .filter(|e| is_protected(&e.path, &protected).is_none())
        .filter(|e| listable(e, &protected, settings.follow_linked_folders).is_ok())
        .filter(|e| e.is_folder || kind_by_name(&e.path).is_some())
        .map(|e| {
            let folded = fold_case(&e.path);
            let name_at = folded.rfind('/').map_or(0, |i| i + 1);
            Candidate { path: e.path, folded, name_at, is_folder: e.is_folder, modified_ms: e.modified_ms }
        })
        .collect()
}

/// How well `query` (folded) matches; `None` when its letters are not all there in order.
/// Higher is better: the name over the folder, its start over its middle, a run of letters over
/// scattered ones, a short path over a long one.
fn score(query: &str, c: &Candidate) -> Option<i64> {
    let name = &c.folded[c.name_at..];
    let short = -(c.folded.len() as i64);
    if let Some(at) = name.find(query) {
        let start = if at == 0 {
            3_000
        } else if starts_word(name, at) {
            2_500
        } else {
            2_000
        };
        return Some(start * 1_000 + short);
    }
    if let Some(at) = c.folded.find(query) {
        let start = if starts_word(&c.folded, at) { 1_500 } else { 1_000 };
        return Some(start * 1_000 + short);
    }
    // Letters in order: each run of consecutive letters counts, each gap costs.
    let mut runs = 0i64;
    let mut gaps = 0i64;
    let mut last: Option<usize> = None;
    let mut from = 0;
    for q in query.chars() {
        let found = c.folded[from..].find(q)? + from;
        match last {
            Some(l) if found == l => runs += 1,
            Some(_) => gaps += 1,
            None => {}
        }
        from = found + q.len_utf8();
        last = Some(from);
    }
    Some((500 + runs * 10 - gaps * 5) * 1_000 + short)
}

fn starts_word(text: &str, at: usize) -> bool {
    text[..at].ends_with(['/', ' ', '-', '_', '.'])
}
