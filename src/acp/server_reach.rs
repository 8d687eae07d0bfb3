//! Whether the agent process reached the `smarthole` server it was given, and what the chat says
//! when a turn ends without it ever having done so: the agent then had none of the note tools
//! and, with its own write tools off, could change nothing — which must not be silent. Gemini CLI
//! starts MCP servers only in a folder the user trusts (docs/ACP-AGENTS.md), so its notice says
//! how to trust the vault; any other agent gets a generic one. Said once per agent process.

use super::launch::AgentKind;

/// What this agent process did with the server, as the turns saw it.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct ServerReach {
    /// A session of this process was given the server.
    given: bool,
    /// The process called the server (its `initialize`, or any request its token admitted).
    connected: bool,
    /// The user was told it never did.
    told: bool,
}

impl ServerReach {
    /// A new agent process: nothing given, connected or told yet.
    pub(crate) fn new_process(&mut self) {
        *self = ServerReach::default();
    }

    /// A session of this process was given the server (`session/new`, `session/load`).
    pub(crate) fn given(&mut self) {
        self.given = true;
    }

    /// The process reached the server.
    pub(crate) fn connected(&mut self) {
        self.connected = true;
    }

    /// At the end of a turn of `kind` working in `folder`: the notice, when the process was
    /// given the server and never reached it, and only the first time.
    pub(crate) fn notice_at_turn_end(&mut self, kind: AgentKind, folder: &str) -> Option<String> {
        if !self.given || self.connected || self.told {
            return None;
        }
        self.told = true;
        Some(not_connected_notice(kind, folder))
    }
}

/// What the user reads when `kind` never connected to the note tools in `folder`.
pub(crate) fn not_connected_notice(kind: AgentKind, folder: &str) -> String {
    let agent = kind.label();
    match kind {
        AgentKind::Gemini => format!(
            "{agent} did not connect to SmartHole's note tools, so it could not read or change your notes: it \
starts them only in a folder you trust. To trust the vault, open a terminal in {folder}, run gemini and choose \
to trust the folder (or type /permissions there), or add \"{folder}\": \"TRUST_FOLDER\" to \
~/.gemini/trustedFolders.json; then restart Obsidian so {agent} starts again in the trusted vault."
        ),
        _ => format!(
            "{agent} did not connect to SmartHole's note tools, so it could not read or change your notes through \
them. Check that its own settings let it use MCP servers over HTTP (some switch them off or ask you to approve \
each server), then restart Obsidian so {agent} starts again."
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn told_once_only_when_given_and_never_reached() {
        let mut reach = ServerReach::default();
        assert_eq!(reach.notice_at_turn_end(AgentKind::Gemini, "/v"), None, "never given: nothing to say");
        reach.given();
        let notice = reach.notice_at_turn_end(AgentKind::Gemini, "/home/ann/Vault").expect("said");
        assert!(
            notice.contains("trust") && notice.contains("/home/ann/Vault") && notice.contains("trustedFolders.json")
        );
        assert_eq!(reach.notice_at_turn_end(AgentKind::Gemini, "/v"), None, "once per process");
        reach.new_process();
        reach.given();
        reach.connected();
        assert_eq!(reach.notice_at_turn_end(AgentKind::Gemini, "/v"), None, "it connected");
        reach.new_process();
        reach.given();
        let generic = reach.notice_at_turn_end(AgentKind::Opencode, "/v").expect("said");
        assert!(generic.starts_with("opencode did not connect") && !generic.contains("trust"), "{generic}");
    }
}
