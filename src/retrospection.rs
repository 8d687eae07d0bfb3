//! Retrospection (seed 003): after a conversation ends, a tool-less prompt (to the built-in
//! model's provider, or to the user's own agent in a side session: `summary::BackgroundWriter`)
//! reflects on it, and the result goes first in `.smarthole/retrospection.md` as a dated section.

use crate::llm::LlmError;
use crate::settings::Settings;
use crate::summary::BackgroundWriter;

/// Where retrospections are kept, newest first.
pub(crate) const RETROSPECTION_PATH: &str = "retrospection.md";
const HEADING: &str = "# Conversation retrospection\n\n";
/// The retrospection call's instructions (tests recognise the call by them).
pub(crate) const INSTRUCTIONS: &str =
    "You review a finished conversation between a user and the assistant that works on \
their notes, to help the assistant do better next time.";

/// The file with a new section first (after the heading), older sections after it.
pub(crate) fn prepend_section(existing: &str, when_iso: &str, title: &str, content: &str) -> String {
    let when = when_iso.get(..16).unwrap_or(when_iso).replace('T', " ");
    let section = format!("## {when} UTC — {title}\n\n{}\n\n", content.trim());
    let older = existing.strip_prefix(HEADING).unwrap_or(existing);
    format!("{HEADING}{section}{older}")
}

/// Asks for a reflection on a transcript with the user's retrospection prompt.
pub(crate) async fn reflect(
    writer: &impl BackgroundWriter,
    settings: &Settings,
    transcript: &str,
) -> Result<String, LlmError> {
    let prompt = format!("{}\n\nThe conversation:\n\n{transcript}", settings.retrospection_prompt.trim());
    writer.text(crate::usage::CallPurpose::Retrospection, 800, INSTRUCTIONS, prompt).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newest_section_goes_first_under_the_heading() {
        let one = prepend_section("", "2026-02-05T10:00:00.000Z", "Milk", "- went well");
        let two = prepend_section(&one, "2026-02-06T11:30:00.000Z", "Shed", "- could be faster\n");
        assert_eq!(
            two,
            "# Conversation retrospection\n\n## 2026-02-06 11:30 UTC — Shed\n\n- could be faster\n\n## 2026-02-05 10:00 UTC — Milk\n\n- went well\n\n"
        );
    }
}
