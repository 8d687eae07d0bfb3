// The headless command's options: its usage text, the command line read and checked, and the
// core's settings built from it (see headless.ts for what the command does).
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import type { ApprovalDecision, CoreSettings, McpServerConfig, RoutedMessage } from "smarthole-core";

export const USAGE = `usage: node js-shim/dist/headless.js --vault DIR [options]
  --vault DIR            the vault folder (its .smarthole/ holds inbox and history)
  --llm-base-url URL     the model server's base URL (default: Anthropic)
  --format FORMAT        its wire format: anthropic (Messages API, default) or openai (Chat Completions)
  --auth STYLE           how the API key is sent: x-api-key (default), bearer, or none
  --check                check the model server (reachable, key, model, streaming, tools, images) and the
                         embedding server if one is given (reachable, dimension, speed), print the
                         report line by line, exit 1 if a line failed (images: "no" is not a failure)
  --model NAME           model name
  --background-model NAME  the model for titles, summaries, retrospection and scheduled runs
                         (default: --model)
  --background-base-url URL  its own server (default: the chat's server, format, auth and key);
                         with --background-format, --background-auth and --background-key-env VAR
  --embeddings-base-url URL  search by meaning with this embedding server (for example the offline one:
                         scripts/local-model.sh embeddings-start prints its URL); with --embeddings-model
                         NAME, --embeddings-format openai|ollama (default openai) and
                         --embeddings-api-key-env VAR (the variable holding its key, if it wants one)
  --api-key-env VAR      name of the environment variable holding the API key (default ANTHROPIC_API_KEY;
                         not read by default with --agent: that variable is the agent's own)
  --agent NAME           the agent that answers: builtin (default), claude-code, codex, gemini, opencode,
                         or acp (any ACP agent: --agent-command). It is started as a program with a
                         clean environment (never this command's own key or token variables)
  --agent-command "CMD ARGS…"  the command for --agent acp, or where a preset's program is
  --max-tokens N         max tokens per answer
  --no-stream            wait for whole answers instead of streaming
  --once TEXT            process one typed message, print its result as JSON, exit
  --once-json JSON       the same with a whole RoutedMessage (for example one from the hub)
  --attach PATH          attach a note, folder, image or PDF of the vault (a vault path) to the --once
                         message or the first one typed; repeatable. In the chat, /attach PATH attaches
                         to the next message
  --hub URL              connect to the SmartHole hub (for example ws://127.0.0.1:9473)
  --hub-name NAME        the client name to register with the hub (default obsidian)
  --approvals MODE       answer to approval requests (the agent overwriting, deleting or moving a note;
                         an external agent's verification): reject (default), approve, or ask (printed
                         as [approval ID], a note's change as a diff; answer with /approve ID,
                         /approve ID 1,3 (those hunks), /approve-session ID or /reject ID; /undo
                         reverts the last turn that changed notes; /set KEY VALUE changes a setting
                         while running, VALUE as JSON or else as text, e.g. /set hubDescription My notes)
  --mcp-config FILE      the MCP servers (integrations) to connect: JSON {"mcpServers": [{"name", "command",
                         "args", "env"} or {"name", "url", "headers"}]}
  --api-port N           serve the local agent API on 127.0.0.1:N (see docs/agent-api.md)
  --api-token-env VAR    the environment variable holding its bearer token (default SMARTHOLE_API_TOKEN;
                         at least 32 characters, for example the output of: openssl rand -hex 32)
  --api-config FILE      its contexts and verification timeout: JSON {"agentContexts": [...],
                         "verificationTimeoutSeconds": N}
  --follow-linked-folders  let the agent read, list and search folders linked into the vault from
                         outside it (symbolic links; never written). Off: they are skipped
  --stats-ms N           every N ms, print [stats] {"t", "rss", "heapUsed", "wasm"} (bytes) to stderr
  --verbose              log the core's debug lines to stderr`;

/** A mistake on the command line: printed with the usage, exit code 2. */
export class UsageError extends Error {}

function parse() {
  try {
    return parseArgs({
    options: {
      vault: { type: "string" },
      "llm-base-url": { type: "string" },
      format: { type: "string" },
      auth: { type: "string" },
      check: { type: "boolean", default: false },
      model: { type: "string" },
      "background-model": { type: "string" },
      "background-base-url": { type: "string" },
      "background-format": { type: "string" },
      "background-auth": { type: "string" },
      "background-key-env": { type: "string" },
      "api-key-env": { type: "string" },
      "embeddings-base-url": { type: "string" },
      "embeddings-model": { type: "string" },
      "embeddings-format": { type: "string" },
      "embeddings-api-key-env": { type: "string" },
      agent: { type: "string" },
      "agent-command": { type: "string" },
      "max-tokens": { type: "string" },
      "no-stream": { type: "boolean", default: false },
      once: { type: "string" },
      "once-json": { type: "string" },
      attach: { type: "string", multiple: true, default: [] },
      hub: { type: "string" },
      "hub-name": { type: "string" },
      approvals: { type: "string", default: "reject" },
      "mcp-config": { type: "string" },
      "api-port": { type: "string" },
      "api-token-env": { type: "string" },
      "api-config": { type: "string" },
      "stats-ms": { type: "string" },
      "follow-linked-folders": { type: "boolean", default: false },
      verbose: { type: "boolean", default: false },
      help: { type: "boolean", default: false },
      },
      strict: true,
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** The command line, checked: the vault, the core's settings, and how to run. */
export function readOptions() {
  const { values } = parse();
  if (values.help) {
    process.stdout.write(USAGE + "\n");
    process.exit(0);
  }
  if (!values.vault) throw new UsageError("--vault DIR is required");
  const vault = path.resolve(values.vault);
  if (!existsSync(vault) || !statSync(vault).isDirectory()) throw new UsageError(`the vault folder ${vault} does not exist`);
  const keyVar = values["api-key-env"] ?? "ANTHROPIC_API_KEY";
  // With the user's own agent, ANTHROPIC_API_KEY is that agent's (its login stays its own).
  const ownAgent = values.agent !== undefined && values.agent !== "builtin";
  const apiKey = ownAgent && values["api-key-env"] === undefined ? undefined : process.env[keyVar];
  if (values["api-key-env"] && apiKey === undefined) {
    throw new UsageError(`the environment variable ${keyVar} (named by --api-key-env) is not set`);
  }
  const settings: CoreSettings = { apiKey: apiKey ?? "", streaming: !values["no-stream"], hubEnabled: values.hub !== undefined };
  if (values.hub !== undefined) settings.hubUrl = values.hub;
  if (values["hub-name"] !== undefined) settings.hubClientName = values["hub-name"];
  if (values["llm-base-url"]) settings.baseUrl = values["llm-base-url"];
  // Checked by the core, which names the accepted values.
  if (values.format !== undefined) settings.apiFormat = values.format as CoreSettings["apiFormat"];
  if (values.auth !== undefined) settings.authStyle = values.auth as CoreSettings["authStyle"];
  if (values["follow-linked-folders"]) settings.followLinkedFolders = true;
  if (values.model) settings.model = values.model;
  if (values["background-model"] !== undefined) settings.backgroundModel = values["background-model"];
  if (values["background-base-url"] !== undefined) settings.backgroundBaseUrl = values["background-base-url"];
  if (values["background-format"] !== undefined) settings.backgroundApiFormat = values["background-format"] as CoreSettings["apiFormat"];
  if (values["background-auth"] !== undefined) settings.backgroundAuthStyle = values["background-auth"] as CoreSettings["authStyle"];
  const backgroundKeyVar = values["background-key-env"];
  if (backgroundKeyVar !== undefined) {
    const key = process.env[backgroundKeyVar];
    if (key === undefined) throw new UsageError(`the environment variable ${backgroundKeyVar} (named by --background-key-env) is not set`);
    settings.backgroundApiKey = key;
  }
  const embeddingsKeyVar = embeddingsOptions(values, settings);
  // Checked by the core, which names the accepted values.
  if (values.agent !== undefined) settings.agent = values.agent as CoreSettings["agent"];
  if (values["agent-command"] !== undefined) settings.agentCommand = values["agent-command"];
  // The variables holding this command's own secrets never reach an agent, whatever they hold.
  settings.agentEnvHidden = [values["api-key-env"], backgroundKeyVar, embeddingsKeyVar, values["api-port"] === undefined ? undefined : (values["api-token-env"] ?? "SMARTHOLE_API_TOKEN")].filter((name): name is string => name !== undefined);
  if (values["max-tokens"] !== undefined) {
    const n = Number(values["max-tokens"]);
    if (!Number.isInteger(n)) throw new UsageError(`--max-tokens must be a whole number (got ${values["max-tokens"]})`);
    settings.maxTokens = n;
  }
  // The files as written: their field names are checked by the core once it is loaded.
  const configs: ConfigFile[] = [];
  if (values["mcp-config"] !== undefined) {
    const raw = readJson("--mcp-config", values["mcp-config"]);
    const servers = (raw as { mcpServers?: unknown })?.mcpServers;
    const problem = Array.isArray(servers) ? undefined : `--mcp-config ${values["mcp-config"]}: expected {"mcpServers": [...]}`;
    configs.push({ flag: "--mcp-config", document: "mcpConfig", value: raw, problem });
    if (Array.isArray(servers)) settings.mcpServers = servers as McpServerConfig[];
  }
  if (values["api-port"] !== undefined) {
    const port = Number(values["api-port"]);
    if (!Number.isInteger(port)) throw new UsageError(`--api-port must be a port number (got ${values["api-port"]})`);
    const tokenVar = values["api-token-env"] ?? "SMARTHOLE_API_TOKEN";
    const token = process.env[tokenVar];
    if (!token) throw new UsageError(`--api-port needs a token in the environment variable ${tokenVar} (for example: export ${tokenVar}=$(openssl rand -hex 32))`);
    Object.assign(settings, { agentApiEnabled: true, agentApiPort: port, agentApiToken: token });
  }
  if (values["api-config"] !== undefined) {
    const raw = readJson("--api-config", values["api-config"]);
    configs.push({ flag: "--api-config", document: "apiConfig", value: raw });
    if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
      throw new UsageError(`--api-config ${values["api-config"]}: expected {"agentContexts": [...], "verificationTimeoutSeconds": N}`);
    }
    const config = raw as Pick<CoreSettings, "agentContexts" | "verificationTimeoutSeconds">;
    if (config.agentContexts !== undefined) settings.agentContexts = config.agentContexts;
    if (config.verificationTimeoutSeconds !== undefined) settings.verificationTimeoutSeconds = config.verificationTimeoutSeconds;
  }
  if (!["reject", "approve", "ask"].includes(values.approvals)) {
    throw new UsageError(`--approvals must be reject, approve or ask (got ${values.approvals})`);
  }
  // --once TEXT gets its id from the core once it is loaded.
  let once: { text: string } | { message: RoutedMessage } | undefined;
  if (values.once !== undefined) {
    once = { text: values.once };
  } else if (values["once-json"] !== undefined) {
    try {
      once = { message: JSON.parse(values["once-json"]) as RoutedMessage };
    } catch (error) {
      throw new UsageError(`--once-json is not JSON: ${(error as Error).message}`);
    }
  }
  const approvals: ApprovalDecision | "ask" = values.approvals === "ask" ? "ask" : values.approvals === "approve" ? "approve_once" : "reject";
  const serving = values.hub !== undefined || values["api-port"] !== undefined;
  const statsMs = values["stats-ms"] === undefined ? 0 : Number(values["stats-ms"]);
  if (!Number.isInteger(statsMs) || statsMs < 0) throw new UsageError(`--stats-ms must be a whole number of milliseconds (got ${values["stats-ms"]})`);
  if (values.attach.length > 0 && values["once-json"] !== undefined) throw new UsageError("--attach goes with --once or the chat, not --once-json");
  return { vault, settings, once, attach: values.attach, check: values.check, serving, verbose: values.verbose, approvals, statsMs, configs };
}

/** The embedding server's flags into `settings`; gives the name of the variable holding its key. */
function embeddingsOptions(values: ReturnType<typeof parse>["values"], settings: CoreSettings): string | undefined {
  const base = values["embeddings-base-url"];
  if (base !== undefined) {
    if (!/^https?:\/\/\S+$/.test(base.trim())) throw new UsageError(`--embeddings-base-url must be an http:// or https:// URL (got ${base})`);
    settings.embeddingsBaseUrl = base.trim();
  }
  if (values["embeddings-model"] !== undefined) settings.embeddingsModel = values["embeddings-model"];
  const format = values["embeddings-format"];
  if (format !== undefined) {
    if (format !== "openai" && format !== "ollama") throw new UsageError(`--embeddings-format must be openai or ollama (got ${format})`);
    settings.embeddingsFormat = format;
  }
  const keyVar = values["embeddings-api-key-env"];
  if (keyVar !== undefined) {
    const key = process.env[keyVar];
    if (key === undefined) throw new UsageError(`the environment variable ${keyVar} (named by --embeddings-api-key-env) is not set`);
    settings.embeddingsApiKey = key;
  }
  const given = ["embeddings-model", "embeddings-format", "embeddings-api-key-env"].filter((flag) => values[flag as keyof typeof values] !== undefined);
  if (base === undefined && given.length > 0) throw new UsageError(`--${given[0]} needs --embeddings-base-url (the embedding server)`);
  return keyVar;
}

/** A settings file given on the command line, as read. */
interface ConfigFile {
  flag: "--api-config" | "--mcp-config";
  document: "apiConfig" | "mcpConfig";
  value: unknown;
  /** Its shape is wrong: said after its unknown fields, which are the likelier cause. */
  problem?: string;
}

/**
 * Refuses a config file with a field its reader would ignore (a misspelling such as
 * `allowed_actions` would otherwise leave the default in place without a word): the core names
 * each one, with the spelling probably meant.
 */
export function checkConfigFields(options: { configs: ConfigFile[] }, unknownFields: (value: unknown, document: ConfigFile["document"], source: string) => { message: string }[]): void {
  const unknown = options.configs.flatMap((config) => unknownFields(config.value, config.document, config.flag).map((u) => u.message));
  const problems = unknown.length > 0 ? unknown : options.configs.flatMap((config) => config.problem ?? []);
  if (problems.length > 0) throw new UsageError(problems.join("\n"));
}

function readJson(flag: string, file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new UsageError(`${flag} ${file}: ${(error as Error).message}`);
  }
}

/** What readOptions gives. */
export type HeadlessOptions = ReturnType<typeof readOptions>;
