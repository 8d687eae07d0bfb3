//! Real locations: where a path really is once the links on its way are followed, decided from
//! the host's listing (each entry says whether it is a link, to where, or a special file).
//!
//! A path is checked as text first (`path::normalize`); then every prefix of it that the listing
//! knows as a link is replaced by the link's real location, and the result is checked again. A
//! link out of the vault, a dangling or looping link and a FIFO, socket or device are refused;
//! a link into a protected folder is refused like the folder itself. A new path is checked
//! through its nearest existing ancestor, which is the longest prefix the listing knows.
//!
//! Folders linked from outside the vault (Obsidian's desktop app follows them) are reached only
//! when the user turned `followLinkedFolders` on, and then for reading only.

use super::path::{is_protected, normalize, PathError};
use super::resolve::{EntryKind, VaultEntry};
use crate::lean::fold_case;

/// What the caller is about to do with the location.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Read or list (allowed inside followed linked folders).
    Read,
    /// Create or change content (never inside a linked folder).
    Write,
    /// Move or trash the entry itself: refused for a link (the host would act on the link, the
    /// model on what it points to).
    Entry,
}

/// Links followed one after another before giving up (the host resolves whole chains, so more
/// than one is already unusual).
const MAX_HOPS: usize = 8;

/// The listed entry a prefix names: an exact match first, else an unusual entry (a link or a
/// special file) that differs only in case — the file system may not tell case apart, so the
/// cautious answer wins.
fn entry_at<'a>(prefix: &str, entries: &'a [VaultEntry]) -> Option<&'a VaultEntry> {
    entries.iter().find(|e| e.path == prefix).or_else(|| {
        let lower = fold_case(prefix);
        entries.iter().find(|e| e.is_unusual() && fold_case(&e.path) == lower)
    })
}

/// Why an unusual entry is never opened, as the model reads it.
fn unusual_reason(kind: EntryKind) -> &'static str {
    match kind {
        EntryKind::Dangling => "a dangling link (it points to nothing)",
        EntryKind::Loop => "a link that loops back on itself",
        EntryKind::Fifo => "a FIFO (named pipe), not a note",
        EntryKind::Socket => "a socket, not a note",
        EntryKind::Device => "a device, not a note",
        _ => "a special file, not a note",
    }
}

/// The real, vault-relative location of a normalised path, or why the agent may not reach it.
pub fn locate(
    path: &str,
    entries: &[VaultEntry],
    protected: &[String],
    access: Access,
    follow_linked: bool,
) -> Result<String, PathError> {
    let mut current = path.to_owned();
    'hops: for _ in 0..MAX_HOPS {
        let segments: Vec<&str> = current.split('/').filter(|s| !s.is_empty()).collect();
        for end in 1..=segments.len() {
            let prefix = segments[..end].join("/");
            let Some(entry) = entry_at(&prefix, entries) else { continue };
            let last = end == segments.len();
            match entry.kind {
                EntryKind::Plain => {
                    let Some(real) = &entry.real_path else { continue };
                    if last && access == Access::Entry {
                        return Err(PathError::IsLink(entry.path.clone()));
                    }
                    let rest = segments[end..].join("/");
                    let joined = match (real.is_empty(), rest.is_empty()) {
                        (_, true) => real.clone(),
                        (true, false) => rest,
                        (false, false) => format!("{real}/{rest}"),
                    };
                    // The host's answer is checked like the model's input.
                    current = match normalize(&joined, protected) {
                        Ok(p) => p,
                        Err(PathError::Protected(folder)) => {
                            return Err(PathError::ThroughLink { link: entry.path.clone(), folder })
                        }
                        Err(_) => return Err(PathError::OutsideLink(entry.path.clone())),
                    };
                    continue 'hops;
                }
                EntryKind::Outside | EntryKind::Linked => {
                    let linked_folder = entry.is_folder || entry.kind == EntryKind::Linked;
                    if !linked_folder {
                        return Err(PathError::OutsideLink(entry.path.clone()));
                    }
                    if !follow_linked {
                        return Err(PathError::LinkedFolderOff(entry.path.clone()));
                    }
                    if access != Access::Read {
                        return Err(PathError::LinkedReadOnly(path.to_owned()));
                    }
                }
                kind => return Err(PathError::Unusual(entry.path.clone(), unusual_reason(kind))),
            }
        }
        if let Some(folder) = is_protected(&current, protected) {
            return Err(PathError::Protected(folder));
        }
        return Ok(current);
    }
    Err(PathError::Unusual(path.to_owned(), unusual_reason(EntryKind::Loop)))
}

/// Why a path's real entry could not be reached, in the words the model and the user read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Unreachable {
    #[error("Path {path:?} refused: {error}.")]
    Refused { path: String, error: PathError },
    #[error("{0}.")]
    Lookup(PathError),
    #[error("{target} was not found where {link} points.")]
    Missing { target: String, link: String },
}

/// The entry a normalised path names once its real location is known (the case rule applied
/// there, and again when the entry found is itself a link), `None` for a new path, with the real
/// path. Every reader of the vault (the note tools, attachments) goes through here.
pub(crate) fn real_entry(
    normalized: &str,
    all: &[VaultEntry],
    protected: &[String],
    access: Access,
    follow_linked: bool,
) -> Result<(String, Option<VaultEntry>), Unreachable> {
    let real = |path: &str| {
        locate(path, all, protected, access, follow_linked)
            .map_err(|error| Unreachable::Refused { path: path.to_owned(), error })
    };
    let located = real(normalized)?;
    let Some(found) = super::resolve::find(&located, all).map_err(Unreachable::Lookup)? else {
        return Ok((located, None));
    };
    if !found.is_unusual() {
        return Ok((found.path.clone(), Some(found.clone())));
    }
    // Found through the case rule or `.md`: the entry itself is a link or special file.
    let again = real(&found.path)?;
    let target = all.iter().find(|e| e.path == again && !e.is_unusual()).cloned();
    match target {
        Some(t) => Ok((again, Some(t))),
        // A file in a followed linked folder is listed as `Linked` and read where it is.
        None if found.kind == EntryKind::Linked => Ok((again, Some(found.clone()))),
        None => Err(Unreachable::Missing { target: again, link: found.path.clone() }),
    }
}

/// What a listing or a search left out, counted by kind ("3 entries skipped: 2 dangling links,
/// 1 FIFO").
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Skipped {
    counts: Vec<(&'static str, usize)>,
}

impl Skipped {
    /// Counts one entry left out.
    pub(crate) fn add(&mut self, what: &'static str) {
        match self.counts.iter_mut().find(|(w, _)| *w == what) {
            Some((_, n)) => *n += 1,
            None => self.counts.push((what, 1)),
        }
    }

    /// The line the model reads, or `""` when nothing was left out.
    pub(crate) fn describe(&self) -> String {
        let total: usize = self.counts.iter().map(|(_, n)| n).sum();
        if total == 0 {
            return String::new();
        }
        let parts: Vec<String> = self
            .counts
            .iter()
            .map(|(w, n)| format!("{n} {}", if *n == 1 { singular(w) } else { (*w).to_owned() }))
            .collect();
        format!(
            "\n[{total} {} skipped, which the agent may not open: {}]",
            if total == 1 { "entry" } else { "entries" },
            parts.join(", ")
        )
    }
}

/// "dangling links" → "dangling link": the first word ending in `s` loses it.
fn singular(plural: &str) -> String {
    let mut done = false;
    let words: Vec<&str> = plural
        .split(' ')
        .map(|w| match w.strip_suffix('s') {
            Some(one) if !done => {
                done = true;
                one
            }
            _ => w,
        })
        .collect();
    words.join(" ")
}

/// Whether list and search may show (and read) this entry; `Err` says what to count it as.
/// Links inside the vault are shown only when their real location is not protected; what lies
/// in a folder linked from outside only when following is on.
pub(crate) fn listable(entry: &VaultEntry, protected: &[String], follow_linked: bool) -> Result<(), &'static str> {
    match entry.kind {
        EntryKind::Plain => match &entry.real_path {
            Some(real) if normalize(real, protected).is_err() => Err(EntryKind::Plain.plural()),
            _ => Ok(()),
        },
        EntryKind::Linked | EntryKind::Outside
            if follow_linked && (entry.is_folder || entry.kind == EntryKind::Linked) =>
        {
            Ok(())
        }
        EntryKind::Outside if entry.is_folder => {
            Err("folders linked from outside the vault (followLinkedFolders is off)")
        }
        kind => Err(kind.plural()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vault::path::protected_folders;

    fn entry(path: &str, is_folder: bool, kind: EntryKind, real: Option<&str>) -> VaultEntry {
        VaultEntry { path: path.into(), is_folder, kind, real_path: real.map(str::to_owned), ..VaultEntry::default() }
    }

    fn world() -> Vec<VaultEntry> {
        vec![
            entry("notes", true, EntryKind::Plain, None),
            entry("notes/a.md", false, EntryKind::Plain, None),
            entry("self", true, EntryKind::Plain, Some("")),
            entry("alias.md", false, EntryKind::Plain, Some("notes/a.md")),
            entry("cfg.md", false, EntryKind::Plain, Some(".obsidian/app.json")),
            entry("up", true, EntryKind::Plain, Some("../outside")),
            entry("etc.md", false, EntryKind::Outside, None),
            entry("ext", true, EntryKind::Outside, None),
            entry("ext/n.md", false, EntryKind::Linked, None),
            entry("gone.md", false, EntryKind::Dangling, None),
            entry("loop.md", false, EntryKind::Loop, None),
            entry("pipe.md", false, EntryKind::Fifo, None),
        ]
    }

    /// Every link form, each access: the real location or the refusal expected.
    #[test]
    fn real_locations_table() {
        use Access::*;
        let p = protected_folders(".obsidian", &[]);
        let all = world();
        type Expect = fn(&Result<String, PathError>) -> bool;
        let table: Vec<(&str, Access, bool, Expect)> = vec![
            ("notes/a.md", Write, false, |r| r.as_deref() == Ok("notes/a.md")),
            ("self/notes/a.md", Write, false, |r| r.as_deref() == Ok("notes/a.md")),
            ("self/self/self/notes/new.md", Write, false, |r| r.as_deref() == Ok("notes/new.md")),
            ("SELF/notes/a.md", Read, false, |r| r.as_deref() == Ok("notes/a.md")),
            ("self/.obsidian/app.json", Write, false, |r| matches!(r, Err(PathError::ThroughLink { .. }))),
            ("self/.git/config", Read, false, |r| matches!(r, Err(PathError::ThroughLink { .. }))),
            ("alias.md", Read, false, |r| r.as_deref() == Ok("notes/a.md")),
            ("alias.md", Entry, false, |r| matches!(r, Err(PathError::IsLink(_)))),
            ("self/notes/a.md", Entry, false, |r| r.as_deref() == Ok("notes/a.md")),
            ("cfg.md", Read, false, |r| matches!(r, Err(PathError::ThroughLink { .. }))),
            ("up/x.md", Write, false, |r| matches!(r, Err(PathError::OutsideLink(_)))),
            ("etc.md", Read, true, |r| matches!(r, Err(PathError::OutsideLink(_)))),
            ("ext/n.md", Read, false, |r| matches!(r, Err(PathError::LinkedFolderOff(_)))),
            ("ext/n.md", Read, true, |r| r.as_deref() == Ok("ext/n.md")),
            ("ext/n.md", Write, true, |r| matches!(r, Err(PathError::LinkedReadOnly(_)))),
            ("ext/new/x.md", Write, true, |r| matches!(r, Err(PathError::LinkedReadOnly(_)))),
            ("ext", Read, false, |r| matches!(r, Err(PathError::LinkedFolderOff(_)))),
            ("gone.md", Write, false, |r| matches!(r, Err(PathError::Unusual(_, _)))),
            ("loop.md/x", Write, false, |r| matches!(r, Err(PathError::Unusual(_, _)))),
            ("pipe.md", Read, false, |r| matches!(r, Err(PathError::Unusual(_, _)))),
            ("PIPE.md", Read, false, |r| matches!(r, Err(PathError::Unusual(_, _)))),
            ("new/folder", Write, false, |r| r.as_deref() == Ok("new/folder")),
        ];
        for (path, access, follow, expected) in table {
            let got = locate(path, &all, &p, access, follow);
            assert!(expected(&got), "{path:?} {access:?} follow={follow}: {got:?}");
        }
    }

    #[test]
    fn a_link_cycle_in_the_listing_is_refused_not_followed_forever() {
        let all = vec![entry("a", true, EntryKind::Plain, Some("b")), entry("b", true, EntryKind::Plain, Some("a"))];
        assert!(matches!(locate("a/x.md", &all, &[], Access::Read, false), Err(PathError::Unusual(_, _))));
    }

    #[test]
    fn skipped_entries_are_counted_by_kind() {
        let p = protected_folders(".obsidian", &[]);
        let mut skipped = Skipped::default();
        for e in world() {
            if let Err(what) = listable(&e, &p, false) {
                skipped.add(what);
            }
        }
        let line = skipped.describe();
        assert!(line.contains("8 entries skipped"), "{line}");
        assert!(
            line.contains("1 dangling link,") && line.contains("1 FIFO") && line.contains("2 links into protected"),
            "{line}"
        );
        assert_eq!(Skipped::default().describe(), "");
    }
}
