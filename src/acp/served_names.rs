//! The names the `smarthole` server serves its tools under, per agent. Every agent gets the
//! built-in tools' names (the contract: Claude Code sees `mcp__smarthole__write_file`); an agent
//! that hides one of them also gets it under a name of its own, mapped back to the same tool
//! (the same review-first card, journal and effects). Gemini CLI hides an MCP tool whose bare
//! name is one of its own excluded tools (`ToolRegistry.isActiveTool`), and its own `write_file`
//! is switched off (`own_tools.rs`): without [`GEMINI_WRITE_FILE`] it could not create notes.

use super::launch::AgentKind;
use crate::llm::ToolDef;

/// `write_file` as Gemini CLI's model is offered it (`mcp_smarthole_write_note`).
pub(crate) const GEMINI_WRITE_FILE: &str = "write_note";

/// Each second name: the agent it is served to, the name, the built-in tool it stands for.
const SECOND_NAMES: [(AgentKind, &str, &str); 1] = [(AgentKind::Gemini, GEMINI_WRITE_FILE, "write_file")];

/// The definitions served to `kind`: `built_in` (the served tools by their own names), then a
/// copy of each one under the agent's second name for it, if it has one.
pub(crate) fn served_definitions(kind: AgentKind, built_in: Vec<ToolDef>) -> Vec<ToolDef> {
    let second: Vec<ToolDef> = SECOND_NAMES
        .iter()
        .filter(|(agent, _, _)| *agent == kind)
        .filter_map(|(_, name, tool)| {
            let def = built_in.iter().find(|d| d.name == *tool)?;
            Some(ToolDef { name: (*name).to_owned(), ..def.clone() })
        })
        .collect();
    built_in.into_iter().chain(second).collect()
}

/// The built-in tool a name served to `kind` stands for (the name itself when it is not a
/// second name of that agent's).
pub(crate) fn built_in_name(kind: AgentKind, name: &str) -> &str {
    SECOND_NAMES.iter().find(|(agent, second, _)| *agent == kind && *second == name).map_or(name, |(_, _, tool)| tool)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn defs() -> Vec<ToolDef> {
        ["read_file", "write_file"]
            .into_iter()
            .map(|name| ToolDef {
                name: name.into(),
                description: format!("{name}!"),
                input_schema: json!({"n": name}),
            })
            .collect()
    }

    #[test]
    fn gemini_also_gets_write_file_as_write_note_and_the_others_only_the_built_in_names() {
        let gemini = served_definitions(AgentKind::Gemini, defs());
        let names: Vec<&str> = gemini.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["read_file", "write_file", "write_note"]);
        assert_eq!(gemini[2].description, "write_file!");
        assert_eq!(gemini[2].input_schema, json!({"n": "write_file"}));
        assert_eq!(built_in_name(AgentKind::Gemini, "write_note"), "write_file");
        assert_eq!(built_in_name(AgentKind::Gemini, "read_file"), "read_file");
        for kind in [AgentKind::ClaudeCode, AgentKind::Codex, AgentKind::Opencode, AgentKind::Acp] {
            assert_eq!(served_definitions(kind, defs()), defs());
            assert_eq!(built_in_name(kind, "write_note"), "write_note", "not a name of {kind:?}'s");
        }
    }
}
