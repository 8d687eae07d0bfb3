// Plugin load → ready (the Send button's condition), for dist/main.js itself: in a fresh Node
// process per run (cold, as at Obsidian's start), with the stub `obsidian` module over a real
// vault folder — the desktop app's path: main.js parsed, onload, layout ready, the core inflated,
// compiled, initialised and the inbox checked.
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { harness, persisted, vault as searchVault } from "./search.mjs";
import { writeHistory } from "./fixtures.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** A vault with `bench/search.mjs`'s 10,000 notes and their search index built and written by the
 * core (what a restart of the plugin finds), `history` messages stored beside them. */
export async function indexedVault(history) {
  const { loadCore, nodeHost } = await import(path.join(ROOT, "js-shim/dist/node.js"));
  const notes = searchVault(10_000);
  const dir = mkdtempSync(path.join(tmpdir(), "smarthole-load-indexed-"));
  for (const name of readdirSync(notes).filter((n) => n.startsWith("folder-"))) {
    cpSync(path.join(notes, name), path.join(dir, name), { recursive: true });
  }
  const dataDir = path.join(dir, ".smarthole");
  const built = await harness(await loadCore(), nodeHost, dir, {}, dataDir);
  built.processor.startSearchIndex();
  await built.indexReady;
  await persisted(dataDir);
  await built.close();
  writeHistory(dataDir, { messages: history, perConversation: 100 });
  return dir;
}

const CHILD = `
// Obsidian has CodeMirror loaded before any plugin: main.js only takes it.
require("@codemirror/state");
require("@codemirror/view");
// Obsidian's window has fetch, Request and Response built in; Node loads them (undici) on first
// touch, about 25 ms, which the wasm-bindgen glue's typeof checks would otherwise pay in the clock.
void [fetch, Request, Response];
const start = performance.now();
globalThis.window = { addEventListener() {}, removeEventListener() {}, fetch: (...a) => fetch(...a) };
globalThis.activeWindow = globalThis.window;
globalThis.WebSocket = class { constructor() { this.readyState = 0; } addEventListener() {} close() {} send() {} };
const Plugin = require("./main.js").default;
const required = performance.now();
const { __test } = require("obsidian");
const app = __test.createApp(process.argv[2], { data: { hubEnabled: false } });
const plugin = new Plugin(app, { id: "smarthole-agent" });
plugin.onload().then(() => {
  app.__layoutReady();
  const poll = () => {
    if (plugin.runtime.ready) {
      if (process.env.MARKS) console.error(JSON.stringify(performance.getEntriesByType("mark").map((m) => [m.name, Math.round(m.startTime - start)])), "required", Math.round(required - start));
      process.stdout.write(String(performance.now() - start));
      plugin.onunload();
      process.exit(0);
    }
    setTimeout(poll, 1);
  };
  poll();
});
`;

/** Median load → ready over `runs` cold processes, for a vault folder. */
export function pluginLoadMs(vault, runs = 7) {
  const dir = mkdtempSync(path.join(tmpdir(), "smarthole-load-"));
  mkdirSync(path.join(dir, "node_modules"));
  cpSync(path.join(ROOT, "tests/node/obsidian-stub"), path.join(dir, "node_modules/obsidian"), { recursive: true });
  // Obsidian supplies CodeMirror to plugins (main.js leaves it external): ours stands in.
  symlinkSync(path.join(ROOT, "node_modules/@codemirror"), path.join(dir, "node_modules/@codemirror"), "dir");
  cpSync(path.join(ROOT, "dist/main.js"), path.join(dir, "main.js"));
  writeFileSync(path.join(dir, "load.cjs"), CHILD);
  const times = [];
  for (let i = 0; i < runs; i++) {
    const run = spawnSync(process.execPath, [path.join(dir, "load.cjs"), vault], { cwd: dir, encoding: "utf8" });
    if (run.status !== 0) throw new Error(`plugin load failed: ${run.stderr}`);
    if (process.env.MARKS) process.stderr.write(run.stderr);
    times.push(Number(run.stdout));
  }
  rmSync(dir, { recursive: true, force: true });
  times.sort((a, b) => a - b);
  return Number(times[Math.floor(times.length / 2)].toFixed(1));
}

// Alone: `node bench/plugin-load.mjs` (after `make build`) prints the three cases make bench
// records: an empty vault, 100,000 messages stored, and those with 10,000 notes indexed.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { tmpVault } = await import("../tests/node/helpers.mjs");
  const big = tmpVault();
  writeHistory(path.join(big, ".smarthole"), { messages: 100_000, perConversation: 100 });
  const indexed = await indexedVault(100_000);
  console.log(
    JSON.stringify({
      plugin_load_to_ready_empty_ms: pluginLoadMs(tmpVault()),
      plugin_load_to_ready_1000_conversations_ms: pluginLoadMs(big),
      plugin_load_to_ready_indexed_ms: pluginLoadMs(indexed),
    }),
  );
  rmSync(indexed, { recursive: true, force: true });
}
