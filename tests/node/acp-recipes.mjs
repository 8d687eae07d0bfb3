// How each real coding agent is started offline for the ACP tests (acp-peers.mjs starts them):
// its pinned program, its arguments, and the environment and files that point it at a scripted
// model server on 127.0.0.1 with its own network traffic off and its own tools that change files
// or run commands switched off — each agent has its own way (docs/ACP-AGENTS.md).
import { execFileSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** The agent's own tools that change files or run commands (Claude Code's names). */
export const CLAUDE_WRITE_TOOLS = ["Edit", "Write", "NotebookEdit", "Bash"];

/** Gemini CLI's tools that change files or run commands. */
export const GEMINI_WRITE_TOOLS = ["replace", "write_file", "run_shell_command"];

/** opencode's tools that change files or run commands. */
export const OPENCODE_WRITE_TOOLS = ["bash", "edit", "write"];

/** Codex's tools that run commands or patch files (its features below switch them off). */
export const CODEX_WRITE_TOOLS = ["exec_command", "write_stdin", "shell", "apply_patch"];

/** Codex's features that give its model those tools, switched off as `-c` overrides. */
export const CODEX_OFF_FEATURES = ["shell_tool", "unified_exec", "apply_patch_freeform"];

/** Where the pinned agent `name` (tests/agents/<name>) is installed. */
export function agentDir(name) {
  return execFileSync(path.join(ROOT, "scripts/ensure-agents.sh"), ["--dir", name], { encoding: "utf8" }).trim();
}

/**
 * The recipe per agent: its program and arguments, and the environment that points it at a
 * scripted model server `modelUrl` with its own traffic off. `home` is a scratch HOME.
 */
export const RECIPES = {
  claude: ({ modelUrl, home }) => ({
    command: path.join(agentDir("claude-agent-acp"), "node_modules/.bin/claude-agent-acp"),
    args: [],
    env: {
      ANTHROPIC_BASE_URL: modelUrl,
      ANTHROPIC_API_KEY: "sk-ant-scripted",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_AUTOUPDATER: "1",
      DISABLE_TELEMETRY: "1",
      DISABLE_ERROR_REPORTING: "1",
    },
    files: {},
    home,
  }),
  gemini: ({ modelUrl, home }) => ({
    command: path.join(agentDir("gemini-cli"), "node_modules/.bin/gemini"),
    // Its own tools that change files or run commands are off by a policy file's deny rules (it
    // reads no session/new _meta, and 0.61 has no --exclude-tools flag).
    args: ["--experimental-acp", "--policy", path.join(home, "smarthole-policy.toml")],
    env: { GEMINI_API_KEY: "scripted-gemini-key", GOOGLE_GEMINI_BASE_URL: modelUrl, GEMINI_CLI_NO_RELAUNCH: "true" },
    files: {
      ".gemini/settings.json": JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" } } }),
      "smarthole-policy.toml": GEMINI_WRITE_TOOLS.map((tool) => `[[rule]]\ntoolName = "${tool}"\ndecision = "deny"\npriority = 900\n`).join("\n"),
    },
    home,
  }),
  opencode: ({ modelUrl, home, cwd }) => ({
    command: path.join(agentDir("opencode"), "node_modules/.bin/opencode"),
    args: ["acp", "--cwd", cwd],
    env: {
      OPENCODE_CONFIG_CONTENT: JSON.stringify({
        $schema: "https://opencode.ai/config.json",
        model: "scripted/scripted-model",
        // Its own tools that change files or run commands, off (it reads no session/new _meta).
        tools: Object.fromEntries(OPENCODE_WRITE_TOOLS.map((tool) => [tool, false])),
        provider: {
          scripted: {
            npm: "@ai-sdk/openai-compatible",
            name: "Scripted",
            options: { baseURL: `${modelUrl}/v1`, apiKey: "scripted-key" },
            models: { "scripted-model": { name: "Scripted model" } },
          },
        },
      }),
      OPENCODE_DISABLE_MODELS_FETCH: "1",
      OPENCODE_DISABLE_AUTOUPDATE: "1",
      OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
      OPENCODE_DISABLE_SHARE: "1",
    },
    files: {},
    home,
  }),
  codex: ({ modelUrl, home }) => ({
    command: path.join(agentDir("codex-acp"), "node_modules/.bin/codex-acp"),
    // Its tools that run commands or patch files off (it reads no session/new _meta).
    args: CODEX_OFF_FEATURES.flatMap((feature) => ["-c", `features.${feature}=false`]),
    env: { OPENAI_API_KEY: "sk-scripted" },
    // A provider of its own pointed at the scripted server (the Responses API: its only wire API);
    // its key from OPENAI_API_KEY, so no login is asked.
    files: {
      ".codex/config.toml": [
        `model = "scripted-model"`,
        `model_provider = "scripted"`,
        `check_for_update_on_startup = false`,
        ``,
        `[model_providers.scripted]`,
        `name = "Scripted"`,
        `base_url = "${modelUrl}/v1"`,
        `env_key = "OPENAI_API_KEY"`,
        `wire_api = "responses"`,
        `request_max_retries = 0`,
        `stream_max_retries = 0`,
        ``,
      ].join("\n"),
    },
    home,
  }),
};
