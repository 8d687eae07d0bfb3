//! The agent's own tools that change files or run commands, switched off (unless the user lets
//! the agent use them), each agent its own way (docs/ACP-AGENTS.md): Gemini CLI by a policy file
//! passed as `--policy` (it reads no `_meta`, and 0.61 has no `--exclude-tools`), written by the
//! core under `.smarthole/` before the start; opencode by `tools` merged into
//! `OPENCODE_CONFIG_CONTENT`; Codex by its features switched off as `-c` overrides on its
//! command line. (Claude Code's go in `session/new`'s `_meta`: session.rs.)

use serde_json::{Map, Value};

use super::launch::{AgentKind, Launch, LaunchProblem};
use super::mcp_server::SERVER_NAME;

/// Gemini CLI's tools that change files or run commands.
pub(crate) const GEMINI_WRITE_TOOLS: [&str; 3] = ["replace", "write_file", "run_shell_command"];
/// opencode's tools that change files or run commands.
pub(crate) const OPENCODE_WRITE_TOOLS: [&str; 3] = ["bash", "edit", "write"];
/// Gemini CLI's policy file, in the plugin's data folder.
pub(crate) const GEMINI_POLICY_FILE: &str = "gemini-policy.toml";
/// Codex's features that give its model tools running commands or patching files, switched off
/// as `-c` overrides (codex-acp 0.16: `exec_command` and `write_stdin` go with the first two).
pub(crate) const CODEX_OFF_FEATURES: [&str; 3] = ["shell_tool", "unified_exec", "apply_patch_freeform"];
/// The variable opencode reads its configuration from (JSON).
const OPENCODE_CONFIG: &str = "OPENCODE_CONFIG_CONTENT";

/// Gemini CLI's policy: a deny rule for each of its write and shell tools, after a rule allowing
/// the plugin's own `smarthole` server. A deny rule matches an MCP tool of the same name too
/// (the server's `write_file`) and the first matching rule by priority decides, so the server's
/// tools are matched first: `toolName = "*"` with `mcpName` (a rule without `toolName` makes
/// Gemini ignore the whole file). Allowed, not asked: Gemini titles its permission request for
/// an MCP tool with the bare tool name (`read_file`, as its own), so the core could not tell it
/// is ours; our tools ask the user their own way.
pub(crate) fn gemini_policy() -> String {
    let smarthole =
        format!("[[rule]]\nmcpName = \"{SERVER_NAME}\"\ntoolName = \"*\"\ndecision = \"allow\"\npriority = 950\n");
    let denied = GEMINI_WRITE_TOOLS
        .iter()
        .map(|tool| format!("[[rule]]\ntoolName = \"{tool}\"\ndecision = \"deny\"\npriority = 900\n"));
    std::iter::once(smarthole).chain(denied).collect::<Vec<_>>().join("\n")
}

/// Switches the agent's own write and shell tools off in `launch` (the agent working in its
/// folder, the vault, whose data folder is `.smarthole/`); the files to write in the data
/// folder before the start are added to `launch.files`.
pub(crate) fn switch_off(kind: AgentKind, launch: &mut Launch) -> Result<(), LaunchProblem> {
    match kind {
        AgentKind::Gemini => {
            let path = format!("{}/.smarthole/{GEMINI_POLICY_FILE}", launch.cwd.trim_end_matches(['/', '\\']));
            launch.args.extend(["--policy".to_owned(), path]);
            launch.files.push((GEMINI_POLICY_FILE.to_owned(), gemini_policy()));
        }
        AgentKind::Opencode => {
            let config = opencode_config(launch.env.get(OPENCODE_CONFIG).map(String::as_str))?;
            launch.env.insert(OPENCODE_CONFIG.to_owned(), config);
        }
        AgentKind::Codex => {
            for feature in CODEX_OFF_FEATURES {
                launch.args.extend(["-c".to_owned(), format!("features.{feature}=false")]);
            }
        }
        AgentKind::Builtin | AgentKind::ClaudeCode | AgentKind::Acp => {}
    }
    Ok(())
}

/// The user's opencode configuration (if any) with the write and shell tools off.
fn opencode_config(user: Option<&str>) -> Result<String, LaunchProblem> {
    let mut config = match user.map(serde_json::from_str::<Value>) {
        None => Map::new(),
        Some(Ok(Value::Object(config))) => config,
        Some(_) => return Err(LaunchProblem::BadConfig(OPENCODE_CONFIG)),
    };
    let tools = config.entry("tools").or_insert_with(|| Value::Object(Map::new()));
    if !tools.is_object() {
        *tools = Value::Object(Map::new());
    }
    if let Value::Object(tools) = tools {
        for tool in OPENCODE_WRITE_TOOLS {
            tools.insert(tool.to_owned(), Value::Bool(false));
        }
    }
    Ok(Value::Object(config).to_string())
}
