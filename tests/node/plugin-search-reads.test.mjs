// The desktop plugin's read of many notes (obsidian-vault.ts's vaultReadManyBytes) for a search:
// the core asks several calls ahead of the batch it searches when a host answers with promises
// (find_scan.rs), and the plugin keeps at most 64 of Obsidian's reads under way across them (a
// desktop's open-files limit can be 256), while the search still finds every note.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { startScriptedServer } from "../peers/anthropic-server.mjs";
import { installedPlugin, sendTyped, tmpVault, waitFor, toolResults } from "./helpers.mjs";

const loadPlugin = installedPlugin();
let server;
before(async () => {
  server = await startScriptedServer({ fallback: { kind: "text", text: "ok" } });
});
after(() => server.close());

test("a search over 900 notes keeps at most 64 reads under way, asks ahead, and finds every planted link", async () => {
  const win = { addEventListener() {}, removeEventListener() {}, fetch: (...args) => fetch(...args) };
  globalThis.window = win;
  globalThis.activeWindow = win;
  try {
    const vault = tmpVault();
    for (let f = 0; f < 9; f++) mkdirSync(path.join(vault, `f${f}`));
    for (let i = 0; i < 900; i++) writeFileSync(path.join(vault, `f${i % 9}/n${i}.md`), i % 3 === 0 ? `a [[target|alias of n${i}]] here\n` : `nothing [here] ${i}\n`);
    const { Plugin, obsidian } = loadPlugin();
    const app = obsidian.__test.createApp(vault, { secrets: { "anthropic-api-key": "test-key" }, data: { baseUrl: server.url, hubEnabled: false, searchIndexMaxMb: 0 } });
    // Obsidian's binary read, slowed a little and counted.
    const readBinary = app.vault.readBinary.bind(app.vault);
    let now = 0;
    let most = 0;
    app.vault.readBinary = async (file) => {
      most = Math.max(most, ++now);
      try {
        await new Promise((resolve) => setTimeout(resolve, 1));
        return await readBinary(file);
      } finally {
        now--;
      }
    };
    const plugin = new Plugin(app, { id: "smarthole-agent", version: "0.1.0" });
    await plugin.onload();
    app.__layoutReady();
    await waitFor(() => plugin.runtime.ready, 10_000, "the core");
    const from = server.requests.length;
    server.enqueue({ kind: "tool_use", tools: [{ id: "s", name: "search_files", input: { query: "\\[\\[[^\\]|]+\\|[^\\]]+\\]\\]", regex: true } }] }, { kind: "text", text: "Done." });
    assert.equal((await sendTyped(plugin.runtime, "find the links")).success, true);
    const out = toolResults(server, from).s.content;
    assert.match(out, /^300 notes match .*\(900 searched\)/, out);
    // Without the limit, the core's reads asked ahead put 576 under way at once.
    assert.equal(most, 64, "64 reads under way at most, and as many as that");
    plugin.onunload();
    plugin.unload();
  } finally {
    delete globalThis.window;
    delete globalThis.activeWindow;
  }
});
