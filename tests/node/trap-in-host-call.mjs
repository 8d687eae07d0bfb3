// Run by hostile-files.test.mjs in a process of its own: dist/main.js under the obsidian stub,
// one read of .smarthole/ failing as a trap inside a host call does (a WebAssembly.RuntimeError),
// Node's uncaught errors delivered to the plugin's window listeners as Obsidian's window would.
// Prints one JSON line: what happened.
import fsPromises from "node:fs/promises";
import { hostileWorld } from "./hostile-world.mjs";
import { installedPlugin, sendTyped, waitFor } from "./helpers.mjs";

const baseUrl = process.argv[2];
const { Plugin, obsidian } = installedPlugin()();

const listeners = { error: new Set(), unhandledrejection: new Set() };
const surfaced = [];
const win = {
  addEventListener: (type, cb) => listeners[type]?.add(cb),
  removeEventListener: (type, cb) => listeners[type]?.delete(cb),
  fetch: (...args) => fetch(...args),
};
globalThis.window = win;
globalThis.activeWindow = win;
process.on("uncaughtException", (error) => {
  surfaced.push(error);
  for (const cb of listeners.error) cb({ error });
});
process.on("unhandledRejection", (reason) => {
  surfaced.push(reason);
  for (const cb of listeners.unhandledrejection) cb({ reason });
});

const { vault } = hostileWorld();
const app = obsidian.__test.createApp(vault, { secrets: { "anthropic-api-key": "test-key" }, data: { baseUrl, hubEnabled: false } });
const plugin = new Plugin(app, { id: "smarthole-agent", version: "0.1.0" });
await plugin.onload();
app.__layoutReady();
await waitFor(() => plugin.runtime.ready, 10_000, "the core");
const first = await sendTyped(plugin.runtime, "before the trap");
if (!first.success) throw new Error(`first message: ${JSON.stringify(first)}`);
const conversation = await plugin.runtime.processor.currentConversation();
// The trap on the next read of a history, wherever the host reads it: the adapter (mobile), or
// Node's fs on desktop (the host opens .smarthole/ files itself there, never blocking on a FIFO).
const adapter = app.vault.adapter;
const read = adapter.read.bind(adapter);
const open = fsPromises.open;
let trapped = 0;
const trap = (p) => {
  if (trapped === 0 && String(p).includes("conversations/")) {
    trapped += 1;
    throw new WebAssembly.RuntimeError("unreachable");
  }
};
adapter.read = async (p) => {
  trap(p);
  return read(p);
};
fsPromises.open = async (p, flags, ...rest) => {
  // Opened to read (O_RDONLY is 0 in the access bits), not a write's temporary file.
  if (typeof flags === "number" && (flags & 3) === 0) trap(p);
  return open(p, flags, ...rest);
};
const lines = plugin.runtime.processor.conversationPage(conversation.id, undefined, 40).then(
  () => "answered",
  (error) => `refused: ${String(error)}`,
);
await waitFor(() => obsidian.__test.notices.join("\n").includes("restarted its core"), 10_000, "the rebuild");
const outcome = await Promise.race([lines, new Promise((r) => setTimeout(() => r("abandoned with the old instance"), 200))]);
await waitFor(() => plugin.runtime.ready, 10_000, "the rebuilt core");
const after = await sendTyped(plugin.runtime, "after the trap");
const shown = (await plugin.runtime.processor.conversationPage(conversation.id, undefined, 40)).lines;
plugin.onunload();
plugin.unload();
console.log(
  JSON.stringify({
    trapped,
    surfacedAsTrap: surfaced.some((e) => e instanceof WebAssembly.RuntimeError),
    rebuilt: true,
    outcome,
    after: after.success === true,
    historyReadsAgain: shown.some((l) => l.content[0]?.text === "before the trap"),
  }),
);
process.exit(0);
