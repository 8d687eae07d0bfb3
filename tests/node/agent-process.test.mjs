// The agent-process host (js-shim/src/core/agent-process.ts, built into js-shim/dist/node.js)
// with real child processes: exactly the environment given, output decoded across chunk
// boundaries, a flood, an exit code with the end of stderr, a program that ignores SIGTERM and
// one that leaves a grandchild (both ended with their whole process group), a missing or
// unexecutable program reported as an exit with an error, writes to an agent that stopped
// reading, and no process left when the host process exits by an uncaught error; the headless
// command's --once ends by Ctrl-C through its own exit (where the agents' groups are ended).
import { test as nodeTest } from "node:test";
import assert from "node:assert/strict";
import * as childProcess from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ROOT, startHeadless, tmpVault } from "./helpers.mjs";
import { startScriptedServer } from "../peers/anthropic-server.mjs";

/** Each test bounded: a process that is never ended fails it instead of hanging the run. */
const test = (name, run) => nodeTest(name, { timeout: 60_000 }, run);

const NODE_JS = path.join(ROOT, "js-shim/dist/node.js");
const { AgentProcesses, agentSystem } = await import(NODE_JS);
const NODE = process.execPath;

/** A host with a short SIGTERM → SIGKILL grace; its events recorded per process. */
function host({ graceMs = 300 } = {}) {
  const agents = new AgentProcesses({ system: () => agentSystem(childProcess, process, { setTimeout, clearTimeout }), stopGraceMs: graceMs });
  const outputs = new Map();
  const exits = new Map();
  const waiting = new Map();
  agents.events = {
    agentOutput(id, chunk) {
      outputs.set(id, [...(outputs.get(id) ?? []), chunk]);
      waiting.get(`out:${id}`)?.();
    },
    agentExited(id, code, signal, error, stderrTail) {
      assert.ok(!exits.has(id), `process ${id} reported ended twice`);
      exits.set(id, { code, signal, error, stderrTail });
      waiting.get(`exit:${id}`)?.();
    },
  };
  const when = (key, ready) =>
    new Promise((resolve) => {
      const check = () => {
        if (ready()) {
          waiting.delete(key);
          resolve();
        }
      };
      waiting.set(key, check);
      check();
    });
  return {
    agents,
    text: (id) => (outputs.get(id) ?? []).join(""),
    chunks: (id) => outputs.get(id) ?? [],
    exited: (id) => when(`exit:${id}`, () => exits.has(id)).then(() => exits.get(id)),
    output: (id, pattern) => when(`out:${id}`, () => pattern.test((outputs.get(id) ?? []).join(""))),
  };
}

/** A Node program as an agent: `node -e CODE`. */
const script = (code) => ["-e", code];

/** Whether a process is gone (a zombie no one reaped yet counts as gone). */
function gone(pid) {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    return /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return true;
  }
}

async function until(condition) {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
}

test("echoes lines written to it; stopped, it is reported ended by SIGTERM", async () => {
  const h = host();
  h.agents.agentStart(1, NODE, script(`process.stdin.on("data", (d) => process.stdout.write("got " + d));`), {}, tmpdir());
  h.agents.agentWrite(1, '{"jsonrpc":"2.0","id":0,"method":"initialize"}\n');
  h.agents.agentWrite(1, "second\n");
  await h.output(1, /second\n$/);
  assert.match(h.text(1), /^got \{"jsonrpc":"2.0","id":0,"method":"initialize"\}\n(got )?second\n$/);
  h.agents.agentStop(1);
  const exit = await h.exited(1);
  assert.deepEqual({ code: exit.code, signal: exit.signal, error: exit.error }, { code: null, signal: "SIGTERM", error: null });
  assert.deepEqual(h.agents.ids, []);
  h.agents.agentStop(1); // a no-op once ended
  h.agents.agentWrite(1, "late\n"); // dropped, never thrown
});

test("the environment is exactly the one given, and the folder is cwd", async () => {
  const h = host();
  const dir = mkdtempSync(path.join(tmpdir(), "agent-cwd-"));
  const env = { HOME: dir, ANTHROPIC_BASE_URL: "http://127.0.0.1:9", ODD: "a b=c\u00e9" };
  h.agents.agentStart(2, NODE, script("process.stdout.write(JSON.stringify({ env: process.env, cwd: process.cwd() }))"), env, dir);
  const exit = await h.exited(2);
  assert.equal(exit.code, 0, exit.stderrTail);
  const seen = JSON.parse(h.text(2));
  assert.deepEqual(seen.env, env);
  assert.equal(seen.cwd, dir);
  // The host's own environment is a fact for the core to filter.
  assert.equal(h.agents.environment().PATH, process.env.PATH);
});

test("UTF-8 split across chunks arrives whole; a 16 MB flood arrives complete", async () => {
  const h = host();
  // Every piece ends inside a character; the next is written only once the host passed on what
  // the previous one completed (the test answers each output with a line).
  h.agents.agentStart(3, NODE, script(`
    const bytes = Buffer.from("aé b€ c😀 d\\n");
    const cuts = [2, 6, 11, bytes.length]; // inside é, €, 😀
    let from = 0;
    const next = () => { const to = cuts.shift(); if (to === undefined) return process.exit(0); process.stdout.write(bytes.subarray(from, to)); from = to; };
    require("node:readline").createInterface({ input: process.stdin }).on("line", next);
    next();
  `), {}, tmpdir());
  const record = h.agents.events.agentOutput;
  h.agents.events.agentOutput = (id, chunk) => {
    record(id, chunk);
    h.agents.agentWrite(id, "next\n");
  };
  const exit = await h.exited(3);
  assert.equal(exit.code, 0, exit.stderrTail);
  assert.equal(h.text(3), "aé b€ c😀 d\n");
  assert.deepEqual(h.chunks(3), ["a", "é b", "€ c", "😀 d\n"]);

  const size = 16 * 1024 * 1024;
  h.agents.agentStart(4, NODE, script(`process.stdout.write("x".repeat(${size - 1}) + "\\n");`), {}, tmpdir());
  assert.equal((await h.exited(4)).code, 0);
  assert.equal(h.text(4).length, size);
});

test("an exit code is reported with the last 8 KB of stderr", async () => {
  const h = host();
  h.agents.agentStart(5, NODE, script(`process.stderr.write("e".repeat(20000) + "the last words"); process.exitCode = 3;`), {}, tmpdir());
  const exit = await h.exited(5);
  assert.equal(exit.code, 3);
  assert.equal(exit.signal, null);
  assert.equal(exit.stderrTail.length, 8192);
  assert.ok(exit.stderrTail.endsWith("the last words"));
});

test("a missing program and one that is not executable are exits with an error, never a throw", async () => {
  const h = host();
  h.agents.agentStart(6, "/nonexistent/claude-agent-acp", [], {}, tmpdir());
  const missing = await h.exited(6);
  assert.equal(missing.code, null);
  assert.match(missing.error, /ENOENT/);
  // A bare name is looked up on the PATH given, not the host's.
  h.agents.agentStart(7, "node", ["-e", ""], { PATH: "/nonexistent" }, tmpdir());
  assert.match((await h.exited(7)).error, /ENOENT/);
  const file = path.join(mkdtempSync(path.join(tmpdir(), "agent-noexec-")), "agent");
  writeFileSync(file, "#!/bin/sh\necho hi\n");
  chmodSync(file, 0o644);
  h.agents.agentStart(8, file, [], {}, tmpdir());
  assert.match((await h.exited(8)).error, /EACCES/);
  assert.deepEqual(h.agents.ids, []);
});

test("where programs cannot run, a start is an exit with an error and the environment is empty", async () => {
  const agents = new AgentProcesses({ system: null });
  const exits = [];
  agents.events = { agentOutput() {}, agentExited: (...args) => exits.push(args) };
  assert.deepEqual(agents.environment(), {});
  agents.agentStart(1, NODE, [], {}, tmpdir());
  await until(() => exits.length > 0);
  assert.match(exits[0][3], /cannot start programs/);
});

test("stopping a program that ignores SIGTERM and started a grandchild ends both", async () => {
  const h = host();
  const grandchild = `process.on("SIGTERM", () => {}); console.log("grandchild " + process.pid); setInterval(() => {}, 1000);`;
  h.agents.agentStart(
    9,
    NODE,
    script(`
      process.on("SIGTERM", () => {});
      require("node:child_process").spawn(process.execPath, ["-e", ${JSON.stringify(grandchild)}], { stdio: ["ignore", "inherit", "ignore"] });
      console.log("child " + process.pid);
      setInterval(() => {}, 1000);
    `),
    {},
    tmpdir(),
  );
  await h.output(9, /grandchild \d+/);
  await h.output(9, /child \d+/);
  const pids = [...h.text(9).matchAll(/child (\d+)/g)].map((m) => Number(m[1]));
  assert.equal(pids.length, 2);
  h.agents.agentStop(9);
  const exit = await h.exited(9);
  assert.equal(exit.signal, "SIGKILL");
  await until(() => pids.every(gone));
});

test("a program that ends by itself leaving a grandchild: the grandchild is ended too", async () => {
  const h = host();
  h.agents.agentStart(
    10,
    NODE,
    script(`
      const c = require("node:child_process").spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
      c.unref();
      console.log("grandchild " + c.pid);
    `),
    {},
    tmpdir(),
  );
  const exit = await h.exited(10);
  assert.equal(exit.code, 0);
  const pid = Number(/grandchild (\d+)/.exec(h.text(10))[1]);
  await until(() => gone(pid));
});

test("an agent that stops reading its input is stopped with an error, and writes never throw", async () => {
  const h = host();
  h.agents.agentStart(11, NODE, script(`process.stdin.pause(); console.log("ready"); setInterval(() => {}, 1000);`), {}, tmpdir());
  await h.output(11, /ready/);
  const line = "x".repeat(1024 * 1024 - 1) + "\n";
  for (let i = 0; i < 70; i++) h.agents.agentWrite(11, line);
  const exit = await h.exited(11);
  assert.match(exit.error, /stopped reading its input/);
  // After its end: dropped, not an EPIPE thrown at the host.
  h.agents.agentWrite(11, line);
});

test("the host process ending by an uncaught error leaves no agent process behind", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "agent-host-"));
  const hostScript = path.join(dir, "host.mjs");
  writeFileSync(
    hostScript,
    `
    import * as childProcess from "node:child_process";
    const { AgentProcesses, agentSystem } = await import(${JSON.stringify(NODE_JS)});
    const agents = new AgentProcesses({ system: () => agentSystem(childProcess, process, { setTimeout, clearTimeout }) });
    agents.events = {
      agentOutput(id, text) {
        process.stdout.write(text);
        // Outside the host's own call: an uncaught error of the host process.
        if (/agent \\d+/.test(text)) setImmediate(() => { throw new Error("the host fails"); });
      },
      agentExited() {},
    };
    agents.agentStart(1, process.execPath, ["-e", 'process.on("SIGTERM", () => {}); console.log("agent " + process.pid); setInterval(() => {}, 1000)'], {}, ${JSON.stringify(dir)});
    `,
  );
  const run = childProcess.spawnSync(NODE, [hostScript], { encoding: "utf8", timeout: 60_000 });
  assert.equal(run.status, 1, run.stderr);
  assert.match(run.stderr, /the host fails/);
  const pid = Number(/agent (\d+)/.exec(run.stdout)?.[1]);
  assert.ok(pid > 0, run.stdout);
  await until(() => gone(pid));
});

test("the headless command's --once, stopped by Ctrl-C, exits through its shutdown (exit hooks run), not killed by the signal", async () => {
  const server = await startScriptedServer();
  try {
    server.enqueue({ kind: "hang" });
    const child = startHeadless(["--vault", tmpVault(), "--llm-base-url", server.url, "--model", "scripted", "--once", "wait"]);
    await server.waitForRequests(1, 30_000);
    child.kill("SIGINT");
    assert.deepEqual(await child.done, { code: 130, signal: null }, child.stderrText);
  } finally {
    await server.close();
  }
});
