// The settings the core takes (checked by it), and what the settings tab shows of them: provider
// presets, the connection check, prices.
// One of the declaration files of the values crossing the JS boundary (src/wasm/types/), each
// emitted into pkg/smarthole_agent.d.ts by src/wasm/mod.rs, where they see each other; checked
// against the core's JSON by scripts/contract.mjs.

export interface CoreSettings {
  baseUrl?: string;
  /** The server's wire format: Anthropic Messages or OpenAI Chat Completions. */
  apiFormat?: "anthropic" | "openai";
  /** How the API key is sent: Anthropic's header, a bearer token, or not at all. */
  authStyle?: "x-api-key" | "bearer" | "none";
  model?: string;
  maxTokens?: number;
  apiKey?: string;
  /** The model for titles, summaries, retrospection and scheduled runs; empty: the chat's. */
  backgroundModel?: string;
  /** Its server; empty: the chat's server, format, auth and key. */
  backgroundBaseUrl?: string;
  backgroundApiFormat?: "anthropic" | "openai";
  backgroundAuthStyle?: "x-api-key" | "bearer" | "none";
  /** The background server's own key (the chat's key never goes to another server). */
  backgroundApiKey?: string;
  streaming?: boolean;
  maxIterations?: number;
  streamIdleTimeoutMs?: number;
  responseStartTimeoutMs?: number;
  notificationTitle?: string;
  contextTokenBudget?: number;
  informationArchitecture?: string;
  verboseLogging?: boolean;
  conversationIdleTimeoutMinutes?: number;
  conversationStateTimeoutMinutes?: number;
  /** Keep each conversation as a Markdown note too, added to after each turn. */
  markdownCopies?: boolean;
  /** The vault folder of those notes. */
  markdownCopiesFolder?: string;
  enableConversationRetrospection?: boolean;
  retrospectionPrompt?: string;
  hubEnabled?: boolean;
  hubUrl?: string;
  hubClientName?: string;
  hubDescription?: string;
  /** Folders the note tools may not touch, besides .obsidian, .smarthole, .git and .trash. */
  protectedFolders?: string[];
  /** Tools approved in advance: any of "write_file", "edit_file", "delete_file", "move_file". */
  autoApproveTools?: string[];
  /** Let the agent read, list and search folders linked from outside the vault (never write). */
  followLinkedFolders?: boolean;
  searchIndexMaxMb?: number;
  /** The embedding server for search by meaning; empty: search by words only. */
  embeddingsBaseUrl?: string;
  embeddingsModel?: string;
  embeddingsFormat?: "openai" | "ollama";
  /** Kept in secret storage by the plugin. */
  embeddingsApiKey?: string;
  /** The meaning index's ceiling in MB; 0 turns search by meaning off. */
  meaningIndexMaxMb?: number;
  /** The user's MCP servers (integrations). */
  mcpServers?: McpServerConfig[];
  /** Serve the local agent API (desktop only). */
  agentApiEnabled?: boolean;
  agentApiPort?: number;
  /** From secret storage; never saved in data.json. */
  agentApiToken?: string;
  verificationTimeoutSeconds?: number;
  agentContexts?: AgentContext[];
  /** Prices per model for the estimated cost (defaults: the current Claude models). */
  modelPrices?: ModelPrice[];
  /** The agent behind the chat, the hub and the schedules: the built-in one, or the user's own
   *  coding agent over ACP (desktop only). */
  agent?: "builtin" | "claude-code" | "codex" | "gemini" | "opencode" | "acp";
  /** The command starting the agent: the whole command for "acp", or where a preset's program
   *  is ("CMD ARGS…", split into words, no shell). */
  agentCommand?: string;
  /** Let the agent use its own tools that write files and run commands (each use asks). */
  agentOwnTools?: boolean;
  /** Environment variables never passed to the agent, by name (headless --api-key-env,
   *  --api-token-env). */
  agentEnvHidden?: string[];
}

/** An instruction context of the agent API. */
export interface AgentContext {
  name: string;
  port?: number;
  system: string;
  role: string;
  baseInstruction: string;
  allowedActions: string[];
  verificationRequired: boolean;
}

/** An MCP server: a command (stdio, desktop only) or a URL (Streamable HTTP). */
export interface McpServerConfig {
  name: string;
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  url?: string;
  headers?: Record<string, string>;
}

/** A provider's connection defaults; "custom" (empty base URL) changes nothing. */
export interface ProviderPreset {
  id: string;
  name: string;
  baseUrl: string;
  apiFormat: "anthropic" | "openai";
  authStyle: "x-api-key" | "bearer" | "none";
  note: string;
}

/** An embedding server's defaults (the core's `embedding_presets`): "off" and "custom" have no base URL. */
export interface EmbeddingPreset {
  id: string;
  name: string;
  baseUrl: string;
  format: "openai" | "ollama";
  model: string;
  needsKey: boolean;
  note: string;
}

/** What a meaning index ceiling holds (the core's `meaning_ceiling_covers`). */
export interface CeilingReach {
  passages: number;
  notes: number;
  text: string;
}

/** One choice of the agent setting (the core's `agent_presets`): what the settings say of it. */
export interface AgentPreset {
  id: "builtin" | "claude-code" | "codex" | "gemini" | "opencode" | "acp";
  /** The menu's name ("Claude Code", "Custom ACP command"). */
  name: string;
  /** How the chat names it ("the built-in agent"). */
  label: string;
  /** The program the preset starts, found on the PATH. */
  program?: string;
  args: string[];
  /** How to install the program. */
  install?: string;
  /** The terminal command that signs the agent in. */
  login?: string;
  /** It starts a program: desktop only. */
  desktopOnly: boolean;
}

/** One line of the connection check: what was checked, whether it passed, what to change. */
export interface CheckLine {
  step: string;
  ok: boolean;
  text: string;
  /** A capability the chat works without (images): its failure does not fail the check. */
  optional?: boolean;
}

/** The connection check's report, and the models the server lists. */
export interface ConnectionCheck {
  lines: CheckLine[];
  models: string[];
  ok: boolean;
}

/** A model's price (dollars per million tokens) and context window. */
export interface ModelPrice {
  model: string;
  inputPerMtok: number;
  outputPerMtok: number;
  contextWindow: number;
}
