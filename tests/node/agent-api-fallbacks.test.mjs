// The agent API's answers for when the core cannot answer (issue 33): 503 `not_ready` while it
// starts or is rebuilt, 500 `internal_error` when answering failed. The core writes both
// (`agentApiFallbacks()`); the plugin's server sends them as they are, status, body and headers.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startScriptedServer } from "../peers/anthropic-server.mjs";
import { freePort, installedPlugin, tmpVault, waitFor } from "./helpers.mjs";

const loadPlugin = installedPlugin();
let server;
before(async () => {
  server = await startScriptedServer({ fallback: { kind: "text", text: "ok" } });
});
after(() => server.close());

/** What a response carries that the caller sees. */
async function seen(response) {
  return { status: response.status, body: await response.text(), retryAfter: response.headers.get("retry-after") };
}

test("503 while the core is not ready and 500 when answering fails are the core's answers, sent as they are", async () => {
  const win = { addEventListener() {}, removeEventListener() {}, fetch: (...args) => fetch(...args) };
  Object.assign(globalThis, { window: win, activeWindow: win });
  try {
    const token = "d".repeat(64);
    const port = await freePort();
    const { Plugin, obsidian } = loadPlugin();
    const app = obsidian.__test.createApp(tmpVault(), {
      secrets: { "anthropic-api-key": "k", "smarthole-agent-api-token": token },
      data: { baseUrl: server.url, hubEnabled: false, agentApiEnabled: true, agentApiPort: port },
    });
    const plugin = new Plugin(app, { id: "smarthole-agent", version: "0.1.0" });
    await plugin.onload();
    app.__layoutReady();
    await waitFor(() => plugin.runtime.apiStates.some((s) => s.listening), 10_000, "the agent API");
    const { notReady, internalError } = plugin.runtime.processor.agentApiFallbacks();
    assert.equal(notReady.status, 503);
    assert.equal(internalError.status, 500);
    const ask = () => fetch(`http://127.0.0.1:${port}/context`, { headers: { Authorization: `Bearer ${token}` } });

    // Not ready (as during a rebuild): the core's 503, with its Retry-After.
    plugin.runtime.apiReady = false;
    assert.deepEqual(await seen(await ask()), { status: 503, body: notReady.body, retryAfter: "1" });
    plugin.runtime.apiReady = true;

    // Answering fails: the core's 500, nothing of the failure in it.
    plugin.runtime.instance.handleApiRequest = () => Promise.reject(new Error("boom at /secret/place"));
    assert.deepEqual(await seen(await ask()), { status: 500, body: internalError.body, retryAfter: null });
    delete plugin.runtime.instance.handleApiRequest;
    assert.equal((await ask()).status, 200, "answered by the core again");
    plugin.onunload();
    plugin.unload();
  } finally {
    delete globalThis.window;
    delete globalThis.activeWindow;
  }
});
