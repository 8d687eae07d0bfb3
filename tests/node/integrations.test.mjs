// Integrations with a real MCP server (@modelcontextprotocol/server-everything), over stdio and
// over Streamable HTTP, through the headless host; the scripted model drives the tool calls.
// Also: a server that cannot start, and one that answers 401 in the middle of a chat.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { startScriptedServer } from "../peers/anthropic-server.mjs";
import { startMcpGate } from "../peers/mcp-gate.mjs";
import { ROOT, tmpVault, once, waitFor, freePort } from "./helpers.mjs";

const EVERYTHING = path.join(ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");

let model;
let http;
let httpUrl;
before(async () => {
  model = await startScriptedServer();
  const port = await freePort();
  http = spawn(process.execPath, [EVERYTHING, "streamableHttp"], { env: { ...process.env, PORT: String(port) }, stdio: "ignore" });
  httpUrl = `http://127.0.0.1:${port}/mcp`;
  await waitFor(async () => {
    try {
      await fetch(httpUrl, { method: "GET" });
      return true;
    } catch {
      return false;
    }
  }, 20_000, "server-everything over HTTP");
});
after(async () => {
  http?.kill();
  await model.close();
});

function config(vault, servers) {
  const file = path.join(vault, "mcp.json");
  writeFileSync(file, JSON.stringify({ mcpServers: servers }));
  return ["--mcp-config", file];
}

/** The tool result the model was sent for `id`, from the requests since `from`. */
function toolResult(from, id) {
  for (const r of model.requests.slice(from)) {
    for (const m of r.body?.messages ?? []) {
      // Without the prompt-cache mark the newest block carries (issue 17).
      for (const { cache_control: _mark, ...b } of Array.isArray(m.content) ? m.content : []) if (b.type === "tool_result" && b.tool_use_id === id) return b;
    }
  }
  return null;
}

test("over stdio: the server's tools are offered by name and a call's result reaches the model", async () => {
  const vault = tmpVault();
  const from = model.requests.length;
  model.enqueue({ kind: "tool_use", tools: [{ id: "e1", name: "mcp__everything__echo", input: { message: "hello" } }] }, { kind: "text", text: "It echoed." });
  const run = await once(vault, model.url, "ping the test server", config(vault, [{ name: "everything", command: process.execPath, args: [EVERYTHING, "stdio"] }]));
  assert.equal(run.result?.success, true, run.stderr);
  const names = model.requests[from].body.tools.map((t) => t.name);
  assert.ok(names.includes("mcp__everything__echo") && names.includes("mcp__everything__get-sum"), names.join(","));
  assert.match(model.requests[from].body.system[0].text, /- everything: connected, \d+ tools/);
  assert.deepEqual(toolResult(from, "e1"), { type: "tool_result", tool_use_id: "e1", content: "Echo: hello" });
});

test("over Streamable HTTP: a call with arguments, its result to the model", async () => {
  const vault = tmpVault();
  const from = model.requests.length;
  model.enqueue({ kind: "tool_use", tools: [{ id: "s1", name: "mcp__remote__get-sum", input: { a: 2, b: 3 } }] }, { kind: "text", text: "5." });
  const run = await once(vault, model.url, "add 2 and 3", config(vault, [{ name: "remote", url: httpUrl }]));
  assert.equal(run.result?.success, true, run.stderr);
  assert.match(toolResult(from, "s1").content, /\b5\b/);
});

test("a server that cannot start: the model is told it is not connected and where to fix it", async () => {
  const vault = tmpVault();
  const from = model.requests.length;
  model.enqueue({ kind: "tool_use", tools: [{ id: "m1", name: "mcp__mail__send", input: {} }] }, { kind: "text", text: "Mail is not connected." });
  const run = await once(vault, model.url, "email Bob", config(vault, [{ name: "mail", command: path.join(vault, "no-such-program") }]));
  assert.equal(run.result?.success, true, run.stderr);
  assert.match(model.requests[from].body.system[0].text, /- mail: not connected \(/);
  const told = toolResult(from, "m1");
  assert.equal(told.is_error, true);
  assert.match(told.content, /The mail integration is not connected\. Tell the user to open Settings → SmartHole Agent → Integrations/);
});

test("a 401 in the middle of a chat: the user is asked to reconnect and the conversation waits", async () => {
  const gate = await startMcpGate({ upstream: httpUrl, refuse: ["tools/call"] });
  try {
    const vault = tmpVault();
    model.enqueue({ kind: "tool_use", tools: [{ id: "g1", name: "mcp__remote__echo", input: { message: "x" } }] });
    const run = await once(vault, model.url, "echo x", config(vault, [{ name: "remote", url: gate.url }]));
    assert.equal(run.result?.success, true, run.stderr);
    assert.equal(run.result.isWaitingForResponse, true);
    assert.match(run.stderr, /\? The \*\*remote\*\* integration needs to be reconnected/);
    assert.ok(gate.seen.includes("initialize") && gate.seen.includes("tools/call"), gate.seen.join(","));
  } finally {
    await gate.close();
  }
});
