// The headless host: the plugin's core over a vault folder, from the command line.
//
//   node js-shim/dist/headless.js --vault DIR [--llm-base-url URL] [--model NAME]
//        [--api-key-env VAR] [--max-tokens N] [--no-stream] [--once TEXT | --once-json JSON]
//        [--hub URL] [--hub-name NAME] [--approvals reject|approve|ask] [--mcp-config FILE]
//        [--api-port N] [--api-token-env VAR] [--api-config FILE] [--verbose]
//
// --check: the connection check's report, line by line; exit 1 if a line failed.
// --once: finish what a previous run left in the inbox, process one message, print its
// ProcessResult as JSON on stdout, exit (0 on success). Without --once: a chat on the terminal
// (or over a pipe, one message per line), answers streamed as they arrive; Ctrl-C stops the
// answer in progress, and exits when idle. With --hub it also takes the messages the SmartHole
// hub routes here, and keeps running after its input ends until SIGTERM or SIGINT; so it does with
// --api-port, which serves the local agent API on 127.0.0.1. There is no approval card here:
// --approvals says how approval requests (the agent's, and external agents' verifications) are
// answered: rejected unless told otherwise, so nothing is overwritten, deleted or moved by a run
// nobody watches; approved; or asked on the terminal, answered with /approve ID,
// /approve-session ID or /reject ID; a proposed change to a note prints as a unified diff and
// /approve ID 1,3 accepts only those hunks. /undo reverts the newest turn of the conversation whose changes still stand (also after a restart), once the messages typed before it are answered and saved.
// /set KEY VALUE changes a setting while running (VALUE as JSON, else as text).
import path from "node:path";
import { createInterface } from "node:readline";
import type { ApprovalDecision, Attachment, CoreEvent, CoreSettings, RoutedMessage } from "smarthole-core";
import { wasmMemoryBytes, type Core } from "../core/load.ts";
import { CoreRuntime, type CoreCalls } from "../core/runtime.ts";
import { nodePlatform } from "./node-host.ts";
import { checkConfigFields, readOptions, UsageError, USAGE, type HeadlessOptions } from "./headless-options.ts";
import { EventPrinter } from "./headless-printer.ts";
import { terminalSafe, terminalSafeJson } from "./terminal-text.ts";

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

/** Every N ms, the process's and the core's memory on stderr (--stats-ms). */
function printStats(core: Core, everyMs: number): void {
  const started = Date.now();
  const stats = () => {
    const { rss, heapUsed } = process.memoryUsage();
    process.stderr.write(`[stats] ${JSON.stringify({ t: Date.now() - started, rss, heapUsed, wasm: wasmMemoryBytes(core) })}\n`);
  };
  stats();
  setInterval(stats, everyMs).unref();
}

/**
 * The core over the vault's .smarthole/, started as the plugin starts it (core/runtime.ts): its
 * links wired, the vault watched, what an earlier run left finished, the agent API listening.
 * Settings change with /set (`settings.current`). A trap is not recovered from here: the
 * process stops, as it would without the runtime.
 */
async function start(options: HeadlessOptions, printer: EventPrinter, settings: { current: CoreSettings }) {
  const kill = crashHook();
  const platform = nodePlatform(path.join(options.vault, ".smarthole"), { log: (level, message) => printer.log(level, message) });
  const runtime = new CoreRuntime({
    ...platform,
    settings: () => settings.current,
    onEvent: (event) => {
      kill?.(event);
      printer.event(event);
    },
    log: (level, message) => printer.log(level, message),
    apiLog: (message) => process.stderr.write(`[${terminalSafe(message)}]\n`),
    rebuildOnTrap: false,
  });
  // Closed when the process exits (exitFlushed); until then the core's background work after a
  // result (its journal removed, a title) goes on.
  finish = () => runtime.dispose();
  const core = await runtime.load();
  checkConfigFields(options, (value, document, source) => runtime.processor.unknownSettingsFields(value, document, source));
  const shutdown = (code: number) => {
    // Stopped now (the answer in flight with it), not after the flush.
    runtime.dispose();
    exitFlushed(code);
  };
  process.on("SIGTERM", () => shutdown(0));
  if (options.statsMs > 0) printStats(core, options.statsMs);
  const started = await runtime.start();
  if (!started) throw new Error("stopped while starting");
  const { pending, listeners } = started;
  if (pending.results.length > 0 || pending.movedToFailed.length > 0) {
    process.stderr.write(`[finished ${pending.results.length} message(s) left by an earlier run]\n`);
  }
  const failedListeners = listeners.filter((l) => !l.listening);
  if (failedListeners.length > 0) throw new Error(failedListeners.map((l) => l.error).join("; "));
  return { runtime, shutdown };
}

/**
 * Attaches vault paths for a message; a path that cannot be attached is said on stderr and the
 * message is not sent (undefined).
 */
async function attachAll(processor: CoreCalls, paths: string[]): Promise<Attachment[] | undefined> {
  const attached: Attachment[] = [];
  for (const p of paths) {
    try {
      attached.push(await processor.attachVault(p));
    } catch (error) {
      process.stderr.write(`[attach] ${terminalSafe(error instanceof Error ? error.message : String(error))}; nothing was sent\n`);
      return undefined;
    }
  }
  return attached;
}

/** --once: one message (typed, with its attachments; or a whole RoutedMessage), its result as
 * JSON on stdout; the exit code says whether it succeeded. */
async function runOnce(runtime: CoreRuntime, printer: EventPrinter, once: { text: string; attachments: Attachment[] } | { message: RoutedMessage }): Promise<number> {
  const processor = runtime.processor;
  const result = "message" in once ? await processor.process(once.message) : await runtime.resultOf(processor.send(once.text, once.attachments).id);
  if (printer.streamed.has(result.messageId)) process.stderr.write("\n");
  process.stdout.write(terminalSafeJson(JSON.stringify(result)) + "\n");
  return result.success ? 0 : 1;
}

/** The chat on the terminal (or over a pipe): resolves with how many messages failed, at the end of input. */
async function runChat(runtime: CoreRuntime, printer: EventPrinter, shutdown: (code: number) => void, settings: { current: CoreSettings }, attach: string[]): Promise<number> {
  const processor = runtime.processor;
  // Vault paths for the next message (--attach, then /attach PATH).
  let toAttach = [...attach];
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
  // Messages are not awaited here, so an /approve line can answer the approval a message waits on;
  // the core runs them in order, and their results print in that order.
  let printed: Promise<void> = Promise.resolve();
  for await (const line of rl) {
    const text = line.trim();
    if (text === "/quit" || text === "/exit") break;
    if (text === "/undo") {
      // The newest turn is the one typed last: once it is recorded (its answer may already show,
      // streamed, while it is being saved).
      printed
        .then(() => processor.lastUndoableTurn())
        .then(async (last) => {
          if (last === null) process.stderr.write("[undo: no change to a note is left to undo]\n");
          else await processor.undoTurn(last);
        })
        .catch((error: unknown) => process.stderr.write(`[error] ${terminalSafe(String(error))}\n`));
      continue;
    }
    const set = /^\/set\s+([A-Za-z]+)\s?(.*)$/.exec(line);
    if (set) {
      // A setting changed while running (as the settings tab does): JSON values, else text.
      let value: unknown = set[2];
      try {
        value = JSON.parse(set[2]);
      } catch {
        // plain text
      }
      try {
        const before = settings.current;
        settings.current = { ...before, [set[1]]: value };
        try {
          runtime.updateSettings();
        } catch (error) {
          settings.current = before;
          throw error;
        }
      } catch (error) {
        process.stderr.write(`[error] ${terminalSafe(error instanceof Error ? error.message : String(error))}\n`);
      }
      continue;
    }
    const command = /^\/(approve|approve-session|reject)\s+(\S+)(?:\s+(\d+(?:\s*,\s*\d+)*))?$/.exec(text);
    if (command) {
      const hunks = command[3]?.split(",").map((n) => Number(n.trim()));
      processor.decideApproval(command[2], DECISIONS[command[1]], hunks).then(
        (request) => process.stderr.write(`[${terminalSafe(request.id)}: ${request.status}]\n`),
        (error: unknown) => process.stderr.write(`[error] ${terminalSafe(error instanceof Error ? error.message : String(error))}\n`),
      );
      continue;
    }
    const attachLine = /^\/attach\s+(.+)$/.exec(text);
    if (attachLine) {
      toAttach.push(attachLine[1].trim());
      continue;
    }
    if (!text) {
      prompt();
      continue;
    }
    const paths = toAttach;
    toAttach = [];
    const attachments = await attachAll(processor, paths);
    if (attachments === undefined) {
      failures++;
      prompt();
      continue;
    }
    const result = runtime.resultOf(processor.send(text, attachments).id);
    printed = printed.then(() =>
      result.then((r) => {
        if (printer.result(r)) failures++;
        prompt();
      }),
    );
  }
  await printed;
  return tty ? 0 : failures;
}

async function main(): Promise<number> {
  const options = readOptions();
  const printer = new EventPrinter({
    interactive: options.once === undefined,
    approvals: options.approvals,
    verbose: options.verbose,
    decide: (id, decision) => runtime.processor.decideApproval(id, decision),
  });
  const settings = { current: options.settings };
  const { runtime, shutdown } = await start(options, printer, settings);
  const processor = runtime.processor;
  // Ctrl-C outside the chat (which has its own): stopped as by SIGTERM, so the agent's
  // processes (in their own process groups, out of the terminal's reach) end with this one.
  if (options.check || options.once !== undefined) process.on("SIGINT", () => shutdown(130));
  if (options.check) {
    const report = await processor.checkConnection();
    for (const line of report.lines) process.stdout.write(`${line.ok ? "ok  " : line.optional ? "no  " : "FAIL"} ${line.step}: ${terminalSafe(line.text)}\n`);
    if (report.models.length > 0) process.stdout.write(`models: ${terminalSafe(report.models.join(", "))}\n`);
    return report.ok ? 0 : 1;
  }
  if (options.once !== undefined) {
    const attachments = await attachAll(processor, options.attach);
    if (attachments === undefined) return 2;
    return runOnce(runtime, printer, "message" in options.once ? options.once : { text: options.once.text, attachments });
  }
  const failures = await runChat(runtime, printer, shutdown, settings, options.attach);
  if (options.serving) {
    // Serving the hub or the agent API: keep running until SIGTERM / SIGINT.
    await new Promise<never>(() => {});
  }
  return failures > 0 ? 1 : 0;
}

/** What stops the core and its links (hub sockets, MCP servers' processes, listeners) at exit. */
let finish: (() => void) | null = null;

/** Exits once stdout and stderr have taken everything written to them: a pipe takes a long
 * result (a 4 MB answer) in pieces, and exiting at once would cut it. */
function exitFlushed(code: number): void {
  let waiting = 2;
  const done = () => {
    if (--waiting > 0) return;
    finish?.();
    process.exit(code);
  };
  process.stdout.write("", done);
  process.stderr.write("", done);
}

main().then(
  (code) => exitFlushed(code),
  (error: unknown) => {
    if (error instanceof UsageError) {
      process.stderr.write(`error: ${terminalSafe(error.message, true)}\n${USAGE}\n`);
      exitFlushed(2);
      return;
    }
    process.stderr.write(`error: ${terminalSafe(error instanceof Error ? error.message : String(error), true)}\n`);
    exitFlushed(1);
  },
);
