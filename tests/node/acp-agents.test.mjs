// The real coding agents over ACP, offline (tests/node/acp-peers.mjs): each started as the plugin
// will start it, pointed at a scripted model server, and run through initialize → session/new
// with its own write and shell tools off → a prompt whose scripted answer reads a note and
// streams text. What is asserted here is what the core's ACP client and the plugin's end-to-end
// tests are built on (docs/ACP-AGENTS.md): the answers' shapes, the order of the updates, the
// tools the model is offered, and that nothing of the agent's process group is left.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import * as childProcess from "node:child_process";
import { ROOT } from "./helpers.mjs";
import { MODEL_SERVERS, RECIPES, INITIALIZE, groupMembers, readAndAnswer, describe, startAgent, CLAUDE_WRITE_TOOLS, GEMINI_WRITE_TOOLS, OPENCODE_WRITE_TOOLS, CODEX_WRITE_TOOLS } from "./acp-peers.mjs";

/** The scenario for `name`, with its model server; the folder removed after. */
async function scenario(name) {
  const { server, script } = await MODEL_SERVERS[name]();
  const cwd = mkdtempSync(path.join(tmpdir(), `acp-${name}-cwd-`));
  try {
    const run = await readAndAnswer(name, { server, script, cwd });
    return { ...run, server, cwd, note: readFileSync(path.join(cwd, "Garden.md"), "utf8") };
  } finally {
    await server.close();
    rmSync(cwd, { recursive: true, force: true });
  }
}

test("Claude Code (claude-agent-acp 0.23.1): a read through its own Read tool, then the answer streamed", { timeout: 120_000 }, async () => {
  const run = await scenario("claude");
  const trace = describe(run.agent.log).join("\n");
  assert.equal(run.initialize.protocolVersion, 1);
  assert.equal(run.initialize.agentCapabilities.loadSession, true);
  assert.deepEqual(run.initialize.authMethods, [], "an API key is set: no login asked");
  assert.equal(run.session.modes.currentModeId, "default");
  assert.deepEqual(
    run.session.modes.availableModes.map((m) => m.id),
    ["default", "acceptEdits", "plan", "dontAsk"],
  );
  assert.equal(run.prompt.stopReason, "end_turn");

  // The model was offered its read tools, and none of the ones that write or run commands.
  const posts = run.server.requests.filter((r) => r.method === "POST");
  assert.equal(posts.length, 2, "one model request per step");
  for (const post of posts) {
    const tools = post.body.tools.map((t) => t.name);
    assert.ok(tools.includes("Read"), tools.join(","));
    for (const off of CLAUDE_WRITE_TOOLS) assert.ok(!tools.includes(off), `${off} offered: ${tools.join(",")}`);
  }

  // tool_call (pending) → tool_call_update (its input) → … → completed, then the text.
  const updates = run.agent.updates();
  const read = updates.filter((u) => u.toolCallId === "toolu_read1");
  assert.deepEqual(read.map((u) => u.sessionUpdate)[0], "tool_call", trace);
  assert.equal(read[0].kind, "read");
  assert.equal(read[0].status, "pending");
  assert.deepEqual(read.find((u) => u.rawInput?.file_path)?.locations?.[0]?.path, path.join(run.cwd, "Garden.md"));
  assert.equal(read.at(-1).status, "completed", trace);
  const chunks = updates.filter((u) => u.sessionUpdate === "agent_message_chunk");
  assert.ok(chunks.length > 1, "the answer arrives in pieces");
  assert.equal(chunks.map((u) => u.content.text).join(""), "The garden note says to plant tulips.");
  assert.ok(updates.indexOf(read.at(-1)) < updates.indexOf(chunks[0]), trace);
  assert.equal(updates.at(-1).sessionUpdate, "usage_update", trace);
  assert.ok(run.prompt.usage.outputTokens > 0);

  assert.equal(run.note, "plant tulips\n", "reading changed nothing");
  assert.ok(!run.agent.log.some((e) => e.raw !== undefined), "every line it wrote was JSON");
});

test("Gemini CLI 0.61.0 (--experimental-acp): API-key login, a read through read_file, then the answer streamed", { timeout: 120_000 }, async () => {
  const run = await scenario("gemini");
  const trace = describe(run.agent.log).join("\n");
  assert.equal(run.initialize.protocolVersion, 1);
  assert.equal(run.initialize.agentCapabilities.loadSession, true);
  assert.ok(run.initialize.authMethods.some((m) => m.id === "gemini-api-key"), "it lists its logins even with a key set");
  assert.equal(run.session.modes.currentModeId, "default");
  assert.deepEqual(run.session.modes.availableModes.map((m) => m.id), ["default", "autoEdit", "yolo", "plan"]);
  assert.equal(run.prompt.stopReason, "end_turn");

  // Its write and shell tools are off through the policy file's deny rules.
  const streamed = run.server.requests.filter((r) => r.path.endsWith(":streamGenerateContent"));
  assert.equal(streamed.length, 2, "one streamed model call per step");
  for (const call of streamed) {
    const tools = call.body.tools.flatMap((t) => t.functionDeclarations ?? []).map((f) => f.name);
    assert.ok(tools.includes("read_file"), tools.join(","));
    for (const off of GEMINI_WRITE_TOOLS) assert.ok(!tools.includes(off), `${off} offered: ${tools.join(",")}`);
  }

  // tool_call (in_progress, already with its location) → tool_call_update completed, then the text.
  const updates = run.agent.updates();
  const read = updates.filter((u) => u.sessionUpdate.startsWith("tool_call"));
  assert.deepEqual(read.map((u) => [u.sessionUpdate, u.status, u.kind]), [["tool_call", "in_progress", "read"], ["tool_call_update", "completed", "read"]], trace);
  assert.equal(read[0].locations[0].path, path.join(run.cwd, "Garden.md"));
  const chunks = updates.filter((u) => u.sessionUpdate === "agent_message_chunk");
  assert.equal(chunks.map((u) => u.content.text).join(""), "The garden note says to plant tulips.");
  assert.ok(updates.indexOf(read.at(-1)) < updates.indexOf(chunks[0]), trace);
  assert.equal(run.note, "plant tulips\n");
  assert.ok(!run.agent.log.some((e) => e.raw !== undefined), "every line it wrote was JSON");
});

test("opencode 1.18.33 (opencode acp): an OpenAI-compatible provider, a read through its read tool, then the answer", { timeout: 120_000 }, async () => {
  const run = await scenario("opencode");
  const trace = describe(run.agent.log).join("\n");
  assert.equal(run.initialize.protocolVersion, 1);
  assert.equal(run.initialize.agentCapabilities.loadSession, true);
  assert.deepEqual(run.initialize.authMethods.map((m) => m.id), ["opencode-login"]);
  assert.equal(run.session.modes, undefined, "no modes; its model and agent are configOptions");
  assert.equal(run.session.configOptions.find((o) => o.id === "model").currentValue, "scripted/scripted-model");
  assert.equal(run.prompt.stopReason, "end_turn");
  assert.deepEqual(run.prompt.usage, { inputTokens: 100, outputTokens: 10, totalTokens: 110 });

  // Its write and shell tools are off through OPENCODE_CONFIG_CONTENT's `tools`.
  const turns = run.server.requests.filter((r) => r.step);
  assert.equal(turns.length, 2, "one model request per step (its title request aside)");
  for (const call of turns) {
    const tools = call.body.tools.map((t) => t.function.name);
    assert.ok(tools.includes("read"), tools.join(","));
    for (const off of OPENCODE_WRITE_TOOLS) assert.ok(!tools.includes(off), `${off} offered: ${tools.join(",")}`);
  }

  // tool_call pending (no input yet) → in_progress with its input → completed, then the text.
  const updates = run.agent.updates();
  const read = updates.filter((u) => u.toolCallId === "call_read1");
  assert.deepEqual(read.map((u) => [u.sessionUpdate, u.status]), [["tool_call", "pending"], ["tool_call_update", "in_progress"], ["tool_call_update", "completed"]], trace);
  assert.equal(read[1].rawInput.filePath, path.join(run.cwd, "Garden.md"));
  const chunks = updates.filter((u) => u.sessionUpdate === "agent_message_chunk");
  assert.equal(chunks.map((u) => u.content.text).join(""), "The garden note says to plant tulips.");
  assert.ok(updates.indexOf(read.at(-1)) < updates.indexOf(chunks[0]), trace);
  assert.equal(run.note, "plant tulips\n");
  assert.ok(!run.agent.log.some((e) => e.raw !== undefined), "every line it wrote was JSON");
});

test("Claude Code started, spoken to and stopped by the plugin's process host: nothing of it is left", { timeout: 60_000 }, async () => {
  const { AgentProcesses, agentSystem } = await import(path.join(ROOT, "js-shim/dist/node.js"));
  const { server } = await MODEL_SERVERS.claude();
  const cwd = mkdtempSync(path.join(tmpdir(), "acp-claude-host-"));
  const home = mkdtempSync(path.join(tmpdir(), "acp-claude-home-"));
  const recipe = RECIPES.claude({ modelUrl: server.url, home, cwd });
  const agents = new AgentProcesses({ system: () => agentSystem(childProcess, process, { setTimeout, clearTimeout }) });
  let output = "";
  let onLine = () => {};
  const exited = new Promise((resolve) => {
    agents.events = {
      agentOutput: (id, chunk) => {
        output += chunk;
        onLine();
      },
      agentExited: (id, code, signal, error, stderrTail) => resolve({ code, signal, error, stderrTail }),
    };
  });
  const answered = (id) =>
    new Promise((resolve) => {
      onLine = () => {
        const line = output.split("\n").find((l) => l.startsWith("{") && JSON.parse(l).id === id);
        if (line) resolve(JSON.parse(line));
      };
      onLine();
    });
  try {
    agents.agentStart(1, recipe.command, recipe.args, { PATH: process.env.PATH, HOME: home, ...recipe.env }, cwd);
    agents.agentWrite(1, `${JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: INITIALIZE })}\n`);
    assert.equal((await answered(0)).result.protocolVersion, 1);
    agents.agentWrite(1, `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd, mcpServers: [] } })}\n`);
    assert.ok((await answered(1)).result.sessionId);
    assert.deepEqual(agents.ids, [1]);
    // The adapter is this process's child, the leader of its own group.
    const leader = Number(childProcess.execFileSync("ps", ["-o", "pid=", "--ppid", String(process.pid)], { encoding: "utf8" }).trim().split("\n").map(Number).find((pid) => groupMembers(pid).length > 0));
    assert.ok(groupMembers(leader).some((line) => / claude$/.test(line)), `the adapter and its claude child: ${groupMembers(leader).join("; ")}`);
    agents.agentStop(1);
    const exit = await exited;
    assert.equal(exit.error, null);
    // The claude child outlives its parent for a moment (~0.1 s) after the SIGTERM.
    while (groupMembers(leader).length > 0) await new Promise((resolve) => setTimeout(resolve, 20));
  } finally {
    agents.killAll();
    await server.close();
    rmSync(cwd, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true, maxRetries: 5 });
  }
});

test("Claude Code: a tool of the MCP server given in session/new asks permission first; a cancel mid-stream ends the prompt cancelled", { timeout: 120_000 }, async () => {
  const { server } = await MODEL_SERVERS.claude();
  const cwd = mkdtempSync(path.join(tmpdir(), "acp-claude-mcp-"));
  server.enqueue(
    { kind: "tool_use", tools: [{ id: "toolu_echo1", name: "mcp__smarthole__echo", input: { message: "hello" } }] },
    { kind: "text", text: "Echoed." },
    // ~30 s of text if never cancelled: the cancel lands mid-stream even on a loaded machine.
    { kind: "text", text: "A long answer that streams slowly enough to be cancelled. ".repeat(40), delayMs: 50 },
  );
  const agent = startAgent("claude", { modelUrl: server.url, cwd });
  const asked = [];
  agent.handlers.set("session/request_permission", (params) => {
    asked.push(params);
    return { outcome: { outcome: "selected", optionId: "allow" } };
  });
  try {
    await agent.request("initialize", INITIALIZE);
    // Any stdio MCP server stands for the plugin's own (named smarthole, as the plugin's will be).
    const smarthole = { name: "smarthole", command: process.execPath, args: [path.join(ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js"), "stdio"], env: [] };
    const { sessionId } = await agent.request("session/new", { cwd, mcpServers: [smarthole], _meta: { claudeCode: { options: { disallowedTools: CLAUDE_WRITE_TOOLS } } } });
    const first = await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "echo hello" }] });
    const trace = describe(agent.log).join("\n");
    assert.equal(first.stopReason, "end_turn", trace);
    assert.ok(server.requests.find((r) => r.method === "POST").body.tools.some((t) => t.name === "mcp__smarthole__echo"), "its tools offered as mcp__smarthole__<tool>");
    assert.equal(asked.length, 1, trace);
    assert.deepEqual(asked[0].toolCall, { toolCallId: "toolu_echo1", rawInput: { message: "hello" }, title: "mcp__smarthole__echo", kind: "other", content: [] });
    assert.deepEqual(asked[0].options.map((o) => [o.optionId, o.kind]), [["allow_always", "allow_always"], ["allow", "allow_once"], ["reject", "reject_once"]]);
    const echo = agent.updates(sessionId).filter((u) => u.toolCallId === "toolu_echo1");
    const permissionAt = agent.log.findIndex((e) => e.msg?.method === "session/request_permission");
    const completedAt = agent.log.findIndex((e) => e.msg?.params?.update?.toolCallId === "toolu_echo1" && e.msg.params.update.status === "completed");
    assert.ok(permissionAt < completedAt, "asked before it ran");
    assert.deepEqual(echo.at(-1).content, [{ type: "content", content: { type: "text", text: "Echo: hello" } }]);

    const from = agent.log.length;
    const second = agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "tell me more" }] });
    await agent.until((log) => log.slice(from).filter((e) => e.msg?.params?.update?.sessionUpdate === "agent_message_chunk").length >= 3);
    agent.notify("session/cancel", { sessionId });
    assert.deepEqual(await second, { stopReason: "cancelled" });
    // The model request is aborted (the test ends by its timeout if it never is).
    const last = server.requests.at(-1);
    if (!last.aborted) await new Promise((resolve) => server.on("aborted", ({ requestIndex }) => requestIndex === last.index && resolve()));
  } finally {
    await agent.close();
    await server.close();
    rmSync(cwd, { recursive: true, force: true });
  }
});

test("Codex (codex-acp 0.16.0): an API-key provider on the Responses API, a read through an HTTP MCP server (asked first), then the answer streamed", { timeout: 120_000 }, async () => {
  const { startOpenAiServer } = await import("../peers/openai-server.mjs");
  const { startNotesMcpServer } = await import("../peers/mcp-http-notes.mjs");
  const server = await startOpenAiServer();
  const cwd = mkdtempSync(path.join(tmpdir(), "acp-codex-cwd-"));
  writeFileSync(path.join(cwd, "Garden.md"), "plant tulips\n");
  const notes = await startNotesMcpServer(cwd);
  // Codex offers an MCP server's tools as one namespace, `mcp__<server>`; the model names both.
  server.enqueue({ toolCalls: [{ id: "call_read1", namespace: "mcp__smarthole", name: "read_file", arguments: { path: "Garden.md" } }] }, { text: "The garden note says to plant tulips." });
  const agent = startAgent("codex", { modelUrl: server.url, cwd });
  const asked = [];
  agent.handlers.set("session/request_permission", (params) => {
    asked.push(params);
    return { outcome: { outcome: "selected", optionId: params.options.find((o) => o.kind === "allow_once").optionId } };
  });
  try {
    const initialize = await agent.request("initialize", INITIALIZE);
    assert.equal(initialize.protocolVersion, 1);
    assert.equal(initialize.agentCapabilities.loadSession, true);
    assert.equal(initialize.agentCapabilities.mcpCapabilities.http, true);
    assert.deepEqual(initialize.authMethods.map((m) => m.id), ["chatgpt", "codex-api-key", "openai-api-key"], "listed even when its provider's key is set");
    const smarthole = { type: "http", name: "smarthole", url: notes.url, headers: [{ name: "Authorization", value: "Bearer agent-token" }] };
    const session = await agent.request("session/new", { cwd, mcpServers: [smarthole] });
    assert.equal(session.modes.currentModeId, "read-only");
    assert.deepEqual(session.modes.availableModes.map((m) => m.id), ["read-only", "auto", "full-access"]);
    const prompt = await agent.request("session/prompt", { sessionId: session.sessionId, prompt: [{ type: "text", text: "What does Garden.md say?" }] });
    const trace = describe(agent.log).join("\n");
    assert.equal(prompt.stopReason, "end_turn", trace);

    // Its shell and patch tools are off (the -c features overrides); the MCP server's tools are one namespace.
    const steps = server.requests.filter((r) => r.step);
    assert.equal(steps.length, 2, "one model request per step");
    for (const step of steps) {
      const tools = step.body.tools.map((t) => t.name ?? t.type);
      for (const off of CODEX_WRITE_TOOLS) assert.ok(!tools.includes(off), `${off} offered: ${tools.join(",")}`);
      const namespace = step.body.tools.find((t) => t.name === "mcp__smarthole");
      assert.deepEqual(namespace?.tools.map((t) => t.name), ["read_file"], tools.join(","));
    }
    assert.match(JSON.stringify(steps[1].body.input.at(-1)), /plant tulips/, "the tool's result went back to the model");
    assert.ok(notes.requests.some((r) => r.method === "tools/call" && r.authorization === "Bearer agent-token"), "its headers sent");

    // Asked before each MCP tool call: its own title, the server named in rawInput.
    assert.equal(asked.length, 1, trace);
    assert.equal(asked[0].toolCall.title, "Approve MCP tool call");
    assert.equal(asked[0].toolCall.rawInput.server_name, "smarthole");
    assert.equal(asked[0].toolCall.rawInput.request._meta.codex_approval_kind, "mcp_tool_call");
    assert.deepEqual(asked[0].options.map((o) => o.kind), ["allow_once", "allow_always", "allow_always", "reject_once"]);

    const updates = agent.updates();
    const read = updates.filter((u) => u.toolCallId === "call_read1");
    assert.deepEqual(read.map((u) => [u.sessionUpdate, u.status]).at(-1), ["tool_call_update", "completed"], trace);
    const chunks = updates.filter((u) => u.sessionUpdate === "agent_message_chunk").map((u) => u.content.text);
    // Its first chunk is its own warning that the model is unknown to it (no catalog offline).
    assert.match(chunks[0], /Model metadata for `scripted-model` not found/);
    assert.equal(chunks.slice(1).join(""), "The garden note says to plant tulips.");
    assert.ok(updates.some((u) => u.sessionUpdate === "usage_update"));
    assert.ok(!agent.log.some((e) => e.raw !== undefined), "every line it wrote was JSON");
  } finally {
    await agent.close();
    await server.close();
    await notes.close();
    rmSync(cwd, { recursive: true, force: true });
  }
  assert.deepEqual(agent.survivors, [], "nothing of its process group outlived it");
});
