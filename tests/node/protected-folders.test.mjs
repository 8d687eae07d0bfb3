// The folders the agent never reaches are the core's one list (issue 33): the fixed ones and the
// vault's configuration folder, whatever Obsidian calls it (`app.vault.configDir`). The plugin's
// core keeps the tools out of it, and the plugin's own check of real locations (defence in depth)
// refuses it too, with `.obsidian` still (another device syncing the vault may use that name).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { startScriptedServer } from "../peers/anthropic-server.mjs";
import { installedPlugin, sendTyped, tmpVault, waitFor } from "./helpers.mjs";

const loadPlugin = installedPlugin();
let server;
before(async () => {
  server = await startScriptedServer({ fallback: { kind: "text", text: "ok" } });
});
after(() => server.close());

/** A vault whose configuration folder is `.cfg-phone`, with links into it and into `.obsidian`. */
function vaultWithConfig() {
  const vault = tmpVault();
  for (const dir of ["Notes", ".cfg-phone", ".obsidian"]) mkdirSync(path.join(vault, dir));
  writeFileSync(path.join(vault, "Notes/Plain.md"), "plain\n");
  writeFileSync(path.join(vault, ".cfg-phone/app.json"), "{\"phone\":true}\n");
  writeFileSync(path.join(vault, ".obsidian/app.json"), "{}\n");
  symlinkSync(".cfg-phone/app.json", path.join(vault, "phone.md"));
  symlinkSync(".obsidian/app.json", path.join(vault, "desktop.md"));
  return vault;
}

test("a configuration folder with another name is protected by the core and by the plugin's own check", async () => {
  const win = { addEventListener() {}, removeEventListener() {}, fetch: (...args) => fetch(...args) };
  globalThis.window = win;
  globalThis.activeWindow = win;
  try {
    const vault = vaultWithConfig();
    const { Plugin, obsidian } = loadPlugin();
    const app = obsidian.__test.createApp(vault, { secrets: { "anthropic-api-key": "test-key" }, data: { baseUrl: server.url, hubEnabled: false } });
    app.vault.configDir = ".cfg-phone";
    const plugin = new Plugin(app, { id: "smarthole-agent", version: "0.1.0" });
    await plugin.onload();
    app.__layoutReady();
    await waitFor(() => plugin.runtime.ready, 10_000, "the core");
    assert.deepEqual(plugin.runtime.processor.alwaysProtectedFolders(app.vault.configDir), [".obsidian", ".smarthole", ".git", ".trash", ".cfg-phone"]);

    // The core: the tools never reach the configuration folder.
    server.enqueue(
      { kind: "tool_use", tools: [{ id: "r", name: "read_file", input: { path: ".cfg-phone/app.json" } }, { id: "w", name: "write_file", input: { path: ".CFG-PHONE/evil.json", content: "x" } }] },
      { kind: "text", text: "Done." },
    );
    assert.equal((await sendTyped(plugin.runtime, "read the settings")).success, true);
    const results = server.requests.at(-1).body.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b) => b.type === "tool_result");
    for (const id of ["r", "w"]) assert.match(results.find((b) => b.tool_use_id === id).content, /protected folder/, id);

    // The plugin's own check, handed paths the core would refuse: both configuration folders.
    const notes = plugin.runtime.options.vault;
    assert.equal(await notes.vaultRead("Notes/Plain.md"), "plain\n");
    await assert.rejects(notes.vaultRead("phone.md"), /really in a hidden folder/);
    await assert.rejects(notes.vaultRead("desktop.md"), /really in a hidden folder/);
    await assert.rejects(notes.vaultCreate(".cfg-phone/evil.json", "x"), /really in a hidden folder/);
    assert.equal(readFileSync(path.join(vault, ".cfg-phone/app.json"), "utf8"), "{\"phone\":true}\n");
    plugin.onunload();
    plugin.unload();
  } finally {
    delete globalThis.window;
    delete globalThis.activeWindow;
  }
});
