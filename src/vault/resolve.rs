//! One case rule for every tool: an exact match first; a match that differs only in case when it
//! is the only one; a note named without `.md` found with it.

use super::path::{with_note_extension, PathError};
use crate::lean::fold_case;

/// A file or folder of the vault, as the host lists it.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VaultEntry {
    pub path: String,
    pub is_folder: bool,
    pub size: u64,
    pub created_ms: u64,
    pub modified_ms: u64,
    /// What the entry really is, so the core can refuse links out of the vault and files it must
    /// never open (absent: a plain file or folder).
    #[serde(default)]
    pub kind: EntryKind,
    /// For a link whose real location is inside the vault: that location, vault-relative (the
    /// host resolved the whole chain). The core works on the real location, never through the
    /// link, and checks it like any other path.
    #[serde(default)]
    pub real_path: Option<String>,
}

/// What a listed entry really is. The host tells (it alone can `lstat` and `realpath`); the core
/// decides what the agent may do with it (`vault::real`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum EntryKind {
    /// A regular file or a folder (`is_folder` says which), or a link to one inside the vault
    /// (`real_path` says where).
    #[default]
    Plain,
    /// A link whose real location is outside the vault (`is_folder`: a folder linked from
    /// outside, whose content is listed only when the core asks to follow linked folders).
    Outside,
    /// An entry inside a folder linked from outside (listed only when following them).
    Linked,
    /// A link to nothing.
    Dangling,
    /// A link that loops (resolving it never ends).
    Loop,
    /// A named pipe: opening it can block forever.
    Fifo,
    /// A Unix socket.
    Socket,
    /// A block or character device.
    Device,
    /// Anything a newer host reports that this core does not know: never opened.
    #[serde(other)]
    Other,
}

impl EntryKind {
    /// How a skipped entry of this kind is counted in a listing ("2 dangling links").
    pub(crate) fn plural(self) -> &'static str {
        match self {
            EntryKind::Plain => "links into protected folders",
            EntryKind::Outside | EntryKind::Linked => "links out of the vault",
            EntryKind::Dangling => "dangling links",
            EntryKind::Loop => "looping links",
            EntryKind::Fifo => "FIFOs",
            EntryKind::Socket => "sockets",
            EntryKind::Device => "devices",
            EntryKind::Other => "special files",
        }
    }
}

impl VaultEntry {
    /// Whether the entry is a link or a special file rather than a plain file or folder.
    pub(crate) fn is_unusual(&self) -> bool {
        self.kind != EntryKind::Plain || self.real_path.is_some()
    }
}

/// The entry a normalised path names, if any.
pub(crate) fn find<'a>(path: &str, entries: &'a [VaultEntry]) -> Result<Option<&'a VaultEntry>, PathError> {
    let with_md = with_note_extension(path);
    for candidate in [path, with_md.as_str()] {
        if let Some(e) = entries.iter().find(|e| e.path == candidate) {
            return Ok(Some(e));
        }
    }
    for candidate in [path, with_md.as_str()] {
        let lower = fold_case(candidate);
        let matches: Vec<&VaultEntry> = entries.iter().filter(|e| fold_case(&e.path) == lower).collect();
        match matches.len() {
            0 => continue,
            1 => return Ok(Some(matches[0])),
            _ => {
                let names: Vec<&str> = matches.iter().map(|e| e.path.as_str()).collect();
                return Err(PathError::AmbiguousCase(path.to_owned(), names.join(", ")));
            }
        }
    }
    Ok(None)
}

/// The entry a path names; not finding it is an error.
pub(crate) fn existing<'a>(path: &str, entries: &'a [VaultEntry]) -> Result<&'a VaultEntry, PathError> {
    find(path, entries)?.ok_or_else(|| PathError::NotFound(path.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(path: &str) -> VaultEntry {
        VaultEntry { path: path.into(), is_folder: !path.contains('.'), ..VaultEntry::default() }
    }

    #[test]
    fn exact_first_then_unique_case_insensitive_then_with_md() {
        let entries = vec![e("Notes/Plan.md"), e("Notes/plan.MD"), e("Shopping.md"), e("Daily")];
        assert_eq!(find("Notes/Plan.md", &entries).unwrap().unwrap().path, "Notes/Plan.md");
        assert!(
            matches!(find("notes/plan.md", &entries), Err(PathError::AmbiguousCase(_, names)) if names.contains("plan.MD"))
        );
        assert_eq!(find("shopping.md", &entries).unwrap().unwrap().path, "Shopping.md");
        assert_eq!(find("Shopping", &entries).unwrap().unwrap().path, "Shopping.md");
        assert_eq!(find("daily", &entries).unwrap().unwrap().path, "Daily");
        assert_eq!(find("Nope.md", &entries).unwrap(), None);
        assert_eq!(existing("Nope.md", &entries), Err(PathError::NotFound("Nope.md".into())));
    }
}
