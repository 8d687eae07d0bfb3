//! Conversations as Markdown notes (issue 19): the user's own copy of a chat, searchable, linkable
//! and synced like the rest of the vault. The JSONL history stays the source of truth; the copy
//! is only ever added to. Each message ends with an Obsidian block id made from its line id
//! (`^smh-…`), so a message can be linked to, and the copy itself says which messages it already
//! holds: what to add next is read from the note, not from state kept beside it, so a crash
//! between writing the note and recording anything else never doubles a message, and a note the
//! user edited or emptied is continued, never rewritten.

use sha2::{Digest, Sha256};

use super::line::{HistoryLine, LineRole};
use super::model::Conversation;
use crate::llm::ContentBlock;
use crate::message::MessageSource;
use crate::vault::path::{protected_folders, PathError};
use crate::vault::real::{locate, Access};
use crate::vault::VaultEntry;

/// The default folder of the copies.
pub(crate) const DEFAULT_FOLDER: &str = "Chats";
/// Longest title kept in a copy's file name.
const NAME_TITLE_CHARS: usize = 60;

/// The block id that ends a message's copy.
pub(crate) fn marker(line_id: &str) -> String {
    let digest = Sha256::digest(line_id.as_bytes());
    let hex: String = digest.iter().take(6).map(|b| format!("{b:02x}")).collect();
    format!("^smh-{hex}")
}

/// Where a conversation's copy goes: `<folder>/<date> <title> (<id end>).md`. The title is the
/// conversation's at the first copy; the path is then kept with the conversation.
pub(crate) fn note_path(folder: &str, conversation: &Conversation) -> String {
    let date = conversation.created_at.get(..10).unwrap_or("undated");
    let title = conversation.title.as_deref().map(file_name_part).filter(|t| !t.is_empty());
    let id_end: String = {
        let chars: Vec<char> = conversation.id.chars().filter(char::is_ascii_alphanumeric).collect();
        chars[chars.len().saturating_sub(6)..].iter().collect()
    };
    let name = match title {
        Some(title) => format!("{date} {title} ({id_end})"),
        None => format!("{date} Conversation ({id_end})"),
    };
    let folder = folder.trim().trim_matches('/');
    if folder.is_empty() {
        format!("{name}.md")
    } else {
        format!("{folder}/{name}.md")
    }
}

/// Where the copy at `path`, in the copies folder `folder` (both normalised), is really written,
/// by the tools' rules for real locations (`vault::real`, from the listing): a link on the
/// folder's way is followed and the host given the real path, but the copy itself must be a
/// regular file of that folder or not exist yet. A link there would carry the transcript into
/// whatever it points to; a folder, a special file, anything outside the vault or in a folder kept
/// for the app (`config_folder`, the host's configuration folder, among them) is refused too. The
/// error says why, for a warning; nothing is written then.
pub(crate) fn real_copy_path(
    path: &str,
    folder: &str,
    all: &[VaultEntry],
    config_folder: &str,
) -> Result<String, String> {
    let kept = protected_folders(config_folder, &[]);
    let refused = |e: PathError| format!("{e}; nothing was written");
    let real_folder = if folder.is_empty() {
        String::new()
    } else {
        locate(folder, all, &kept, Access::Write, false).map_err(refused)?
    };
    let real = locate(path, all, &kept, Access::Write, false).map_err(refused)?;
    let name = path.rsplit('/').next().unwrap_or(path);
    let expected = if real_folder.is_empty() { name.to_owned() } else { format!("{real_folder}/{name}") };
    let entry = all.iter().find(|e| e.path == real);
    if real != expected || entry.is_some_and(VaultEntry::is_unusual) {
        return Err(format!(
            "{path} is a link (to {real}), and a copy is written only to a regular file in the copies folder, so \
nothing was written; remove the link, or choose another folder for the copies"
        ));
    }
    if entry.is_some_and(|e| e.is_folder) {
        return Err(format!("{path} is a folder; nothing was written"));
    }
    Ok(real)
}

/// A title made safe for a file name on every platform Obsidian runs on, and for links.
fn file_name_part(title: &str) -> String {
    let cleaned: String =
        title.chars().map(|c| if c.is_control() || "\\/:*?\"<>|#^[]".contains(c) { ' ' } else { c }).collect();
    let words = cleaned.split_whitespace().collect::<Vec<_>>().join(" ");
    let short: String = words.chars().take(NAME_TITLE_CHARS).collect();
    short.trim_end_matches(['.', ' ']).to_owned()
}

/// The top of a new copy: the title, when it started, and what the note is.
pub(crate) fn header(conversation: &Conversation) -> String {
    let title = conversation.title.as_deref().unwrap_or("Conversation");
    format!(
        "# {title}\n\nStarted {}. A copy of SmartHole Agent conversation `{}`, added to as it goes on; \
the agent keeps its own record, so editing this note changes nothing there.\n\n",
        readable_time(&conversation.created_at),
        conversation.id
    )
}

/// `2026-11-24T14:05:09.123Z` as `2026-11-24 14:05 UTC`; anything else as it is.
fn readable_time(iso: &str) -> String {
    match (iso.get(..10), iso.get(11..16)) {
        (Some(date), Some(time)) if iso.ends_with('Z') => format!("{date} {time} UTC"),
        _ => iso.to_owned(),
    }
}

/// Who wrote a line, as the copy names them.
fn author(line: &HistoryLine) -> &'static str {
    match (line.role, line.source) {
        (LineRole::Assistant, _) => "Agent",
        (_, MessageSource::Websocket) => "You, through SmartHole",
        (_, MessageSource::Worker) => "Scheduled run",
        (_, MessageSource::Api) => "An agent, over the agent API",
        _ => "You",
    }
}

/// One message as Markdown, or `None` for what the copy leaves out (hidden and system lines,
/// tool results, which the agent's own message sums up).
pub(crate) fn render_line(line: &HistoryLine) -> Option<String> {
    if !line.visible || line.role == LineRole::System {
        return None;
    }
    let mut text = Vec::new();
    let mut tools = Vec::new();
    for block in &line.content {
        match block {
            ContentBlock::Text { text: t } if !t.trim().is_empty() => text.push(t.trim().to_owned()),
            ContentBlock::ToolUse { name, .. } => tools.push(format!("`{name}`")),
            _ => {}
        }
    }
    if text.is_empty() && tools.is_empty() {
        return None;
    }
    let mut out = format!("### {} · {}\n\n", author(line), readable_time(&line.ts));
    if !text.is_empty() {
        out.push_str(&text.join("\n\n"));
        out.push_str("\n\n");
    }
    if !tools.is_empty() {
        out.push_str(&format!("*Used {}.*\n\n", tools.join(", ")));
    }
    out.push_str(&marker(&line.id));
    out.push_str("\n\n");
    Some(out)
}

/// What to add to a copy whose text is `existing` (`None`: no copy yet) so that it holds every
/// message of `lines` (the newest part of the history, oldest first) exactly once: the messages
/// after the newest one the note already holds. `None` when `lines` does not reach back to a
/// message the note holds (the caller reads the whole history), or when nothing is missing.
pub(crate) fn missing(existing: &str, lines: &[HistoryLine], whole_history: bool) -> Missing {
    let rendered: Vec<(&HistoryLine, String)> = lines.iter().filter_map(|l| render_line(l).map(|r| (l, r))).collect();
    let held = rendered.iter().rposition(|(line, _)| existing.contains(&marker(&line.id)));
    let from = match held {
        Some(at) => at + 1,
        None if whole_history => 0,
        None => return Missing::ReadFurther,
    };
    let text: String = rendered[from..].iter().map(|(_, r)| r.as_str()).collect();
    if text.is_empty() {
        Missing::Nothing
    } else {
        Missing::Text(text)
    }
}

/// What a copy lacks.
#[derive(Debug, PartialEq)]
pub(crate) enum Missing {
    /// Up to date.
    Nothing,
    /// These messages, to be added at the end.
    Text(String),
    /// The lines given do not reach what the note holds: look at the whole history.
    ReadFurther,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn line(id: &str, role: LineRole, source: MessageSource, content: Vec<ContentBlock>) -> HistoryLine {
        HistoryLine {
            id: id.into(),
            message_id: id.split('#').next().unwrap_or(id).into(),
            role,
            content,
            source,
            visible: true,
            ts: "2026-11-24T14:05:09.000Z".into(),
            turn: None,
            context: None,
        }
    }

    fn text(t: &str) -> Vec<ContentBlock> {
        vec![ContentBlock::Text { text: t.into() }]
    }

    #[test]
    fn messages_are_headed_by_who_and_when_and_tool_calls_summed_up() {
        let voice = line("m1#0", LineRole::User, MessageSource::Websocket, text("add milk to the list"));
        let answer = line(
            "m1#1",
            LineRole::Assistant,
            MessageSource::Websocket,
            vec![
                ContentBlock::Text { text: "Adding it.".into() },
                ContentBlock::ToolUse { id: "t".into(), name: "edit_file".into(), input: json!({}) },
            ],
        );
        let result = line(
            "m1#2",
            LineRole::User,
            MessageSource::Websocket,
            vec![ContentBlock::ToolResult { tool_use_id: "t".into(), content: "ok".into(), is_error: false }],
        );
        assert_eq!(
            render_line(&voice).unwrap(),
            format!(
                "### You, through SmartHole · 2026-11-24 14:05 UTC\n\nadd milk to the list\n\n{}\n\n",
                marker("m1#0")
            )
        );
        assert!(render_line(&answer).unwrap().contains("Adding it.\n\n*Used `edit_file`.*\n\n^smh-"));
        assert_eq!(render_line(&result), None, "tool results are summed up by the agent's message");
        let mut hidden = line("m2#0", LineRole::User, MessageSource::Direct, text("x"));
        hidden.visible = false;
        assert_eq!(render_line(&hidden), None);
        assert!(marker("m1#0").starts_with("^smh-") && marker("m1#0").len() == 17 && marker("m1#0") != marker("m1#1"));
    }

    #[test]
    fn only_what_the_note_lacks_is_added_whatever_the_user_did_to_it() {
        let lines: Vec<HistoryLine> = (0..4)
            .map(|i| line(&format!("m{i}#0"), LineRole::User, MessageSource::Direct, text(&format!("message {i}"))))
            .collect();
        let all: String = lines.iter().filter_map(render_line).collect();
        assert_eq!(missing("", &lines, true), Missing::Text(all.clone()), "a new copy gets everything");
        let first_two: String = lines[..2].iter().filter_map(render_line).collect();
        let rest: String = lines[2..].iter().filter_map(render_line).collect();
        // The user added their own notes below: still only the two missing messages.
        let edited = format!("# Title\n\n{first_two}My own thoughts.\n");
        assert_eq!(missing(&edited, &lines, false), Missing::Text(rest.clone()));
        assert_eq!(missing(&format!("{first_two}{rest}"), &lines, false), Missing::Nothing);
        // The newest page does not reach what the note holds: look further.
        assert_eq!(missing(&first_two, &lines[3..], false), Missing::ReadFurther);
        // A copy cut off in the middle of a message (a crash): that message again, whole.
        let torn = format!("{first_two}{}", &rest[..20]);
        assert_eq!(missing(&torn, &lines, false), Missing::Text(rest));
    }

    #[test]
    fn file_names_are_safe_and_keep_the_date_title_and_id() {
        let mut c = Conversation::new("conv-20261124-ab12cd".into(), "2026-11-24T14:05:00.000Z".into());
        assert_eq!(note_path("Chats/", &c), "Chats/2026-11-24 Conversation (ab12cd).md");
        c.title = Some("What is #1: a/b \"test\"?".into());
        assert_eq!(note_path("Chats", &c), "Chats/2026-11-24 What is 1 a b test (ab12cd).md");
        c.title = Some("x".repeat(200));
        assert_eq!(note_path("", &c).chars().count(), "2026-11-24  (ab12cd).md".len() + NAME_TITLE_CHARS);
        assert!(header(&c).starts_with("# xxx"));
    }
}
