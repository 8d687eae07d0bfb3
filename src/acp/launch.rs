//! Which agent runs and how it is started: [`AgentKind`] (the setting), each preset's program
//! and arguments, a user's `agentCommand` split into program and arguments, the clean
//! environment the process gets (PATH, HOME and the prefixes the agent's own documentation
//! names; never a secret of the plugin's), and the terminal command that signs it in.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The agent behind the chat: the built-in one, or the user's own coding agent over ACP.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AgentKind {
    /// The plugin's own agent (any provider).
    #[default]
    Builtin,
    /// Claude Code through its ACP adapter.
    ClaudeCode,
    /// Codex through its ACP adapter.
    Codex,
    /// Gemini CLI (native ACP).
    Gemini,
    /// opencode (native ACP).
    Opencode,
    /// Any ACP agent: the user's `agentCommand`.
    Acp,
}

impl AgentKind {
    /// Every kind, in the settings' order.
    pub const ALL: [AgentKind; 6] = [
        AgentKind::Builtin,
        AgentKind::ClaudeCode,
        AgentKind::Codex,
        AgentKind::Gemini,
        AgentKind::Opencode,
        AgentKind::Acp,
    ];

    /// The setting's value (`claude-code`).
    pub fn name(self) -> &'static str {
        match self {
            AgentKind::Builtin => "builtin",
            AgentKind::ClaudeCode => "claude-code",
            AgentKind::Codex => "codex",
            AgentKind::Gemini => "gemini",
            AgentKind::Opencode => "opencode",
            AgentKind::Acp => "acp",
        }
    }

    /// What the user reads ("Claude Code").
    pub fn label(self) -> &'static str {
        match self {
            AgentKind::Builtin => "the built-in agent",
            AgentKind::ClaudeCode => "Claude Code",
            AgentKind::Codex => "Codex",
            AgentKind::Gemini => "Gemini CLI",
            AgentKind::Opencode => "opencode",
            AgentKind::Acp => "the ACP agent",
        }
    }

    /// The preset's program and arguments (`None` for the built-in agent and a custom command).
    pub(crate) fn preset(self) -> Option<(&'static str, &'static [&'static str])> {
        match self {
            AgentKind::ClaudeCode => Some(("claude-agent-acp", &[])),
            AgentKind::Codex => Some(("codex-acp", &[])),
            AgentKind::Gemini => Some(("gemini", &["--experimental-acp"])),
            AgentKind::Opencode => Some(("opencode", &["acp"])),
            AgentKind::Builtin | AgentKind::Acp => None,
        }
    }

    /// How to install the preset's program, for the error when it is missing.
    pub(crate) fn install_hint(self) -> &'static str {
        match self {
            AgentKind::ClaudeCode => "Install Claude Code's ACP adapter (the npm package @zed-industries/claude-agent-acp, which provides claude-agent-acp)",
            AgentKind::Codex => "Install Codex's ACP adapter (the npm package @zed-industries/codex-acp, which provides codex-acp)",
            AgentKind::Gemini => "Install Gemini CLI (the npm package @google/gemini-cli)",
            AgentKind::Opencode => "Install opencode (the npm package opencode-ai)",
            AgentKind::Builtin | AgentKind::Acp => "Check the agent command in settings",
        }
    }

    /// The terminal command that signs the agent in (the plugin never does it).
    pub(crate) fn login_command(self) -> &'static str {
        match self {
            AgentKind::ClaudeCode => "claude, then /login",
            AgentKind::Codex => "codex login",
            AgentKind::Gemini => "gemini (and choose how to sign in)",
            AgentKind::Opencode => "opencode auth login",
            AgentKind::Builtin | AgentKind::Acp => "the agent's own login command",
        }
    }

    /// The environment variable prefixes the agent's documentation names (its configuration,
    /// its own keys), passed through besides PATH and HOME.
    pub(crate) fn env_prefixes(self) -> &'static [&'static str] {
        match self {
            AgentKind::ClaudeCode => &["ANTHROPIC_", "CLAUDE_", "DISABLE_"],
            AgentKind::Gemini => &["GEMINI_", "GOOGLE_"],
            AgentKind::Opencode => &["OPENCODE_"],
            AgentKind::Codex => &["OPENAI_", "CODEX_"],
            AgentKind::Builtin | AgentKind::Acp => &[],
        }
    }

    /// Whether the agent takes Claude Code's `_meta.claudeCode.options` in `session/new`.
    pub(crate) fn is_claude_code(self) -> bool {
        self == AgentKind::ClaudeCode
    }
}

/// Everything the host needs to start the agent's process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Launch {
    pub command: String,
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
    pub cwd: String,
    /// Files the core writes in its data folder before the start: (path, text).
    pub files: Vec<(String, String)>,
}

/// Variables every agent gets (where the host has them).
const ALWAYS: [&str; 2] = ["PATH", "HOME"];

/// What the launch is made from.
pub(crate) struct LaunchInput<'a> {
    pub kind: AgentKind,
    /// The user's command: the whole command for `acp`, or where a preset's program is.
    pub command: &'a str,
    /// The host's environment (a fact; the core filters it).
    pub environment: &'a BTreeMap<String, String>,
    /// The plugin's secrets' values: a variable holding one is never passed.
    pub secrets: &'a [String],
    /// Variables never passed, by name (the headless `--api-key-env` / `--api-token-env`).
    pub hidden: &'a [String],
    /// The folder the agent works in (the vault).
    pub cwd: &'a str,
}

/// Why an agent cannot be launched from the settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LaunchProblem {
    /// `acp` without a command.
    NoCommand,
    /// A quote left open in the command.
    Unquoted(String),
    /// The agent's configuration variable is not a JSON object (its own tools could not be
    /// switched off).
    BadConfig(&'static str),
}

impl std::fmt::Display for LaunchProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LaunchProblem::NoCommand => f.write_str(
                "the custom ACP agent needs a command: set the agent command in settings (or --agent-command)",
            ),
            LaunchProblem::Unquoted(command) => {
                write!(f, "the agent command {command:?} has a quote that is never closed")
            }
            LaunchProblem::BadConfig(name) => write!(
                f,
                "{name} is not a JSON object, so the agent's own tools that change files could not be switched off: fix or unset {name}"
            ),
        }
    }
}

/// The launch of an agent: its program and arguments, its clean environment, its folder.
pub(crate) fn launch(input: &LaunchInput<'_>) -> Result<Launch, LaunchProblem> {
    let custom = split_command(input.command)?;
    let (command, args) = match (custom.split_first(), input.kind.preset()) {
        (Some((program, args)), _) => (program.clone(), args.to_vec()),
        (None, Some((program, args))) => (program.to_owned(), args.iter().map(|a| (*a).to_owned()).collect()),
        (None, None) => return Err(LaunchProblem::NoCommand),
    };
    Ok(Launch { command, args, env: clean_environment(input), cwd: input.cwd.to_owned(), files: Vec::new() })
}

/// PATH, HOME and the variables with the agent's prefixes; never one named as hidden or
/// holding one of the plugin's secrets.
pub(crate) fn clean_environment(input: &LaunchInput<'_>) -> BTreeMap<String, String> {
    let prefixes = input.kind.env_prefixes();
    let kept = input
        .environment
        .iter()
        .filter(|(name, _)| ALWAYS.contains(&name.as_str()) || prefixes.iter().any(|p| name.starts_with(p)))
        .filter(|(name, _)| !input.hidden.iter().any(|h| h == *name))
        .filter(|(_, value)| !input.secrets.iter().any(|s| holds_secret(value, s)));
    // Inserted one by one: a map collected from an iterator sorts it first (one more stable
    // sort in the wasm, docs/BENCHMARKS.md "Cutting dist/main.js").
    let mut env = BTreeMap::new();
    for (name, value) in kept {
        env.insert(name.clone(), value.clone());
    }
    env
}

/// Whether a variable's value is, or contains, a secret (one under 8 characters only when it is
/// the whole value: short values are too common to match inside others).
fn holds_secret(value: &str, secret: &str) -> bool {
    !secret.is_empty() && (value == secret || (secret.len() >= 8 && value.contains(secret)))
}

/// A command line split into words as a shell would for plain words and quotes ('…', "…", and
/// `\` escaping the next character outside single quotes); no expansion, no pipes: the program
/// is started directly.
pub(crate) fn split_command(command: &str) -> Result<Vec<String>, LaunchProblem> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => words.extend(word.take()),
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => w.push(c),
                        None => return Err(LaunchProblem::Unquoted(command.to_owned())),
                    }
                }
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => w.extend(chars.next()),
                        Some(c) => w.push(c),
                        None => return Err(LaunchProblem::Unquoted(command.to_owned())),
                    }
                }
            }
            '\\' => word.get_or_insert_with(String::new).extend(chars.next()),
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    Ok(words)
}
