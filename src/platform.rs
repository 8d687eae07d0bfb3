//! What this device lets the plugin offer: the host reports facts (a phone or tablet, whether it
//! can start programs, whether it can listen on a port), the core decides from them which
//! features are available and says why a missing one is missing. The settings and commands draw
//! this answer; the processor keeps the hub off where there is none to reach.

use serde::{Deserialize, Serialize};

/// What the host can do, as it reports it. The default is a computer that can do everything
/// (the headless command, tests).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PlatformFacts {
    /// A phone or tablet (Obsidian's mobile app).
    pub mobile: bool,
    /// Programs can be started (command-line MCP servers).
    pub can_start_programs: bool,
    /// A local server can listen on a port (the agent API).
    pub can_listen: bool,
}

impl Default for PlatformFacts {
    fn default() -> Self {
        PlatformFacts { mobile: false, can_start_programs: true, can_listen: true }
    }
}

/// One feature on this device: available, or why not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Feature {
    pub available: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why_not: Option<String>,
}

impl Feature {
    fn when(available: bool, why_not: &str) -> Self {
        Feature { available, why_not: (!available).then(|| why_not.to_owned()) }
    }
}

/// The features that depend on the device, and the settings' line about those missing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlatformFeatures {
    /// The SmartHole hub: a program on the user's computer.
    pub hub: Feature,
    /// Integrations that run a program (MCP over stdio).
    pub mcp_stdio: Feature,
    /// The local agent API (an HTTP server).
    pub agent_api: Feature,
    /// The user's own coding agent (ACP): a program the plugin starts.
    pub own_agent: Feature,
    /// What the settings say in place of the missing features' sections; none when all are here.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub missing: Option<String>,
}

/// The settings' line when nothing that needs the desktop app is available (a phone).
const DESKTOP_ONLY: &str = "The SmartHole hub, the agent API, integrations that run a program and your own coding agent need the desktop app: this device cannot run a local server or start programs. Chat, notes, schedules and integrations at a URL work here.";

/// Which features this device has, from what the host reports.
pub fn platform_features(facts: PlatformFacts) -> PlatformFeatures {
    let hub = Feature::when(
        !facts.mobile,
        "The SmartHole hub is a program on your computer: a phone or tablet has none to reach.",
    );
    let mcp_stdio = Feature::when(
        facts.can_start_programs,
        "Integrations that run a program need the desktop app: this device cannot start programs.",
    );
    let agent_api = Feature::when(
        facts.can_listen && !facts.mobile,
        "The agent API needs the desktop app: this device cannot run a local server.",
    );
    let own_agent = Feature::when(
        facts.can_start_programs && !facts.mobile,
        "Your own coding agent (Claude Code, Codex, Gemini CLI, opencode) is a program the desktop app starts: this device cannot start programs.",
    );
    let all = [&hub, &mcp_stdio, &agent_api, &own_agent];
    let missing = if all.iter().all(|f| !f.available) {
        Some(DESKTOP_ONLY.to_owned())
    } else {
        let reasons: Vec<&str> = all.iter().filter_map(|f| f.why_not.as_deref()).collect();
        (!reasons.is_empty()).then(|| reasons.join(" "))
    };
    PlatformFeatures { hub, mcp_stdio, agent_api, own_agent, missing }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_computer_has_everything_and_nothing_is_said() {
        let features = platform_features(PlatformFacts::default());
        assert!(features.hub.available && features.mcp_stdio.available && features.agent_api.available);
        assert_eq!(features.missing, None);
    }

    #[test]
    fn a_phone_has_no_hub_no_programs_and_no_listener_and_says_so_once() {
        let phone = PlatformFacts { mobile: true, can_start_programs: false, can_listen: false };
        let features = platform_features(phone);
        assert!(!features.hub.available && !features.mcp_stdio.available && !features.agent_api.available);
        assert!(!features.own_agent.available);
        assert_eq!(features.missing.as_deref(), Some(DESKTOP_ONLY));
    }

    #[test]
    fn a_host_that_cannot_listen_is_told_why_the_agent_api_is_missing() {
        let page = PlatformFacts { mobile: false, can_start_programs: false, can_listen: false };
        let features = platform_features(page);
        assert!(features.hub.available);
        assert_eq!(
            features.missing.as_deref(),
            Some("Integrations that run a program need the desktop app: this device cannot start programs. The agent API needs the desktop app: this device cannot run a local server. Your own coding agent (Claude Code, Codex, Gemini CLI, opencode) is a program the desktop app starts: this device cannot start programs.")
        );
    }
}
