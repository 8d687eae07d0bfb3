//! One case rule for every tool: an exact match first; a match that differs only in case when it
//! is the only one; a note named without `.md` found with it.

use super::path::{with_note_extension, PathError};
use crate::lean::fold_case;

/// A file or folder of the vault, as the host lists it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VaultEntry {
    pub path: String,
    pub is_folder: bool,
    pub size: u64,
    pub created_ms: u64,
    pub modified_ms: u64,
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
        VaultEntry { path: path.into(), is_folder: !path.contains('.'), size: 0, created_ms: 0, modified_ms: 0 }
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
