// The real coding agents as ACP peers, offline: each started as the recipe of
// ../shared/reference/acp.md says (a scratch HOME, the variables that point it at a scripted
// model server on 127.0.0.1 and turn off its own network traffic), in its own process group, and
// spoken to with raw JSON-RPC lines on its stdio — every message in and out recorded with its
// time, so a test (or docs/ACP-AGENTS.md) can say exactly what the agent sent.
//
//   const agent = await startAgent("claude", { modelUrl: server.url, cwd: vault });
//   const init = await agent.request("initialize", INITIALIZE);
//   …
//   await agent.close();
//
// The agents are installed, pinned, by `scripts/ensure-tools.sh agents` into
// ~/.cache/smarthole-agent/agents/<name>@<version> (SMARTHOLE_AGENTS_DIR overrides the folder).
//
// As a command: `node tests/node/acp-peers.mjs claude|gemini|opencode` runs the scenario
// initialize → session/new (the agent's own write and shell tools off) → one prompt whose scripted
// answer reads a file and streams text, and prints the message sequence with its timings.
import { spawn, execFileSync } from "node:child_process";
import { RECIPES, CLAUDE_WRITE_TOOLS } from "./acp-recipes.mjs";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** What the client declares in `initialize` (no fs or terminal: the plugin serves its own tools
 * over MCP). */
export const INITIALIZE = {
  protocolVersion: 1,
  clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
  clientInfo: { name: "smarthole-agent-tests", version: "0.1.0" },
};

export { RECIPES, agentDir, CLAUDE_WRITE_TOOLS, GEMINI_WRITE_TOOLS, OPENCODE_WRITE_TOOLS, CODEX_WRITE_TOOLS } from "./acp-recipes.mjs";

/** An ACP agent process spoken to with JSON-RPC lines. */
export class AcpPeer {
  /** Every message, in order: {t (ms since spawn), dir: "out"|"in", msg} or {dir: "in", raw} for
   * a line that is not JSON. */
  log = [];
  /** How agent → client requests are answered, by method: (params) => result (throw: error). */
  handlers = new Map();
  stderr = "";
  #pending = new Map();
  #nextId = 0;
  #buffer = "";
  #waiters = [];

  constructor(child, startedAt) {
    this.child = child;
    this.startedAt = startedAt;
    this.exited = new Promise((resolve) => child.on("close", (code, signal) => resolve({ code, signal })));
    child.stdout.setEncoding("utf8").on("data", (text) => this.#read(text));
    child.stderr.setEncoding("utf8").on("data", (text) => (this.stderr = (this.stderr + text).slice(-65536)));
    child.stdin.on("error", () => {});
    this.exited.then(({ code, signal }) => {
      for (const { reject } of this.#pending.values()) reject(new Error(`the agent exited (${code ?? signal}) before answering; stderr: ${this.stderr.slice(-2000)}`));
      this.#pending.clear();
    });
  }

  /** Milliseconds since the process was spawned. */
  now() {
    return performance.now() - this.startedAt;
  }

  #read(text) {
    this.#buffer += text;
    let nl;
    while ((nl = this.#buffer.indexOf("\n")) >= 0) {
      const line = this.#buffer.slice(0, nl).replace(/\r$/, "");
      this.#buffer = this.#buffer.slice(nl + 1);
      if (line.trim()) this.#message(line);
    }
  }

  #message(line) {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      this.log.push({ t: this.now(), dir: "in", raw: line });
      for (const waiter of [...this.#waiters]) waiter();
      return;
    }
    this.log.push({ t: this.now(), dir: "in", msg });
    if (msg.id !== undefined && msg.method === undefined) {
      const waiting = this.#pending.get(msg.id);
      this.#pending.delete(msg.id);
      if (msg.error) waiting?.reject(Object.assign(new Error(`${msg.error.message} (${msg.error.code})`), { rpc: msg.error }));
      else waiting?.resolve(msg.result);
    } else if (msg.method !== undefined && msg.id !== undefined) {
      void this.#answer(msg);
    }
    for (const waiter of [...this.#waiters]) waiter();
  }

  async #answer(msg) {
    const handler = this.handlers.get(msg.method);
    if (!handler) return this.#send({ jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: `Method not found: ${msg.method}` } });
    try {
      this.#send({ jsonrpc: "2.0", id: msg.id, result: await handler(msg.params) });
    } catch (error) {
      this.#send({ jsonrpc: "2.0", id: msg.id, error: { code: -32603, message: String(error?.message ?? error) } });
    }
  }

  #send(msg) {
    this.log.push({ t: this.now(), dir: "out", msg });
    this.child.stdin.write(`${JSON.stringify(msg)}\n`);
  }

  /** A request; resolves with its result, rejects with its error (or the agent's exit). */
  request(method, params) {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#send({ jsonrpc: "2.0", id, method, params });
    });
  }

  notify(method, params) {
    this.#send({ jsonrpc: "2.0", method, params });
  }

  /** Resolves once `predicate(log)` holds (checked at each message in). */
  until(predicate) {
    return new Promise((resolve) => {
      const check = () => {
        if (!predicate(this.log)) return;
        this.#waiters = this.#waiters.filter((w) => w !== check);
        resolve();
      };
      this.#waiters.push(check);
      check();
    });
  }

  /** The session/update notifications received, their `update` objects in order. */
  updates(sessionId) {
    return this.log
      .filter((e) => e.dir === "in" && e.msg?.method === "session/update" && (!sessionId || e.msg.params.sessionId === sessionId))
      .map((e) => ({ t: e.t, ...e.msg.params.update }));
  }

  /** Ends the agent's whole process group (SIGTERM, SIGKILL after 2 s). */
  async close() {
    const group = this.child.pid;
    try {
      process.kill(-group, "SIGTERM");
    } catch {
      // gone already
    }
    const timer = setTimeout(() => {
      try {
        process.kill(-group, "SIGKILL");
      } catch {
        // gone already
      }
    }, 2000);
    await this.exited;
    clearTimeout(timer);
    // What of its group outlived its leader's exit (Claude Code's `claude` child does, ~0.1 s).
    this.survivors = groupMembers(group);
    try {
      process.kill(-group, "SIGKILL");
    } catch {
      // the whole group is gone
    }
    await waitGone(group);
    rmSync(this.home, { recursive: true, force: true, maxRetries: 5 });
  }
}

/** The processes of process group `group` still there (ps), as "pid command" lines. */
export function groupMembers(group) {
  try {
    return execFileSync("ps", ["-o", "pid=,stat=,args=", "-g", String(group)], { encoding: "utf8" })
      .split("\n")
      .filter((line) => line.trim() && !/^\s*\d+\s+Z/.test(line));
  } catch {
    return []; // ps exits 1 when there is none
  }
}

/** Resolves once process group `group` has no process left (SIGKILL was sent). */
async function waitGone(group) {
  while (groupMembers(group).length > 0) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** Agents still running: ended when this process exits. */
const running = new Set();
process.on("exit", () => {
  for (const peer of running) {
    try {
      process.kill(-peer.child.pid, "SIGKILL");
    } catch {
      // gone already
    }
  }
});

/**
 * Starts agent `name` (claude | gemini | opencode | codex) against the scripted model server at
 * `modelUrl`, in folder `cwd`, with a scratch HOME and only PATH, HOME and the recipe's variables.
 */
export function startAgent(name, { modelUrl, cwd, env = {} }) {
  const home = mkdtempSync(path.join(tmpdir(), `acp-${name}-home-`));
  const recipe = RECIPES[name]({ modelUrl, home, cwd });
  // Not installed: a clear failure now, not a test waiting on a process that never started.
  if (path.isAbsolute(recipe.command) && !existsSync(recipe.command)) {
    throw new Error(`${name} is not installed (${recipe.command}): scripts/ensure-agents.sh installs it, as make test does`);
  }
  for (const [file, text] of Object.entries(recipe.files)) {
    mkdirSync(path.dirname(path.join(home, file)), { recursive: true });
    writeFileSync(path.join(home, file), text);
  }
  const startedAt = performance.now();
  const child = spawn(recipe.command, recipe.args, {
    cwd,
    env: { PATH: process.env.PATH, HOME: home, ...recipe.env, ...env },
    stdio: ["pipe", "pipe", "pipe"],
    detached: true,
  });
  const peer = new AcpPeer(child, startedAt);
  peer.home = home;
  peer.recipe = recipe;
  running.add(peer);
  peer.exited.then(() => running.delete(peer));
  return peer;
}

/** The scripted ACP agent (fake-acp-agent.mjs) with `script`, as a peer; FAKE_ACP_LOG in `env`
 * makes it log what it read and wrote. */
export function startFake(script, { cwd = tmpdir(), env = {} } = {}) {
  const child = spawn(process.execPath, [path.join(ROOT, "tests/node/fake-acp-agent.mjs")], {
    cwd,
    env: { PATH: process.env.PATH, FAKE_ACP_SCRIPT_JSON: JSON.stringify(script), ...env },
    stdio: ["pipe", "pipe", "pipe"],
    detached: true,
  });
  const peer = new AcpPeer(child, performance.now());
  peer.home = mkdtempSync(path.join(tmpdir(), "acp-fake-home-"));
  running.add(peer);
  peer.exited.then(() => running.delete(peer));
  return peer;
}

/** A compact line per message (for the docs and for failures): direction, time, method or
 * result, and the update kind. */
export function describe(log) {
  return log.map((e) => {
    const t = `${e.t.toFixed(0).padStart(6)} ms`;
    if (e.raw !== undefined) return `${t} <- (not JSON) ${e.raw.slice(0, 120)}`;
    const m = e.msg;
    const arrow = e.dir === "out" ? "->" : "<-";
    if (m.method === "session/update") {
      const u = m.params.update;
      const extra =
        u.sessionUpdate === "agent_message_chunk" ? JSON.stringify(u.content?.text ?? u.content) : u.sessionUpdate.startsWith("tool_call") ? `${u.toolCallId} ${u.title ?? ""} ${u.kind ?? ""} ${u.status ?? ""}` : "";
      return `${t} ${arrow} session/update ${u.sessionUpdate} ${extra}`.trimEnd();
    }
    if (m.method) return `${t} ${arrow} ${m.method}${m.id !== undefined ? ` #${m.id}` : ""}`;
    return `${t} ${arrow} result #${m.id} ${m.error ? `error ${JSON.stringify(m.error)}` : JSON.stringify(m.result).slice(0, 160)}`;
  });
}

/**
 * The scenario every agent is run through: initialize → session/new (its own write and shell
 * tools off) → one prompt whose scripted model answer reads `Garden.md` and then streams text.
 * `server` is the agent's scripted model server, its two steps enqueued by `script(filePath)`.
 * Returns the timings, the answers and the peer (closed).
 */
export async function readAndAnswer(name, { server, script, cwd }) {
  const file = path.join(cwd, "Garden.md");
  writeFileSync(file, "plant tulips\n");
  script(file);
  const agent = startAgent(name, { modelUrl: server.url, cwd });
  try {
    const initialize = await agent.request("initialize", INITIALIZE);
    const initialized = agent.now();
    if (name === "gemini") await agent.request("authenticate", { methodId: "gemini-api-key" });
    const session = await agent.request("session/new", { cwd, mcpServers: [], _meta: { claudeCode: { options: { disallowedTools: CLAUDE_WRITE_TOOLS } } } });
    const sessionReady = agent.now();
    const prompt = await agent.request("session/prompt", { sessionId: session.sessionId, prompt: [{ type: "text", text: "What does Garden.md say?" }] });
    const turnDone = agent.now();
    return {
      agent,
      initialize,
      session,
      prompt,
      times: { initialize: initialized, sessionNew: sessionReady - initialized, turn: turnDone - sessionReady },
    };
  } finally {
    await agent.close();
  }
}

/** The scripted model servers, per agent: how to start one and script the read-then-answer. */
export const MODEL_SERVERS = {
  claude: async () => {
    const { startScriptedServer } = await import("../peers/anthropic-server.mjs");
    const server = await startScriptedServer();
    const script = (file) =>
      server.enqueue(
        { kind: "tool_use", tools: [{ id: "toolu_read1", name: "Read", input: { file_path: file } }] },
        { kind: "text", text: "The garden note says to plant tulips." },
      );
    return { server, script };
  },
  gemini: async () => {
    const { startGeminiServer } = await import("../peers/gemini-server.mjs");
    const server = await startGeminiServer();
    const script = (file) => server.enqueue({ functionCalls: [{ name: "read_file", args: { file_path: file } }] }, { text: "The garden note says to plant tulips." });
    return { server, script };
  },
  opencode: async () => {
    const { startOpenAiServer } = await import("../peers/openai-server.mjs");
    const server = await startOpenAiServer();
    const script = (file) => server.enqueue({ toolCalls: [{ id: "call_read1", name: "read", arguments: { filePath: file } }] }, { text: "The garden note says to plant tulips." });
    return { server, script };
  },
};

// As a command: the scenario for one agent, its message sequence and timings printed.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const name = process.argv[2] ?? "claude";
  const { server, script } = await MODEL_SERVERS[name]();
  const cwd = mkdtempSync(path.join(tmpdir(), `acp-${name}-cwd-`));
  try {
    const run = await readAndAnswer(name, { server, script, cwd });
    console.log(describe(run.agent.log).join("\n"));
    console.log(`\nspawn → initialize answered ${run.times.initialize.toFixed(0)} ms; session/new ${run.times.sessionNew.toFixed(0)} ms; one turn ${run.times.turn.toFixed(0)} ms`);
    console.log(`model requests: ${server.requests.map((r) => `${r.method} ${r.path}`).join(", ")}`);
    console.log(`left in its process group after it ended: ${run.agent.survivors.length ? run.agent.survivors.join("; ") : "nothing"}`);
  } finally {
    await server.close();
    rmSync(cwd, { recursive: true, force: true });
  }
}
