// Plugin load → ready (the Send button's condition), for dist/main.js itself: in a fresh Node
// process per run (cold, as at Obsidian's start), with the stub `obsidian` module over a real
// vault folder — the desktop app's path: main.js parsed, onload, layout ready, the core inflated,
// compiled, initialised and the inbox checked.
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

const CHILD = `
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
  // Obsidian supplies CodeMirror to plugins (external in main.js): the pinned copy stands in.
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
