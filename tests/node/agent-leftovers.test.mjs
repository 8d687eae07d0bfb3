// The record of the agents a host started (js-shim/src/core/agent-leftovers.ts) with the core's
// rule (agentLeftovers; its cases: tests/acp_leftovers.rs): the next start ends a recorded group
// whose leader is still that agent, and never a pid the system has given to another program
// since. (End to end with the real Claude Code adapter and a host killed outright:
// acp-plugin-claude.test.mjs.)
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { ROOT, waitFor } from "./helpers.mjs";
import { groupMembers } from "./acp-plugin-peers.mjs";

const { AgentProcesses, AgentRecords, agentSystem, loadCore } = await import(path.join(ROOT, "js-shim/dist/node.js"));
const { agentLeftovers } = await loadCore();
const childProcess = await import("node:child_process");
const fs = await import("node:fs");

/** A process in its own group, as the host starts an agent, once it runs its program. */
async function groupLeader(args) {
  const child = spawn("sleep", args, { detached: true, stdio: "ignore" });
  child.unref();
  await waitFor(() => groupMembers(child.pid).some((line) => line.includes(args.join(" "))), 5_000, "sleep to run");
  return child.pid;
}

function records(file) {
  const system = agentSystem(childProcess, process, { setTimeout, clearTimeout }, fs);
  const log = [];
  const r = new AgentRecords(
    { read: () => system.readFile(file), write: (text) => system.writeFile(file, text), commandLine: (pid) => system.commandLine(pid), killGroup: (group) => process.kill(-group, "SIGKILL") },
    (message) => log.push(message),
  );
  return { r, log };
}

test("the next start ends the recorded agent still running, leaves a reused pid alone, and forgets both", async () => {
  const file = path.join(fs.mkdtempSync(path.join((await import("node:os")).tmpdir(), "agent-records-")), "agent-processes.json");
  const agent = await groupLeader(["1000", "7"]);
  const other = await groupLeader(["1001"]);
  try {
    const first = records(file);
    first.r.started({ pid: agent, command: "/bin/sleep", args: ["1000", "7"] });
    // A pid the system gave to another program since it was recorded.
    first.r.started({ pid: other, command: "/opt/claude-agent-acp", args: [] });
    assert.equal(JSON.parse(readFileSync(file, "utf8")).length, 2);

    const next = records(file);
    assert.deepEqual(next.r.endLeftovers(agentLeftovers), [agent], next.log.join("\n"));
    await waitFor(() => groupMembers(agent).length === 0, 5_000, "the recorded agent to end");
    assert.equal(groupMembers(other).length, 1, "another program is never killed");
    assert.match(next.log.join("\n"), /no longer the agent started earlier/);
    assert.deepEqual(JSON.parse(readFileSync(file, "utf8")), []);
    assert.ok(existsSync(file));
  } finally {
    for (const pid of [agent, other]) {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        // gone
      }
    }
  }
});

/** An AgentProcesses over Node's calls whose record and starts are watched: `order` lists each
 * reading of the record and each program started, in turn. */
function watchedHost(file) {
  const order = [];
  const node = agentSystem(childProcess, process, { setTimeout, clearTimeout }, fs);
  const system = {
    ...node,
    readFile: (f) => (order.push("record read"), node.readFile(f)),
    spawn: (command, ...rest) => (order.push(`started ${path.basename(command)}`), node.spawn(command, ...rest)),
  };
  const agents = new AgentProcesses({ system: () => system, recordFile: () => file, stopGraceMs: 100 });
  agents.events = { agentOutput() {}, agentExited() {} };
  return { agents, order };
}

test("the record of a killed host's agents is read once Send is enabled, or before the first agent starts if that comes first", async () => {
  const dir = fs.mkdtempSync(path.join((await import("node:os")).tmpdir(), "agent-records-"));
  const file = path.join(dir, "agent-processes.json");
  fs.writeFileSync(file, "[]");

  // Kept at the start; applied when the runtime calls endLeftovers() after it is ready; once.
  const ready = watchedHost(file);
  ready.agents.endLeftoversLater(agentLeftovers);
  assert.deepEqual(ready.order, [], "nothing read at the start");
  ready.agents.endLeftovers();
  ready.agents.endLeftovers();
  assert.deepEqual(ready.order, ["record read"]);

  // An agent started first (a message left by the earlier run, answered before ready): the
  // record is read just before it starts, and the agent started is recorded.
  const early = watchedHost(file);
  early.agents.endLeftoversLater(agentLeftovers);
  early.agents.agentStart(1, process.execPath, ["-e", "setTimeout(() => {}, 10000)"], {}, dir);
  assert.deepEqual(early.order, ["record read", `started ${path.basename(process.execPath)}`]);
  assert.equal(JSON.parse(readFileSync(file, "utf8")).length, 1, "the agent started is recorded");
  early.agents.endLeftovers();
  assert.equal(early.order.length, 2, "not read again");
  early.agents.stopAll();
});
