// dist/main.js in Node with the stub `obsidian` module, search by meaning on (issue 35): the
// embedding server's key comes from secret storage (data.json names only its id), and the status
// bar says when search by meaning is paused and why.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { installedPlugin, tmpVault, waitFor } from "./helpers.mjs";

/** An embedding server that refuses every key; it records the Authorization headers it got. */
const seen = [];
const server = http.createServer((req, res) => {
  seen.push(req.headers.authorization ?? null);
  req.resume().on("end", () => {
    res.writeHead(401, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { message: "Invalid API key", type: "invalid_request_error" } }));
  });
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
after(() => server.close());

test("the key comes from secret storage by its id; a refused key shows as paused in the status bar", async () => {
  // The plugin's window, as plugin.test.mjs gives it (no hub: no socket).
  const win = { addEventListener: () => {}, removeEventListener: () => {}, fetch: (...args) => fetch(...args) };
  Object.assign(globalThis, { window: win, activeWindow: win });
  const { Plugin, obsidian } = installedPlugin()();
  // Requests that do not stream go through requestUrl, as in Obsidian: here, over fetch.
  const stubbed = obsidian.requestUrl;
  obsidian.requestUrl = async ({ url, method, headers, body }) => {
    const res = await fetch(url, { method, headers, body });
    return { status: res.status, headers: Object.fromEntries(res.headers), arrayBuffer: await res.arrayBuffer() };
  };
  const vault = tmpVault();
  writeFileSync(path.join(vault, "Apples.md"), "# Apples\n\nA note about apples.\n");
  const data = { baseUrl: "http://127.0.0.1:9", hubEnabled: false, embeddingsBaseUrl: `http://127.0.0.1:${server.address().port}`, embeddingsModel: "m", embeddingsApiKeySecretId: "my-embeddings-key" };
  const app = obsidian.__test.createApp(vault, { secrets: { "my-embeddings-key": "sk-embed-123" }, data });
  const plugin = new Plugin(app, { id: "smarthole-agent", version: "0.1.0" });
  await plugin.onload();
  try {
    app.__layoutReady();
    const paused = () => plugin.registered.statusBar.find((el) => el.text.startsWith("Search by meaning paused:"));
    await waitFor(() => paused() !== undefined, 20_000, "the paused line in the status bar");
    assert.match(paused().text, /key/i, paused().text);
    assert.ok(seen.length > 0 && seen.every((h) => h === "Bearer sk-embed-123"), JSON.stringify(seen));
  } finally {
    plugin.onunload();
    plugin.unload();
    delete globalThis.window;
    delete globalThis.activeWindow;
    obsidian.requestUrl = stubbed;
  }
});
