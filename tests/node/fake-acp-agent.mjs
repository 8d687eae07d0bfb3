#!/usr/bin/env node
// A scripted ACP agent for the plugin's end-to-end tests: an executable Node script speaking the
// Agent Client Protocol (JSON-RPC 2.0, one message a line) on stdio, cheap to start, no model.
// Its messages follow what the real agents sent (docs/ACP-AGENTS.md).
//
// The script: a JSON file named by --script FILE or FAKE_ACP_SCRIPT, or the JSON itself in
// FAKE_ACP_SCRIPT_JSON. Every field is optional:
//   {
//     "protocolVersion": 1,             answered in initialize (0: an older agent)
//     "initialize": "answer",           | "silent" (never answered) | "error" (a JSON-RPC error)
//     "startup": {"stderr": "…", "exit": 1, "garbage": ["not json"]},  before reading anything
//     "authMethods": [], "loadSession": false, "modes": true,
//     "ignoreSigterm": false,           stays alive on SIGTERM (the host's SIGKILL must end it)
//     "outliveInput": false,            stays alive when its stdin closes (as Claude Code's adapter)
//     "neverConnects": false,           never calls the `smarthole` MCP server it is given (by
//                                       default it sends it `initialize` once, before answering
//                                       the first session/new or session/load, as real agents do)
//     "cycle": false,                   the turns again from the first once all were played
//     "turns": [                        one per session/prompt, in order (then: "ok", end_turn)
//       {"stopReason": "end_turn", "steps": [
//         {"chunk": "text"}             agent_message_chunk
//         {"thought": "text"}           agent_thought_chunk
//         {"toolCall": {"toolCallId", "title", "kind", "status", "rawInput", "content", "locations"}}
//         {"toolCallUpdate": {"toolCallId", "status", "content", "rawOutput"}}
//         {"plan": [{"content", "priority", "status"}]}
//         {"usage": {"used", "size", "cost"}}                      usage_update
//         {"update": {…}}               any session/update (sessionUpdate included)
//         {"permission": {"toolCall": {…}, "options": [...]}}     session/request_permission,
//                                       waited for; {"permission": …, "then": {"<optionId>": steps,
//                                       "cancelled": steps}} runs the steps the answer picks
//         {"request": {"method", "params"}}  any agent → client request, waited for
//         {"garbage": "not json"}       a line that is not JSON
//         {"raw": "…"}                  a line as it is
//         {"flood": 1000000}            that many characters of agent_message_chunk, 64 KB each
//         {"floodLine": 9000000}        that many characters on one line never ended (then silence)
//         {"sleep": 100}                ms (a cancel ends it at once)
//         {"silence": true}             never answers this prompt (until cancelled)
//         {"exit": 3}                   exits now, mid-turn, with that code
//         {"stderr": "…"}
//         {"mcpCall": {"name", "arguments"}}  a tools/call to the session's `smarthole` MCP server
//                                       (its URL and headers from session/new or session/load),
//                                       recorded; the result's text is sent as an agent_message_chunk
//         {"touch": "FILE"}             creates FILE; {"waitFile": "FILE"} waits until it exists
//                                       (two agents meet: both are mid-turn at once)
//       ]}
//     ]
//   }
// With --log FILE (or FAKE_ACP_LOG=FILE) it appends a JSON line per event: {"start": {argv, cwd,
// env, pid}}, then {"in": msg} for each message it read and {"out": msg} for each it wrote. (The
// plugin starts an agent with a clean environment: the argument is what reaches it there.)
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";

const argScript = process.argv.indexOf("--script");
const scriptText =
  process.env.FAKE_ACP_SCRIPT_JSON ?? (argScript > 0 ? readFileSync(process.argv[argScript + 1], "utf8") : process.env.FAKE_ACP_SCRIPT ? readFileSync(process.env.FAKE_ACP_SCRIPT, "utf8") : "{}");
const script = JSON.parse(scriptText);
const argLog = process.argv.indexOf("--log");
const LOG = argLog > 0 ? process.argv[argLog + 1] : process.env.FAKE_ACP_LOG;
const record = (entry) => LOG && appendFileSync(LOG, `${JSON.stringify(entry)}\n`);

record({ start: { argv: process.argv.slice(2), cwd: process.cwd(), env: process.env, pid: process.pid } });
if (script.ignoreSigterm) process.on("SIGTERM", () => record({ signal: "SIGTERM ignored" }));

function writeLine(line) {
  process.stdout.write(`${line}\n`);
}
function send(msg) {
  record({ out: msg });
  writeLine(JSON.stringify(msg));
}

const startup = script.startup ?? {};
if (startup.stderr) process.stderr.write(startup.stderr);
for (const line of startup.garbage ?? []) writeLine(line);
if (startup.exit !== undefined) process.exit(startup.exit);

let nextRequestId = 0;
/** Agent → client requests waiting for their answer. */
const waiting = new Map();
let sessions = 0;
/** Each session's `smarthole` MCP server entry from session/new or session/load (none: not given one). */
const smartholeOf = new Map();

/** A tools/call to the session's `smarthole` server, recorded; its result's text (or why it failed). */
async function mcpCall(sessionId, call) {
  const server = smartholeOf.get(sessionId);
  if (!server) {
    record({ mcp: { call, answer: "no smarthole server was given" } });
    return "no smarthole server was given";
  }
  const headers = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
  for (const { name, value } of server.headers ?? []) headers[name] = value;
  const body = { jsonrpc: "2.0", id: nextRequestId++, method: "tools/call", params: { name: call.name, arguments: call.arguments ?? {} } };
  try {
    const response = await fetch(server.url, { method: "POST", headers, body: JSON.stringify(body) });
    const answer = await response.text();
    record({ mcp: { call, status: response.status, answer } });
    const parsed = JSON.parse(answer);
    return parsed?.result?.content?.map((c) => c.text ?? "").join("") ?? answer;
  } catch (error) {
    record({ mcp: { call, error: String(error) } });
    return `the smarthole server did not answer: ${String(error)}`;
  }
}
let turnIndex = 0;
/** The turn in progress: its cancel. */
let current = null;

function request(method, params) {
  const id = `fake-${nextRequestId++}`;
  send({ jsonrpc: "2.0", id, method, params });
  return new Promise((resolve) => waiting.set(id, resolve));
}

function update(sessionId, body) {
  send({ jsonrpc: "2.0", method: "session/update", params: { sessionId, update: body } });
}

const respond = (id, result) => send({ jsonrpc: "2.0", id, result });
const fail = (id, code, message) => send({ jsonrpc: "2.0", id, error: { code, message } });

function initializeResult() {
  return {
    protocolVersion: script.protocolVersion ?? 1,
    agentCapabilities: {
      loadSession: script.loadSession ?? false,
      promptCapabilities: { image: false, audio: false, embeddedContext: true },
      mcpCapabilities: { http: true, sse: false },
    },
    authMethods: script.authMethods ?? [],
    agentInfo: { name: "fake-acp-agent", title: "Fake ACP agent", version: "0.0.0" },
  };
}

function sessionResult() {
  const sessionId = `fake-session-${++sessions}`;
  if (script.modes === false) return { sessionId };
  return {
    sessionId,
    modes: {
      currentModeId: "default",
      availableModes: [
        { id: "default", name: "Default" },
        { id: "plan", name: "Plan" },
      ],
    },
  };
}

/** Runs one prompt's steps; resolves with its stop reason (null: never answered). */
async function runTurn(sessionId, turn, cancelled) {
  const sleep = (ms) => new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    cancelled.then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
  let isCancelled = false;
  cancelled.then(() => (isCancelled = true));
  const run = async (steps) => {
    for (const step of steps ?? []) {
      if (isCancelled) return "cancelled";
      if (step.chunk !== undefined) update(sessionId, { sessionUpdate: "agent_message_chunk", content: { type: "text", text: step.chunk } });
      else if (step.thought !== undefined) update(sessionId, { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: step.thought } });
      else if (step.toolCall) update(sessionId, { sessionUpdate: "tool_call", status: "pending", ...step.toolCall });
      else if (step.toolCallUpdate) update(sessionId, { sessionUpdate: "tool_call_update", ...step.toolCallUpdate });
      else if (step.plan) update(sessionId, { sessionUpdate: "plan", entries: step.plan });
      else if (step.usage) update(sessionId, { sessionUpdate: "usage_update", ...step.usage });
      else if (step.update) update(sessionId, step.update);
      else if (step.permission) {
        const answer = await Promise.race([request("session/request_permission", { sessionId, ...step.permission }), cancelled.then(() => null)]);
        if (answer === null) return "cancelled";
        const outcome = answer?.outcome?.outcome === "selected" ? answer.outcome.optionId : (answer?.outcome?.outcome ?? "invalid");
        const stop = await run(step.then?.[outcome]);
        if (stop) return stop;
      } else if (step.request) {
        const answer = await Promise.race([request(step.request.method, step.request.params), cancelled.then(() => null)]);
        if (answer === null) return "cancelled";
      } else if (step.garbage !== undefined) writeLine(step.garbage);
      else if (step.raw !== undefined) writeLine(step.raw);
      else if (step.flood !== undefined) {
        const piece = "x".repeat(64 * 1024);
        for (let left = step.flood; left > 0; left -= piece.length) {
          const ok = process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: piece.slice(0, Math.min(left, piece.length)) } } } })}\n`);
          if (!ok) await new Promise((resolve) => process.stdout.once("drain", resolve));
        }
      } else if (step.floodLine !== undefined) {
        const piece = "x".repeat(64 * 1024);
        for (let left = step.floodLine; left > 0; left -= piece.length) {
          if (!process.stdout.write(piece.slice(0, Math.min(left, piece.length)))) await new Promise((resolve) => process.stdout.once("drain", resolve));
        }
        await cancelled;
        return "cancelled";
      } else if (step.sleep !== undefined) await sleep(step.sleep);
      else if (step.silence) {
        await cancelled;
        return "cancelled";
      } else if (step.exit !== undefined) process.exit(step.exit);
      else if (step.mcpCall) update(sessionId, { sessionUpdate: "agent_message_chunk", content: { type: "text", text: await mcpCall(sessionId, step.mcpCall) } });
      else if (step.touch !== undefined) writeFileSync(step.touch, "");
      else if (step.waitFile !== undefined) {
        while (!existsSync(step.waitFile) && !isCancelled) await sleep(20);
      }
      else if (step.stderr !== undefined) process.stderr.write(step.stderr);
    }
    return isCancelled ? "cancelled" : undefined;
  };
  const stop = await run(turn.steps ?? [{ chunk: "ok" }]);
  return stop ?? turn.stopReason ?? "end_turn";
}

async function prompt(msg) {
  const { sessionId } = msg.params;
  const index = turnIndex++;
  const turn = script.turns?.[script.cycle ? index % script.turns.length : index] ?? { steps: [{ chunk: "ok" }] };
  let cancel;
  const cancelled = new Promise((resolve) => (cancel = resolve));
  current = { sessionId, cancel };
  const stopReason = await runTurn(sessionId, turn, cancelled);
  if (current?.cancel === cancel) current = null;
  respond(msg.id, { stopReason, ...(turn.usage ? { usage: turn.usage } : {}) });
}

let connected = false;
/** Connects to the `smarthole` MCP server in `params.mcpServers` (its `initialize` over HTTP),
 * once, unless the script says it never does. */
async function connectMcp(params) {
  const server = (params?.mcpServers ?? []).find((s) => s.type === "http" && s.name === "smarthole");
  if (!server || connected || script.neverConnects) return;
  connected = true;
  const headers = Object.fromEntries([["content-type", "application/json"], ...server.headers.map((h) => [h.name, h.value])]);
  const body = JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "fake-acp-agent" } } });
  try {
    const response = await fetch(server.url, { method: "POST", headers, body });
    record({ mcp: { initialize: response.status } });
  } catch (error) {
    record({ mcp: { error: String(error) } });
  }
}

function handle(msg) {
  record({ in: msg });
  if (msg.id !== undefined && msg.method === undefined) {
    const resolve = waiting.get(msg.id);
    waiting.delete(msg.id);
    resolve?.(msg.error ? { error: msg.error } : msg.result);
    return;
  }
  switch (msg.method) {
    case "initialize":
      if (script.initialize === "silent") return;
      if (script.initialize === "error") return fail(msg.id, -32603, "the fake agent refuses to start");
      return respond(msg.id, initializeResult());
    case "authenticate":
      return respond(msg.id, {});
    case "session/new": {
      const result = sessionResult();
      smartholeOf.set(result.sessionId, (msg.params?.mcpServers ?? []).find((s) => s.name === "smarthole"));
      return void connectMcp(msg.params).then(() => respond(msg.id, result));
    }
    case "session/load":
      if (msg.params?.sessionId) smartholeOf.set(msg.params.sessionId, (msg.params?.mcpServers ?? []).find((s) => s.name === "smarthole"));
      if (!script.loadSession) return fail(msg.id, -32601, "Method not found: session/load");
      return void connectMcp(msg.params).then(() => respond(msg.id, {}));
    case "session/set_mode":
      return respond(msg.id, {});
    case "session/prompt":
      void prompt(msg);
      return;
    case "session/cancel":
      current?.cancel();
      return;
    default:
      if (msg.id !== undefined) fail(msg.id, -32601, `Method not found: ${msg.method}`);
  }
}

const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  if (!line.trim()) return;
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    send({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
    return;
  }
  handle(msg);
});
// Input closed: the client is gone (unless told to outlive it, as Claude Code's adapter does).
lines.on("close", () => {
  if (!script.outliveInput) process.exit(0);
});
