//! The agents the settings offer, as the core knows them: the menu's name, the program a preset
//! starts (and its arguments), how to install it, the terminal command that signs it in, and
//! whether it needs the desktop app. The settings tab draws this list (as it draws the provider
//! presets), so what it says is what `launch.rs` does.

use serde::Serialize;

use super::launch::AgentKind;

/// One choice of the agent setting.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentPreset {
    /// The setting's value (`claude-code`).
    pub id: &'static str,
    /// The menu's name ("Claude Code", "Custom ACP command").
    pub name: &'static str,
    /// How the chat names it ("Claude Code", "the built-in agent").
    pub label: &'static str,
    /// The program the preset starts, found on the PATH (none: built-in, or the user's command).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub program: Option<&'static str>,
    /// The arguments the preset passes its program.
    pub args: Vec<&'static str>,
    /// How to install the program (none for the built-in agent).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub install: Option<&'static str>,
    /// The terminal command that signs the agent in (the plugin never does).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub login: Option<&'static str>,
    /// It starts a program: only the desktop app can.
    pub desktop_only: bool,
}

/// Every choice of the agent setting, in the settings' order.
pub fn agent_presets() -> Vec<AgentPreset> {
    AgentKind::ALL
        .into_iter()
        .map(|kind| {
            let builtin = kind == AgentKind::Builtin;
            let (program, args) = kind.preset().map_or((None, Vec::new()), |(p, a)| (Some(p), a.to_vec()));
            AgentPreset {
                id: kind.name(),
                name: match kind {
                    AgentKind::Builtin => "Built-in",
                    AgentKind::Acp => "Custom ACP command",
                    other => other.label(),
                },
                label: kind.label(),
                program,
                args,
                install: (!builtin).then(|| kind.install_hint()),
                login: (!builtin).then(|| kind.login_command()),
                desktop_only: !builtin,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_is_offered_once_in_order_and_only_the_built_in_one_works_everywhere() {
        let presets = agent_presets();
        let ids: Vec<&str> = presets.iter().map(|p| p.id).collect();
        assert_eq!(ids, ["builtin", "claude-code", "codex", "gemini", "opencode", "acp"]);
        let everywhere: Vec<&str> = presets.iter().filter(|p| !p.desktop_only).map(|p| p.id).collect();
        assert_eq!(everywhere, ["builtin"]);
    }
}
