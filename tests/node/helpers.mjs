// Shared helpers for the end-to-end tests: run the headless command, read a vault's state.
import { historyFileLines } from "../peers/history-lines.mjs";
import { spawn } from "node:child_process";
import net from "node:net";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, existsSync, rmSync, symlinkSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const HEADLESS = path.join(ROOT, "js-shim/dist/headless.js");

/** Folders removed when the process exits: one exit listener for all (a test file makes dozens). */
const leftovers = new Set();
process.on("exit", () => {
  for (const dir of leftovers) rmSync(dir, { recursive: true, force: true });
});

/** A fresh folder named `prefix…`, removed when the process exits. */
export function tmpFolder(prefix) {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  leftovers.add(dir);
  return dir;
}

/** A fresh empty vault folder, removed when the process exits. */
export function tmpVault() {
  return tmpFolder("smarthole-vault-");
}

/** Headless commands still running. */
const live = new Set();
// Under the test runner: once a file's tests are over, a command a failed test left running is
// stopped, so the file ends with its failure reported instead of waiting on the command forever.
// (A script a test starts inherits the runner's environment: only a test file registers this.)
if (process.env.NODE_TEST_CONTEXT && /\.test\.mjs$/.test(process.argv[1] ?? "")) {
  const { after } = await import("node:test");
  after(() => {
    for (const child of live) child.kill("SIGKILL");
  });
}

/** Starts the headless command; returns the child with collected output. */
export function startHeadless(args, { env = {}, stdin = "ignore" } = {}) {
  const child = spawn(process.execPath, [HEADLESS, ...args], {
    env: { ...process.env, ANTHROPIC_API_KEY: "", ...env },
    stdio: [stdin, "pipe", "pipe"],
  });
  live.add(child);
  child.on("close", () => live.delete(child));
  child.stdoutText = "";
  child.stderrText = "";
  child.stdout.setEncoding("utf8").on("data", (d) => (child.stdoutText += d));
  child.stderr.setEncoding("utf8").on("data", (d) => (child.stderrText += d));
  child.done = new Promise((resolve) => child.on("close", (code, signal) => resolve({ code, signal })));
  return child;
}

/** Runs the headless command to its end. */
export async function runHeadless(args, options) {
  const child = startHeadless(args, options);
  const { code, signal } = await child.done;
  return { code, signal, stdout: child.stdoutText, stderr: child.stderrText };
}

/** `--once` run: the parsed ProcessResult plus the raw output. */
export async function once(vault, baseUrl, text, extra = [], options = {}) {
  const run = await runHeadless(["--vault", vault, "--llm-base-url", baseUrl, "--model", "scripted", "--once", text, ...extra], options);
  const last = run.stdout.trim().split("\n").pop();
  let result = null;
  try {
    result = JSON.parse(last);
  } catch {
    /* the caller asserts on the raw run */
  }
  return { ...run, result };
}

/**
 * Every history line of the vault, in the order of the index. Tests call it while a host runs: a
 * line being appended can be half in the file (a write across a page boundary shows page by
 * page), so a text not ending in a newline ends with a line that is not there yet, left for the
 * next look. allHistory() reads strictly: it is for a stopped host, where a cut line is a defect.
 */
export function history(vault) {
  const dir = path.join(vault, ".smarthole/conversations");
  const indexPath = path.join(dir, "index.json");
  if (!existsSync(indexPath)) return [];
  const index = JSON.parse(readFileSync(indexPath, "utf8"));
  return index.conversations.flatMap((c) => {
    const file = path.join(dir, `${c.id}.jsonl`);
    if (!existsSync(file)) return [];
    const text = readFileSync(file, "utf8");
    return historyFileLines(text.slice(0, text.lastIndexOf("\n") + 1));
  });
}

/** Every history line of every conversation file, archived conversations included (any order). */
export function allHistory(vault) {
  const dir = path.join(vault, ".smarthole/conversations");
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".jsonl") && f !== "archive.jsonl")
    .flatMap((f) => historyFileLines(readFileSync(path.join(dir, f), "utf8")));
}

/**
 * Files in the inbox but its ready slots (empty files kept for the next messages: no message).
 * A running host renames a slot into a message between this listing and its look at the slot's
 * size: a slot gone by then holds no message, the file it became is in the next listing.
 */
export function inbox(vault) {
  const dir = path.join(vault, ".smarthole/inbox");
  if (!existsSync(dir)) return [];
  const isReadySlot = (n) => n.endsWith(".slot") && (statSync(path.join(dir, n), { throwIfNoEntry: false })?.size ?? 0) === 0;
  return readdirSync(dir).filter((n) => !isReadySlot(n));
}

/** How many turns of history answer this message text. */
export function timesRecorded(vault, text) {
  return history(vault).filter((l) => l.role === "user" && l.id.endsWith("#0") && l.content[0]?.text === text).length;
}

/** Resolves when `predicate(child)` holds, polling. */
/**
 * A typed message through the plugin's runtime, as the chat view sends it (one call), and its
 * result, which arrives as its `response` event (`core_restarted` when the core traps first).
 */
export function sendTyped(runtime, text) {
  return runtime.resultOf(runtime.processor.send(text).id);
}

export async function waitFor(predicate, timeoutMs = 10_000, what = "condition") {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A TCP port nothing listens on right now. */
export function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** The tool results a scripted model server was sent since its request `from`, by tool_use id
 * (without the prompt-cache mark the newest block carries). */
export function toolResults(server, from) {
  const out = {};
  for (const r of server.requests.slice(from)) {
    for (const m of r.body?.messages ?? []) {
      for (const { cache_control: _mark, ...b } of Array.isArray(m.content) ? m.content : []) {
        if (b.type === "tool_result") out[b.tool_use_id] = b;
      }
    }
  }
  return out;
}

/**
 * dist/main.js installed in a fresh folder beside the stub `obsidian` module and CodeMirror 6 (as
 * Obsidian gives a plugin the real ones), removed when the process exits. Returns its loader:
 * `load()` gives the plugin class and the stub module, main.js evaluated at the first call (after
 * a test has put in place the window and timers it watches).
 */
export function installedPlugin() {
  const dir = tmpFolder("smarthole-plugin-");
  mkdirSync(path.join(dir, "node_modules"));
  cpSync(path.join(ROOT, "tests/node/obsidian-stub"), path.join(dir, "node_modules/obsidian"), { recursive: true });
  // The project's own copies (linked: their dependencies resolve beside them).
  symlinkSync(path.join(ROOT, "node_modules/@codemirror"), path.join(dir, "node_modules/@codemirror"), "dir");
  cpSync(path.join(ROOT, "dist/main.js"), path.join(dir, "main.js"));
  const require = createRequire(path.join(dir, "main.js"));
  return () => ({ Plugin: require("./main.js").default, obsidian: require("obsidian") });
}
