//! Every path the agent gives is checked here before any tool touches the vault: normalised to a
//! vault-relative path, or refused with the reason. Refused: absolute paths, `..` that leaves the
//! vault, NUL and control characters, percent-encoded dots and slashes, Unicode look-alikes of `.`
//! `/` `\` and invisible characters, segments Windows cannot hold, and the protected folders.

use crate::lean::fold_case;
use thiserror::Error;

/// Longest path accepted, in characters.
pub(crate) const MAX_PATH_CHARS: usize = 1024;
/// Longest path segment, in bytes.
pub(crate) const MAX_SEGMENT_BYTES: usize = 255;
/// Folders the agent never reads or writes, whatever the settings and the host: the plugin's data,
/// Git's, Obsidian's trash, and `.obsidian` — Obsidian's configuration folder unless this device
/// names another (another device syncing the vault may still use it).
const ALWAYS_PROTECTED: [&str; 4] = [".obsidian", ".smarthole", ".git", ".trash"];

/// Why a path was refused. The message tells the model what to do instead.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PathError {
    #[error("the path is longer than {MAX_PATH_CHARS} characters")]
    TooLong,
    #[error("absolute paths are not allowed; give a path inside the vault, like \"Folder/Note.md\"")]
    Absolute,
    #[error("the path leaves the vault (\"..\" above its root)")]
    LeavesVault,
    #[error("the path contains a control character")]
    ControlCharacter,
    #[error("the path contains percent-encoded characters ({0}); write them as they are")]
    Encoded(String),
    #[error("the path contains the character U+{0:04X}, which looks like a path separator or dot, or is invisible")]
    LookAlike(u32),
    #[error("the folder or file name {0:?} is not allowed (it ends with a dot or a space, or is too long)")]
    BadSegment(String),
    #[error("{0} is a protected folder the agent may not touch")]
    Protected(String),
    #[error("{0:?} is not a note or folder of this vault")]
    NotFound(String),
    #[error("{0:?} matches several names that differ only in case: {1}; give the exact one")]
    AmbiguousCase(String, String),
    #[error("{0} is a link to a place outside the vault, which the agent may not reach")]
    OutsideLink(String),
    #[error(
        "{0} is a folder linked from outside the vault; the agent may not reach it while the \
followLinkedFolders setting is off (the user can turn it on to let the agent read it)"
    )]
    LinkedFolderOff(String),
    #[error("{0} is in a folder linked from outside the vault: the agent may read it, never change it")]
    LinkedReadOnly(String),
    #[error("{link} is a link that leads into {folder}, a protected folder the agent may not touch")]
    ThroughLink { link: String, folder: String },
    #[error("{0} is a link; moving or deleting it is left to the user (work on the note it points to instead)")]
    IsLink(String),
    #[error("{0} is {1}; the agent never opens it")]
    Unusual(String, &'static str),
}

/// Characters refused anywhere in a path: look-alikes of `.`, `/`, `\`, and invisible ones.
fn is_look_alike(c: char) -> bool {
    matches!(
        c,
        '\u{2024}' | '\u{2025}' | '\u{2026}' | '\u{FE52}' | '\u{FF0E}' | '\u{3002}' // dots
        | '\u{2044}' | '\u{2215}' | '\u{29F8}' | '\u{FF0F}' | '\u{2571}' // slashes
        | '\u{2216}' | '\u{29F9}' | '\u{FF3C}' | '\u{2572}' | '\u{FE68}' // backslashes
        | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}'
        | '\u{FEFF}' | '\u{00AD}' // zero-width, bidi, soft hyphen
    )
}

/// The folders protected whatever the settings, lower-cased: the fixed ones and the host's
/// configuration folder (`Host::config_folder`, Obsidian's `Vault#configDir`; one that is not a
/// vault folder adds nothing). The one list: the hosts' own defence-in-depth checks take it from
/// here (the `alwaysProtectedFolders` binding).
pub(crate) fn always_protected(config_folder: &str) -> Vec<String> {
    let mut folders: Vec<String> = ALWAYS_PROTECTED.iter().map(|s| (*s).to_owned()).collect();
    if let Ok(config) = normalize(config_folder, &[]) {
        let config = fold_case(&config);
        if !config.is_empty() && !folders.contains(&config) {
            folders.push(config);
        }
    }
    folders
}

/// The folders the agent may not touch: [`always_protected`] and the user's protected folders
/// (normalised; settings validation refused bad ones), lower-cased.
pub fn protected_folders(config_folder: &str, extra: &[String]) -> Vec<String> {
    always_protected(config_folder)
        .into_iter()
        .chain(extra.iter().filter_map(|s| normalize(s, &[]).ok()))
        .filter(|s| !s.is_empty())
        .map(|s| fold_case(&s))
        .collect()
}

/// Whether a normalised path is in a protected folder (compared without case).
pub fn is_protected(path: &str, protected: &[String]) -> Option<String> {
    let lower = fold_case(path);
    protected.iter().find(|p| lower == **p || lower.starts_with(&format!("{p}/"))).cloned()
}

/// A vault-relative path with `/` separators, no empty, `.` or `..` segments; `""` is the root.
pub fn normalize(input: &str, protected: &[String]) -> Result<String, PathError> {
    let raw = input.trim();
    if raw.chars().count() > MAX_PATH_CHARS {
        return Err(PathError::TooLong);
    }
    if raw.chars().any(char::is_control) {
        return Err(PathError::ControlCharacter);
    }
    if let Some(c) = raw.chars().find(|c| is_look_alike(*c)) {
        return Err(PathError::LookAlike(u32::from(c)));
    }
    let lower = fold_case(raw);
    for code in ["%2e", "%2f", "%5c", "%00", "%25"] {
        if lower.contains(code) {
            return Err(PathError::Encoded(code.to_ascii_uppercase()));
        }
    }
    let unified = raw.replace('\\', "/");
    let bytes = unified.as_bytes();
    let drive = bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':';
    if unified.starts_with('/') || unified.starts_with('~') || drive {
        return Err(PathError::Absolute);
    }
    let mut segments: Vec<&str> = Vec::new();
    for segment in unified.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                if segments.pop().is_none() {
                    return Err(PathError::LeavesVault);
                }
            }
            // A colon names a drive or a stream on Windows, and no note may contain one.
            s if s.ends_with('.')
                || s.starts_with(char::is_whitespace)
                || s.ends_with(char::is_whitespace)
                || s.contains(':')
                || s.len() > MAX_SEGMENT_BYTES =>
            {
                return Err(PathError::BadSegment(s.to_owned()))
            }
            s => segments.push(s),
        }
    }
    let path = segments.join("/");
    // `./~` is `~` once normalised: refused like `~` itself, so the normal form is stable.
    if path.starts_with('~') {
        return Err(PathError::Absolute);
    }
    if let Some(folder) = is_protected(&path, protected) {
        return Err(PathError::Protected(folder));
    }
    Ok(path)
}

/// A note path: `.md` added when the name has no extension.
pub(crate) fn with_note_extension(path: &str) -> String {
    let name = path.rsplit('/').next().unwrap_or(path);
    if name.contains('.') {
        path.to_owned()
    } else {
        format!("{path}.md")
    }
}

/// The folder part of a path (`""` for the root).
pub(crate) fn parent(path: &str) -> &str {
    path.rsplit_once('/').map(|(p, _)| p).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(p: &str) -> Result<String, PathError> {
        normalize(p, &protected_folders(".obsidian", &["Private".into()]))
    }

    /// The host's configuration folder is protected as well as `.obsidian` (another device's),
    /// whatever its case; one that is not a vault folder adds nothing.
    #[test]
    fn the_hosts_configuration_folder_is_protected() {
        let protected = protected_folders(".Config-Mobile", &[]);
        for path in [".config-mobile/app.json", ".CONFIG-MOBILE", ".obsidian/app.json", ".git/config"] {
            assert!(matches!(normalize(path, &protected), Err(PathError::Protected(_))), "{path}");
        }
        assert_eq!(normalize(".config/x.md", &protected), Ok(".config/x.md".into()));
        assert_eq!(always_protected(".obsidian"), [".obsidian", ".smarthole", ".git", ".trash"]);
        for odd in ["", "/etc", "../up", ".obsidian/"] {
            assert_eq!(always_protected(odd), [".obsidian", ".smarthole", ".git", ".trash"], "{odd:?}");
        }
        assert_eq!(always_protected("Sub/.cfg").last().map(String::as_str), Some("sub/.cfg"));
    }

    #[test]
    fn ordinary_paths_are_normalised() {
        for (input, out) in [
            ("Notes/Shopping.md", "Notes/Shopping.md"),
            ("  Notes//Shopping.md ", "Notes/Shopping.md"),
            ("./Notes/./Shopping.md", "Notes/Shopping.md"),
            ("Notes\\Sub\\A.md", "Notes/Sub/A.md"),
            ("Notes/Sub/../A.md", "Notes/A.md"),
            ("Daily/2026-11-20.md", "Daily/2026-11-20.md"),
            ("Réunions/Café ☕.md", "Réunions/Café ☕.md"),
            ("", ""),
        ] {
            assert_eq!(norm(input), Ok(out.to_owned()), "{input:?}");
        }
    }

    /// Every hostile path of the table is refused, with the reason expected.
    #[test]
    fn hostile_paths_are_refused() {
        use PathError::*;
        type Expect = fn(&PathError) -> bool;
        let table: Vec<(&str, Expect)> = vec![
            ("../secret.md", |e| *e == LeavesVault),
            ("Notes/../../secret.md", |e| *e == LeavesVault),
            ("..", |e| *e == LeavesVault),
            ("a/b/../../../etc/passwd", |e| *e == LeavesVault),
            ("..\\..\\Windows\\win.ini", |e| *e == LeavesVault),
            ("/etc/passwd", |e| *e == Absolute),
            ("\\\\server\\share\\x.md", |e| *e == Absolute),
            ("C:\\Users\\me\\x.md", |e| *e == Absolute),
            ("c:/x.md", |e| *e == Absolute),
            ("~/notes.md", |e| *e == Absolute),
            // Found by the vault_path fuzz target: a drive letter or `~` after `./` or `..`.
            ("./r:", |e| matches!(e, BadSegment(_))),
            ("a/../C:/x.md", |e| matches!(e, BadSegment(_))),
            ("notes/a:b.md", |e| matches!(e, BadSegment(_))),
            ("./~", |e| *e == Absolute),
            ("./>ts\u{a0}/.", |e| matches!(e, BadSegment(_))),
            ("a/ b.md", |e| matches!(e, BadSegment(_))),
            ("Notes/a\0.md", |e| *e == ControlCharacter),
            ("Notes/a\n.md", |e| *e == ControlCharacter),
            ("Notes/\u{7f}.md", |e| *e == ControlCharacter),
            ("%2e%2e/secret.md", |e| matches!(e, Encoded(_))),
            ("..%2Fsecret.md", |e| matches!(e, Encoded(_))),
            ("%2E%2E%5Csecret.md", |e| matches!(e, Encoded(_))),
            ("Notes%00.md", |e| matches!(e, Encoded(_))),
            ("%252e%252e/x", |e| matches!(e, Encoded(_))),
            (".obsidian/plugins/x/data.json", |e| matches!(e, Protected(_))),
            (".OBSIDIAN/app.json", |e| matches!(e, Protected(_))),
            (".smarthole/inbox/m.json", |e| matches!(e, Protected(_))),
            (".SmartHole/conversations/index.json", |e| matches!(e, Protected(_))),
            (".git/config", |e| matches!(e, Protected(_))),
            (".trash/old.md", |e| matches!(e, Protected(_))),
            ("Notes/../.obsidian/app.json", |e| matches!(e, Protected(_))),
            ("private/diary.md", |e| matches!(e, Protected(_))),
            ("Private", |e| matches!(e, Protected(_))),
            ("\u{FF0E}\u{FF0E}/secret.md", |e| matches!(e, LookAlike(0xFF0E))),
            ("\u{2025}/secret.md", |e| matches!(e, LookAlike(0x2025))),
            ("Notes\u{2215}..\u{2215}secret.md", |e| matches!(e, LookAlike(0x2215))),
            ("Notes\u{FF0F}x.md", |e| matches!(e, LookAlike(0xFF0F))),
            ("Notes\u{2044}x.md", |e| matches!(e, LookAlike(0x2044))),
            ("Notes\u{FF3C}x.md", |e| matches!(e, LookAlike(0xFF3C))),
            (".obsid\u{200B}ian/app.json", |e| matches!(e, LookAlike(0x200B))),
            ("Notes/\u{202E}dm.exe", |e| matches!(e, LookAlike(0x202E))),
            ("Notes/evil./x.md", |e| matches!(e, BadSegment(_))),
            ("Notes/trailing /x.md", |e| matches!(e, BadSegment(_))),
            (&*Box::leak("a".repeat(300).into_boxed_str()), |e| matches!(e, BadSegment(_))),
            (&*Box::leak("a/".repeat(600).into_boxed_str()), |e| *e == TooLong),
        ];
        for (path, expected) in table {
            match norm(path) {
                Ok(ok) => panic!("{path:?} was accepted as {ok:?}"),
                Err(e) => assert!(expected(&e), "{path:?} refused for the wrong reason: {e}"),
            }
        }
    }

    #[test]
    fn notes_get_their_extension() {
        assert_eq!(with_note_extension("Shopping"), "Shopping.md");
        assert_eq!(with_note_extension("Folder.v2/Plan"), "Folder.v2/Plan.md");
        assert_eq!(with_note_extension("image.png"), "image.png");
        assert_eq!(parent("a/b/c.md"), "a/b");
        assert_eq!(parent("c.md"), "");
    }
}
