// dist/main.js in Node with a stub `obsidian` module: it registers in onload, starts its core
// when the layout is ready, and onunload leaves no timer, socket, listener or request behind.
// A core that traps is rebuilt without losing the inbox.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { startScriptedServer } from "../peers/anthropic-server.mjs";
import { freePort, history, inbox, installedPlugin, sendTyped, tmpVault, waitFor } from "./helpers.mjs";

const loadPlugin = installedPlugin();
let server;
before(async () => {
  server = await startScriptedServer({ fallback: { kind: "text", text: "ok" } });
});
after(() => server.close());

/** Counts timers, sockets and window listeners the plugin leaves alive. */
function instrument() {
  const live = { timeouts: new Set(), intervals: new Set(), sockets: new Set(), listeners: new Map() };
  const real = { setTimeout, clearTimeout, setInterval, clearInterval };
  globalThis.setTimeout = (fn, ms, ...args) => {
    const id = real.setTimeout(() => {
      live.timeouts.delete(id);
      fn(...args);
    }, ms);
    live.timeouts.add(id);
    id.__stack = new Error().stack;
    return id;
  };
  globalThis.clearTimeout = (id) => {
    live.timeouts.delete(id);
    real.clearTimeout(id);
  };
  globalThis.setInterval = (fn, ms, ...args) => {
    const id = real.setInterval(fn, ms, ...args);
    live.intervals.add(id);
    return id;
  };
  globalThis.clearInterval = (id) => {
    live.intervals.delete(id);
    real.clearInterval(id);
  };
  class FakeSocket {
    static OPEN = 1;
    constructor(url) {
      this.url = url;
      this.readyState = 0;
      this.listeners = {};
      live.sockets.add(this);
    }
    addEventListener(type, cb) {
      (this.listeners[type] ??= []).push(cb);
    }
    send() {}
    close() {
      this.readyState = 3;
      live.sockets.delete(this);
    }
  }
  globalThis.WebSocket = FakeSocket;
  const win = {
    addEventListener: (type, cb) => live.listeners.set(cb, type),
    removeEventListener: (type, cb) => live.listeners.delete(cb),
    fetch: (...args) => fetch(...args),
  };
  globalThis.window = win;
  globalThis.activeWindow = win;
  return {
    live,
    restore() {
      Object.assign(globalThis, real);
      delete globalThis.WebSocket;
      delete globalThis.window;
      delete globalThis.activeWindow;
    },
  };
}

async function started(vault, data, secrets = {}) {
  const { Plugin, obsidian } = loadPlugin();
  const app = obsidian.__test.createApp(vault, { secrets: { "anthropic-api-key": "test-key", ...secrets }, data });
  const plugin = new Plugin(app, { id: "smarthole-agent", version: "0.1.0" });
  await plugin.onload();
  return { plugin, app, obsidian };
}

test("onload only registers; the core starts when the layout is ready", async () => {
  const probe = instrument();
  try {
    const vault = tmpVault();
    const { plugin, app } = await started(vault, { baseUrl: server.url, hubEnabled: false });
    assert.deepEqual(plugin.registered.views.map((v) => v.type), ["smarthole-agent-chat", "smarthole-related-notes"]);
    assert.deepEqual(plugin.registered.commands.map((c) => c.id), ["open-chat", "open-related-notes", "stop-answer", "export-conversation", "ask-about-selection", "download-agent-api-config", "edit-selection"]);
    assert.equal(plugin.registered.editorExtensions.length, 1, "the inline review, in every Markdown editor");
    assert.equal(plugin.registered.tabs.length, 1);
    assert.equal(plugin.runtime.ready, false, "nothing started in onload");
    assert.equal(probe.live.sockets.size, 0);
    app.__layoutReady();
    await waitFor(() => plugin.runtime.ready, 10_000, "the core");
    plugin.onunload();
    plugin.unload();
  } finally {
    probe.restore();
  }
});

test("onunload leaves no timer, socket, listener or request behind", async () => {
  const probe = instrument();
  try {
    const vault = tmpVault();
    const { plugin, app } = await started(vault, { baseUrl: server.url, model: "scripted" });
    app.__layoutReady();
    await waitFor(() => plugin.runtime.ready, 10_000, "the core");
    assert.equal(probe.live.sockets.size, 1, "the hub socket is opening");
    assert.equal(plugin.registered.statusBar[0].text, "SmartHole: connecting…");
    // A message in flight at unload: its request must be aborted.
    const before = server.requests.length;
    server.enqueue({ kind: "hang" });
    void sendTyped(plugin.runtime, "a question that never gets its answer");
    await server.waitForRequests(before + 1);
    assert.ok(probe.live.listeners.size >= 2, "error listeners registered");
    plugin.onunload();
    plugin.unload();
    await waitFor(() => server.requests[before].aborted, 5_000, "the request to be aborted");
    await new Promise((r) => setImmediate(r));
    assert.equal(probe.live.sockets.size, 0, "socket closed");
    assert.equal(probe.live.intervals.size, 0, "no interval");
    // Node's own fetch (undici) keeps pool timers of its own; Obsidian's fetch is Chromium's.
    const ours = [...probe.live.timeouts].map((t) => t.__stack).filter((stack) => !stack.includes("node:internal/deps/undici"));
    assert.deepEqual(ours, [], "no timer of the plugin pending");
    assert.equal(probe.live.listeners.size, 0, "window listeners removed");
    // The message was not lost: it is in the inbox for the next start.
    assert.equal(inbox(vault).filter((f) => f.endsWith(".json")).length, 1);
  } finally {
    probe.restore();
  }
});

test("the API key comes from secret storage and never reaches data.json", async () => {
  const probe = instrument();
  try {
    const vault = tmpVault();
    const { plugin, app } = await started(vault, { baseUrl: server.url, hubEnabled: false, apiKey: "sk-smuggled" });
    app.__layoutReady();
    await waitFor(() => plugin.runtime.ready, 10_000, "the core");
    const before = server.requests.length;
    const result = await sendTyped(plugin.runtime, "hello");
    assert.equal(result.success, true);
    assert.equal(server.requests[before].headers["x-api-key"], "test-key");
    await plugin.userSettings.changeSetting("maxTokens", 512);
    assert.equal(app.__data.apiKey, undefined, "no key in the saved settings");
    assert.equal(app.__data.maxTokens, 512);
    // An invalid value is refused with the core's reason and not saved.
    await plugin.userSettings.changeSetting("maxTokens", 0);
    assert.equal(app.__data.maxTokens, 512);
    const { obsidian } = loadPlugin();
    assert.match(obsidian.__test.notices.at(-1), /max tokens must be between 1 and 128000/);
    plugin.onunload();
    plugin.unload();
  } finally {
    probe.restore();
  }
});

test("the agent API: served on 127.0.0.1 with the token from secret storage, never saved in data.json, closed on unload", async () => {
  const probe = instrument();
  try {
    const token = "c".repeat(64);
    const port = await freePort();
    const vault = tmpVault();
    const { plugin, app } = await started(
      vault,
      { baseUrl: server.url, hubEnabled: false, agentApiEnabled: true, agentApiPort: port, agentApiToken: "smuggled-in-data-json".repeat(3) },
      { "smarthole-agent-api-token": token },
    );
    app.__layoutReady();
    await waitFor(() => plugin.runtime.apiStates.some((s) => s.listening), 10_000, "the agent API");
    const context = await fetch(`http://127.0.0.1:${port}/context`, { headers: { Authorization: `Bearer ${token}` } });
    assert.equal(context.status, 200);
    const smuggled = await fetch(`http://127.0.0.1:${port}/context`, { headers: { Authorization: `Bearer ${"smuggled-in-data-json".repeat(3)}` } });
    assert.equal(smuggled.status, 401, "a token in data.json is ignored");
    assert.equal(plugin.runtime.processor.agentApiConfig(false).auth.token, undefined);
    assert.equal(plugin.runtime.processor.agentApiConfig(true).auth.token, token, "Download config includes it only when asked");
    await plugin.userSettings.changeSetting("maxTokens", 512);
    assert.equal(app.__data.agentApiToken, undefined, "no token in the saved settings");
    plugin.onunload();
    plugin.unload();
    await assert.rejects(fetch(`http://127.0.0.1:${port}/context`, { headers: { Authorization: `Bearer ${token}` } }), "closed on unload");
  } finally {
    probe.restore();
  }
});

test("a core that traps is rebuilt, the user is told, and the inbox is finished by the new one", async () => {
  const probe = instrument();
  try {
    const vault = tmpVault();
    const { plugin, app, obsidian } = await started(vault, { baseUrl: server.url, hubEnabled: false });
    app.__layoutReady();
    await waitFor(() => plugin.runtime.ready, 10_000, "the core");
    const before = server.requests.length;
    server.enqueue({ kind: "hang" }, { kind: "text", text: "Answered by the new core." });
    const pending = sendTyped(plugin.runtime, "remember the milk");
    await server.waitForRequests(before + 1);
    const trapped = plugin.runtime.instance;
    // The core traps (what a Rust panic does under panic=abort).
    plugin.runtime.reportError(new WebAssembly.RuntimeError("unreachable executed"));
    const first = await pending;
    assert.equal(first.errorCode, "core_restarted");
    // Discarded whole: its handle is given up, so the collector never frees it into the trapped
    // instance later (a handle still held would answer this).
    assert.throws(() => trapped.queued, /null pointer passed to rust/);
    assert.match(obsidian.__test.notices.join("\n"), /restarted its core/);
    await waitFor(() => plugin.runtime.ready, 10_000, "the rebuilt core");
    await waitFor(() => history(vault).some((l) => l.content[0]?.text === "Answered by the new core."), 10_000, "the inbox to be finished");
    assert.equal(history(vault).filter((l) => l.role === "user" && l.content[0]?.text === "remember the milk").length, 1);
    assert.deepEqual(inbox(vault), []);
    const after = await sendTyped(plugin.runtime, "and now?");
    assert.equal(after.success, true, "the new core works");
    plugin.onunload();
    plugin.unload();
  } finally {
    probe.restore();
  }
});

test("the views reach the core through one binding: runtime.processor is the same object before and after a rebuild, and a call that throws a trap starts the rebuild", async () => {
  const probe = instrument();
  try {
    const vault = tmpVault();
    const { plugin, app, obsidian } = await started(vault, { baseUrl: server.url, hubEnabled: false });
    const processor = plugin.runtime.processor;
    assert.throws(() => processor.conversations(), /the core is not ready yet/, "no instance before the start");
    app.__layoutReady();
    await waitFor(() => plugin.runtime.ready, 10_000, "the core");
    assert.equal((await sendTyped(plugin.runtime, "before")).success, true);
    // A trap thrown by a call (here while its bytes are handed to the core) rebuilds the core.
    const poisoned = { get length() { throw new WebAssembly.RuntimeError("unreachable"); } };
    assert.throws(() => processor.attachBytes("x.png", poisoned), WebAssembly.RuntimeError);
    await waitFor(() => obsidian.__test.notices.join("\n").includes("restarted its core"), 10_000, "the rebuild");
    await waitFor(() => plugin.runtime.ready, 10_000, "the rebuilt core");
    assert.equal(plugin.runtime.processor, processor, "one object for the runtime's life");
    const [conversation] = await processor.conversations();
    const page = await processor.conversationPage(conversation.id, undefined, 10);
    assert.ok(page.lines.some((l) => l.content[0]?.text === "before"), "the new core, through the same object");
    // The module's pure functions are reached the same way.
    assert.equal(processor.selectionQuote("Notes/a.md", 2, 3, "x"), plugin.runtime.core.selectionQuote("Notes/a.md", 2, 3, "x"));
    plugin.onunload();
    plugin.unload();
  } finally {
    probe.restore();
  }
});

test("note tools go through Obsidian's API; with the chat closed an approval shows a notice that stays", async () => {
  const probe = instrument();
  try {
    const vault = tmpVault();
    mkdirSync(path.join(vault, "Notes"));
    writeFileSync(path.join(vault, "Notes/Old.md"), "old text");
    const { plugin, app, obsidian } = await started(vault, { baseUrl: server.url, hubEnabled: false });
    app.__layoutReady();
    await waitFor(() => plugin.runtime.ready, 10_000, "the core");
    app.__active = "Notes/Old.md";
    server.enqueue(
      { kind: "tool_use", tools: [{ id: "a", name: "get_active_note", input: {} }, { id: "w", name: "write_file", input: { path: "Notes/New", content: "fresh" } }] },
      { kind: "tool_use", tools: [{ id: "d", name: "delete_file", input: { path: "Notes/Old.md" } }] },
      { kind: "text", text: "Done." },
    );
    const answered = sendTyped(plugin.runtime, "tidy up");
    await waitFor(() => plugin.runtime.processor.pendingApprovals().length === 1, 10_000, "the approval request");
    const [request] = plugin.runtime.processor.pendingApprovals();
    const notice = obsidian.__test.notices.objects.find((n) => n.text.includes("needs your approval"));
    assert.ok(notice, obsidian.__test.notices.join("\n"));
    assert.equal(notice.text, "SmartHole Agent needs your approval: Delete Notes/Old.md (to the trash). Click to open the chat.");
    assert.equal(notice.duration, 0, "it stays until answered");
    assert.equal(typeof notice.messageEl.listeners.click, "function", "clicking it opens the chat");
    await plugin.runtime.processor.decideApproval(request.id, "approve_once");
    const result = await answered;
    assert.equal(result.success, true);
    assert.deepEqual(app.fileManager.trashed, ["Notes/Old.md"], "deleted with fileManager.trashFile");
    assert.equal(readFileSync(path.join(vault, ".trash/Old.md"), "utf8"), "old text");
    assert.equal(readFileSync(path.join(vault, "Notes/New.md"), "utf8"), "fresh");
    await waitFor(() => notice.hidden, 5_000, "the notice to close once answered");
    const results = server.requests.at(-1).body.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b) => b.type === "tool_result");
    assert.match(results.find((b) => b.tool_use_id === "a").content, /^The open note is Notes\/Old\.md:\nold text/);
    await assert.rejects(plugin.runtime.processor.decideApproval(request.id, "reject"), /already approved/);
    plugin.onunload();
    plugin.unload();
  } finally {
    probe.restore();
  }
});

test("Settings → Usage and cost shows the day's and the month's totals the server reported", async (t) => {
  const probe = instrument();
  try {
    const vault = tmpVault();
    const { plugin, app, obsidian } = await started(vault, { baseUrl: server.url, hubEnabled: false, model: "claude-sonnet-4-5" });
    t.after(() => {
      plugin.onunload();
      plugin.unload();
    });
    app.__layoutReady();
    await waitFor(() => plugin.runtime.ready, 10_000, "the core");
    const from = server.requests.length;
    for (const text of ["first question", "second question"]) assert.equal((await sendTyped(plugin.runtime, text)).success, true);
    const served = server.requests.slice(from).map((r) => r.usage);
    assert.equal(served.length, 2);
    const shown = obsidian.__test.settings;
    shown.length = 0;
    plugin.registered.tabs[0].display();
    const totals = () => shown.find((s) => s.name === "Today and this month");
    await waitFor(() => totals() && !totals().desc.startsWith("Reading"), 5_000, "the totals");
    const sum = (k) => served.reduce((a, u) => a + (u[k] ?? 0), 0);
    const input = sum("input_tokens") + sum("cache_creation_input_tokens") + sum("cache_read_input_tokens");
    assert.ok(input > 0 && input < 10_000, "small enough to be shown in full");
    const cost = (3 * (sum("input_tokens") + 1.25 * sum("cache_creation_input_tokens") + 0.1 * sum("cache_read_input_tokens")) + 15 * sum("output_tokens")) / 1e6;
    const read = Math.round((100 * sum("cache_read_input_tokens")) / input);
    const line = `${input.toLocaleString("en-US")} in, ${read} % from cache · ${sum("output_tokens")} out · ≈ $${cost < 0.01 ? cost.toFixed(4) : cost.toFixed(2)}, 2 model calls.`;
    assert.equal(totals().desc, `Today: ${line} This month: ${line}`);
  } finally {
    probe.restore();
  }
});

test("Markdown copies: each answer is added to the conversation's note in the chosen folder; the export command writes any conversation and opens it", async () => {
  const probe = instrument();
  try {
    const vault = tmpVault();
    const { plugin, app, obsidian } = await started(vault, { baseUrl: server.url, hubEnabled: false, markdownCopies: true, markdownCopiesFolder: "Chats" });
    app.__layoutReady();
    await waitFor(() => plugin.runtime.ready, 10_000, "the core");
    server.enqueue({ kind: "text", text: "The first answer." }, { kind: "text", text: "The second answer." });
    assert.equal((await sendTyped(plugin.runtime, "first question")).success, true);
    assert.equal((await sendTyped(plugin.runtime, "second question")).success, true);
    const copyPath = () => {
      const dir = path.join(vault, "Chats");
      const names = existsSync(dir) ? readdirSync(dir) : [];
      return names.length === 1 ? path.join(dir, names[0]) : null;
    };
    await waitFor(() => copyPath() && readFileSync(copyPath(), "utf8").includes("The second answer."), 10_000, "the copy");
    const text = readFileSync(copyPath(), "utf8");
    assert.match(text, /^# first question\n/);
    const order = ["first question", "The first answer.", "second question", "The second answer."].map((t) => text.lastIndexOf(t));
    assert.deepEqual(order, order.slice().sort((a, b) => a - b), text);
    // The export command: any conversation, written the same way (here: nothing lacking), opened.
    const command = plugin.registered.commands.find((c) => c.id === "export-conversation");
    assert.ok(command.checkCallback(true));
    command.checkCallback(false);
    await waitFor(() => obsidian.FuzzySuggestModal.opened.length > 0, 5_000, "the picker");
    obsidian.FuzzySuggestModal.opened.at(-1).choose(0);
    await waitFor(() => app.workspace.opened.length === 1, 5_000, "the note opened");
    assert.equal(path.join(vault, app.workspace.opened[0]), copyPath());
    assert.equal(readFileSync(copyPath(), "utf8"), text, "an up-to-date copy gets nothing twice");
    assert.match(obsidian.__test.notices.at(-1), /^Conversation exported to Chats\//);
    plugin.onunload();
    plugin.unload();
  } finally {
    probe.restore();
  }
});
