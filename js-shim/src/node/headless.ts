// The headless host: the plugin's core over a vault folder, from the command line.
//
//   node js-shim/dist/headless.js --vault DIR [--llm-base-url URL] [--model NAME]
//        [--api-key-env VAR] [--max-tokens N] [--no-stream] [--once TEXT | --once-json JSON]
//        [--hub URL] [--hub-name NAME] [--approvals reject|approve|ask] [--mcp-config FILE]
//        [--api-port N] [--api-token-env VAR] [--api-config FILE] [--verbose]
//
// --once: finish what a previous run left in the inbox, process one message, print its
// ProcessResult as JSON on stdout, exit (0 on success). Without --once: a chat on the terminal
// (or over a pipe, one message per line), answers streamed as they arrive; Ctrl-C stops the
// answer in progress, and exits when idle. With --hub it also takes the messages the SmartHole
// hub routes here, and keeps running after its input ends until SIGTERM or SIGINT; so it does with
// --api-port, which serves the local agent API on 127.0.0.1. There is no approval card here:
// --approvals says how approval requests (the agent's, and external agents' verifications) are
// answered: rejected unless told otherwise, so nothing is overwritten, deleted or moved by a run
// nobody watches; approved; or asked on the terminal, answered with /approve ID,
// /approve-session ID or /reject ID.
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import type { ApprovalDecision, CoreEvent, CoreSettings, McpServerConfig, MessageProcessor, ProcessResult, RoutedMessage } from "smarthole-core";
import { loadCore, wasmMemoryBytes } from "../core/load.ts";
import { NodeHost, type LogLevel } from "./node-host.ts";
import { AgentApiServer } from "../core/agent-api-server.ts";

const USAGE = `usage: node js-shim/dist/headless.js --vault DIR [options]
  --vault DIR            the vault folder (its .smarthole/ holds inbox and history)
  --llm-base-url URL     Messages API base URL (default: Anthropic)
  --model NAME           model name
  --api-key-env VAR      name of the environment variable holding the API key (default ANTHROPIC_API_KEY)
  --max-tokens N         max tokens per answer
  --no-stream            wait for whole answers instead of streaming
  --once TEXT            process one typed message, print its result as JSON, exit
  --once-json JSON       the same with a whole RoutedMessage (for example one from the hub)
  --hub URL              connect to the SmartHole hub (for example ws://127.0.0.1:9473)
  --hub-name NAME        the client name to register with the hub (default obsidian)
  --approvals MODE       answer to approval requests (the agent overwriting, deleting or moving a note;
                         an external agent's verification): reject (default), approve, or ask (printed
                         as [approval ID]; answer with /approve ID, /approve-session ID or /reject ID)
  --mcp-config FILE      the MCP servers (integrations) to connect: JSON {"mcpServers": [{"name", "command",
                         "args", "env"} or {"name", "url", "headers"}]}
  --api-port N           serve the local agent API on 127.0.0.1:N (see docs/agent-api.md)
  --api-token-env VAR    the environment variable holding its bearer token (default SMARTHOLE_API_TOKEN;
                         at least 32 characters, for example the output of: openssl rand -hex 32)
  --api-config FILE      its contexts and verification timeout: JSON {"agentContexts": [...],
                         "verificationTimeoutSeconds": N}
  --stats-ms N           every N ms, print [stats] {"t", "rss", "heapUsed", "wasm"} (bytes) to stderr
  --verbose              log the core's debug lines to stderr`;

class UsageError extends Error {}

function parse() {
  try {
    return parseArgs({
    options: {
      vault: { type: "string" },
      "llm-base-url": { type: "string" },
      model: { type: "string" },
      "api-key-env": { type: "string" },
      "max-tokens": { type: "string" },
      "no-stream": { type: "boolean", default: false },
      once: { type: "string" },
      "once-json": { type: "string" },
      hub: { type: "string" },
      "hub-name": { type: "string" },
      approvals: { type: "string", default: "reject" },
      "mcp-config": { type: "string" },
      "api-port": { type: "string" },
      "api-token-env": { type: "string" },
      "api-config": { type: "string" },
      "stats-ms": { type: "string" },
      verbose: { type: "boolean", default: false },
      help: { type: "boolean", default: false },
      },
      strict: true,
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function readOptions() {
  const { values } = parse();
  if (values.help) {
    process.stdout.write(USAGE + "\n");
    process.exit(0);
  }
  if (!values.vault) throw new UsageError("--vault DIR is required");
  const vault = path.resolve(values.vault);
  if (!existsSync(vault) || !statSync(vault).isDirectory()) throw new UsageError(`the vault folder ${vault} does not exist`);
  const keyVar = values["api-key-env"] ?? "ANTHROPIC_API_KEY";
  const apiKey = process.env[keyVar];
  if (values["api-key-env"] && apiKey === undefined) {
    throw new UsageError(`the environment variable ${keyVar} (named by --api-key-env) is not set`);
  }
  const settings: CoreSettings = { apiKey: apiKey ?? "", streaming: !values["no-stream"], hubEnabled: values.hub !== undefined };
  if (values.hub !== undefined) settings.hubUrl = values.hub;
  if (values["hub-name"] !== undefined) settings.hubClientName = values["hub-name"];
  if (values["llm-base-url"]) settings.baseUrl = values["llm-base-url"];
  if (values.model) settings.model = values.model;
  if (values["max-tokens"] !== undefined) {
    const n = Number(values["max-tokens"]);
    if (!Number.isInteger(n)) throw new UsageError(`--max-tokens must be a whole number (got ${values["max-tokens"]})`);
    settings.maxTokens = n;
  }
  if (values["mcp-config"] !== undefined) {
    const servers = (readJson("--mcp-config", values["mcp-config"]) as { mcpServers?: unknown })?.mcpServers;
    if (!Array.isArray(servers)) throw new UsageError(`--mcp-config ${values["mcp-config"]}: expected {"mcpServers": [...]}`);
    settings.mcpServers = servers as McpServerConfig[];
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
    const config = readJson("--api-config", values["api-config"]) as Pick<CoreSettings, "agentContexts" | "verificationTimeoutSeconds">;
    if (config.agentContexts !== undefined) settings.agentContexts = config.agentContexts;
    if (config.verificationTimeoutSeconds !== undefined) settings.verificationTimeoutSeconds = config.verificationTimeoutSeconds;
  }
  if (!["reject", "approve", "ask"].includes(values.approvals)) {
    throw new UsageError(`--approvals must be reject, approve or ask (got ${values.approvals})`);
  }
  let once: RoutedMessage | undefined;
  if (values.once !== undefined) {
    once = { id: NodeHost.newMessageId(), text: values.once, timestamp: new Date().toISOString(), source: "direct" };
  } else if (values["once-json"] !== undefined) {
    try {
      once = JSON.parse(values["once-json"]) as RoutedMessage;
    } catch (error) {
      throw new UsageError(`--once-json is not JSON: ${(error as Error).message}`);
    }
  }
  const approvals: ApprovalDecision | "ask" = values.approvals === "ask" ? "ask" : values.approvals === "approve" ? "approve_once" : "reject";
  const serving = values.hub !== undefined || values["api-port"] !== undefined;
  const statsMs = values["stats-ms"] === undefined ? 0 : Number(values["stats-ms"]);
  if (!Number.isInteger(statsMs) || statsMs < 0) throw new UsageError(`--stats-ms must be a whole number of milliseconds (got ${values["stats-ms"]})`);
  return { vault, settings, once, serving, verbose: values.verbose, approvals, statsMs };
}

function readJson(flag: string, file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new UsageError(`${flag} ${file}: ${(error as Error).message}`);
  }
}

const DECISIONS: Record<string, ApprovalDecision> = { approve: "approve_once", "approve-session": "approve_conversation", reject: "reject" };

/**
 * Test hook for the crash tests: SMARTHOLE_TEST_KILL_AT=<stage or event type>[@<message id>]
 * kills this process (SIGKILL) the moment the core reports that point, as a crash would.
 */
function crashHook(): ((event: CoreEvent) => void) | undefined {
  const spec = process.env.SMARTHOLE_TEST_KILL_AT;
  if (!spec) return undefined;
  const [point, messageId] = spec.split("@");
  return (event) => {
    const here = (event.type === "stage" && event.stage === point) || event.type === point;
    const forMessage = !messageId || ("messageId" in event && event.messageId === messageId);
    if (here && forMessage) process.kill(process.pid, "SIGKILL");
  };
}

async function main(): Promise<number> {
  const options = readOptions();
  const core = await loadCore();
  const { MessageProcessor } = core;
  const kill = crashHook();
  const interactive = options.once === undefined;
  const streamTo: NodeJS.WriteStream = interactive ? process.stdout : process.stderr;
  /** Messages whose answer was streamed (so it is not printed again). */
  const streamed = new Set<string>();
  const host = new NodeHost(path.join(options.vault, ".smarthole"), {
    onEvent: (event) => {
      kill?.(event);
      switch (event.type) {
        case "text_delta":
          streamTo.write(event.text);
          streamed.add(event.messageId);
          break;
        case "retrying":
          process.stderr.write(`\n[${event.error} Retrying in ${Math.round(event.delayMs / 1000)} s…]\n`);
          break;
        case "tool_started":
          process.stderr.write(`\n[tool ${event.name}]\n`);
          break;
        case "agent_message":
          streamTo.write(`\n${event.isQuestion ? "? " : "» "}${event.content}\n`);
          break;
        case "notice":
          process.stderr.write(`\n[${event.level}] ${event.text}\n`);
          break;
        case "hub_status":
          process.stderr.write(`[hub ${event.status}${event.detail ? `: ${event.detail}` : ""}]\n`);
          break;
        case "scheduled_run":
          process.stderr.write(`\n[${event.ok ? "scheduled run" : "scheduled run failed"}] ${event.text}\n`);
          break;
        case "approval_requested": {
          const { id, summary } = event.request;
          const decision = options.approvals;
          if (decision === "ask") {
            process.stderr.write(`\n[approval ${id}] ${summary} — answer /approve ${id}, /approve-session ${id} or /reject ${id}\n`);
            break;
          }
          process.stderr.write(`\n[approval: ${summary} → ${decision === "reject" ? "rejected" : "approved"} (--approvals)]\n`);
          // Not from inside the core's emit: answer once the current call has returned.
          setTimeout(() => void processor.decideApproval(id, decision).catch(() => undefined), 0);
          break;
        }
        case "approval_resolved":
          if (options.approvals === "ask") process.stderr.write(`[approval ${event.request.id}: ${event.request.status}${event.request.note ? ` (${event.request.note})` : ""}]\n`);
          break;
      }
    },
    onLog: (level: LogLevel, message: string) => {
      if (options.verbose || level === "warn" || level === "error") process.stderr.write(`[${level}] ${message}\n`);
    },
  });
  const processor: MessageProcessor = new MessageProcessor(host, options.settings);
  // The core accepted the settings: connect the integrations they list.
  host.mcp.configure(options.settings.mcpServers ?? []);
  host.hub.events = {
    opened: (socket) => processor.hubOpened(socket),
    frame: (socket, text) => processor.hubFrame(socket, text),
    closed: (socket, why) => processor.hubClosed(socket, why),
  };
  const api = new AgentApiServer((r) => processor.handleApiRequest(r), core.agentApiBodyLimit(), () => import("node:http"), (m) =>
    process.stderr.write(`[${m}]\n`),
  );
  const closeAll = () => {
    host.hub.closeAll();
    host.mcp.closeAll();
    api.close();
  };
  const shutdown = (code: number) => {
    processor.dispose();
    closeAll();
    process.exit(code);
  };
  process.on("SIGTERM", () => shutdown(0));
  if (options.statsMs > 0) {
    const started = Date.now();
    const stats = () => {
      const { rss, heapUsed } = process.memoryUsage();
      process.stderr.write(`[stats] ${JSON.stringify({ t: Date.now() - started, rss, heapUsed, wasm: wasmMemoryBytes(core) })}\n`);
    };
    stats();
    setInterval(stats, options.statsMs).unref();
  }
  await processor.initialize();
  const pending = await processor.reprocessPending();
  if (pending.results.length > 0 || pending.movedToFailed.length > 0) {
    process.stderr.write(`[finished ${pending.results.length} message(s) left by an earlier run]\n`);
  }
  const failedListeners = (await api.configure(processor.agentApiListeners())).filter((l) => !l.listening);
  if (failedListeners.length > 0) {
    closeAll();
    throw new Error(failedListeners.map((l) => l.error).join("; "));
  }

  if (!interactive) {
    const result = await processor.process(options.once!);
    if (streamed.has(result.messageId)) process.stderr.write("\n");
    process.stdout.write(JSON.stringify(result) + "\n");
    closeAll();
    return result.success ? 0 : 1;
  }

  const tty = process.stdin.isTTY === true;
  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: tty });
  const busy = () => processor.currentMessageId !== undefined;
  const prompt = () => tty && rl.prompt();
  rl.setPrompt("you> ");
  rl.on("SIGINT", () => {
    if (busy() && processor.cancelCurrentProcessing()) return;
    rl.close();
  });
  process.on("SIGINT", () => {
    if (busy() && processor.cancelCurrentProcessing()) return;
    shutdown(130);
  });
  if (tty) process.stdout.write("SmartHole Agent — type a message; Ctrl-C stops an answer, Ctrl-C again quits.\n");
  prompt();
  let failures = 0;
  const print = (result: ProcessResult) => {
    if (result.cancelled) process.stdout.write("\n[stopped]\n");
    else if (!result.success) {
      failures++;
      process.stdout.write(`\n[error] ${result.error}\n`);
    } else if (!streamed.has(result.messageId) && result.response) process.stdout.write(result.response);
    if (result.notice) process.stdout.write(`\n[${result.notice}]`);
    process.stdout.write("\n");
    prompt();
  };
  // Messages are not awaited here, so an /approve line can answer the approval a message waits on;
  // the core runs them in order, and their results print in that order.
  let printed: Promise<void> = Promise.resolve();
  for await (const line of rl) {
    const text = line.trim();
    if (text === "/quit" || text === "/exit") break;
    const command = /^\/(approve|approve-session|reject)\s+(\S+)$/.exec(text);
    if (command) {
      processor.decideApproval(command[2], DECISIONS[command[1]]).then(
        (request) => process.stderr.write(`[${request.id}: ${request.status}]\n`),
        (error: unknown) => process.stderr.write(`[error] ${error instanceof Error ? error.message : String(error)}\n`),
      );
      continue;
    }
    if (!text) {
      prompt();
      continue;
    }
    const result = processor.process({ id: NodeHost.newMessageId(), text, timestamp: new Date().toISOString(), source: "direct" });
    printed = printed.then(() => result.then(print));
  }
  await printed;
  if (options.serving) {
    // Serving the hub or the agent API: keep running until SIGTERM / SIGINT.
    await new Promise<never>(() => {});
  }
  closeAll();
  return failures > 0 && !tty ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError) {
      process.stderr.write(`error: ${error.message}\n${USAGE}\n`);
      process.exit(2);
    }
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
