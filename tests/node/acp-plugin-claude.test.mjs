// The plugin with the REAL Claude Code adapter (claude-agent-acp, pinned; tests/node/acp-recipes.mjs),
// end to end through the headless command (`--agent claude-code --agent-command <its program>`),
// offline against the scripted Anthropic server: a streamed answer, Stop mid-stream, the agent
// killed mid-turn (answered once at the next start), and the headless command itself killed
// mid-turn (SIGKILL: nothing of it runs to stop the agent) — the next start ends the agent it
// left; a scheduled job that names Claude Code run by it, then a message routed by the hub
// answered by it and seen on the hub. After each, no process of the agent is left.
import { test as nodeTest, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { startScriptedServer } from "../peers/anthropic-server.mjs";
import { startHub } from "../peers/hub.mjs";
import { RECIPES } from "./acp-recipes.mjs";
import { history, inbox, timesRecorded, tmpVault, waitFor } from "./helpers.mjs";
import { childrenOf, groupMembers, headlessWithAgent, noAgentLeft, onceResult, printed, scratch, stop } from "./acp-plugin-peers.mjs";

const test = (name, run) => nodeTest(name, { timeout: 120_000 }, run);

let server;
before(async () => {
  server = await startScriptedServer({ fallback: { kind: "text", text: "ok" } });
});
after(() => server.close());

/** The headless command with Claude Code as its agent, pointed at the scripted server. */
function withClaude(vault, { args = [], stdin = "pipe", home = scratch("acp-claude-home-") } = {}) {
  const recipe = RECIPES.claude({ modelUrl: server.url, home });
  const child = headlessWithAgent(vault, recipe.command, { agent: "claude-code", args, env: { ...recipe.env, HOME: home }, stdin });
  return child;
}

/** A slow streamed answer: Stop and kills land in its middle. */
const SLOW = { kind: "text", chunks: ["Counting: one, ", ...Array.from({ length: 60 }, (_, i) => `${i + 2}, `)], delayMs: 500 };

/** The agent processes (adapter pids, each its group's leader) the headless command started. */
async function agentOf(child) {
  await waitFor(() => childrenOf(child.pid).length > 0, 20_000, "the agent process");
  return childrenOf(child.pid);
}

test("Claude Code: a streamed answer from its model printed and recorded; nothing left after", async () => {
  const vault = tmpVault();
  server.enqueue({ kind: "text", text: "Tulips go in the ground in autumn." });
  const child = withClaude(vault, { args: ["--once", "when do tulips go in?"], stdin: "ignore" });
  const agents = await agentOf(child);
  const { code } = await child.done;
  assert.equal(code, 0, child.stderrText);
  const result = onceResult(child);
  assert.equal(result.response, "Tulips go in the ground in autumn.");
  assert.equal(result.notice, undefined, "it reached the smarthole server, although it used no tool");
  assert.match(child.stderrText, /Tulips go in the ground in autumn\./, "streamed to the terminal");
  assert.deepEqual(history(vault).map((l) => [l.role, l.content[0].text]), [
    ["user", "when do tulips go in?"],
    ["assistant", "Tulips go in the ground in autumn."],
  ]);
  await noAgentLeft(agents);
});

test("Claude Code: Stop mid-stream ends the turn, nothing recorded, the next message answered by the same agent", async () => {
  const vault = tmpVault();
  server.enqueue(SLOW, { kind: "text", text: "Here is the short answer." });
  const child = withClaude(vault);
  let agents;
  try {
    child.stdin.write("count to sixty slowly\n");
    agents = await agentOf(child);
    await printed(child, "Counting: one,", 60_000);
    child.kill("SIGINT");
    await printed(child, "[stopped]");
    child.stdin.write("just answer briefly\n");
    await printed(child, "Here is the short answer.", 60_000);
    assert.deepEqual(childrenOf(child.pid), agents, "the same agent answered");
  } finally {
    child.stdin.end();
    await child.done;
  }
  assert.equal(timesRecorded(vault, "count to sixty slowly"), 0);
  assert.equal(timesRecorded(vault, "just answer briefly"), 1);
  await noAgentLeft(agents);
});

test("Claude Code killed mid-turn: a clear error, the message kept; the next start answers it once", async () => {
  const vault = tmpVault();
  server.enqueue(SLOW);
  const child = withClaude(vault, { args: ["--once", "tell me about roses"], stdin: "ignore" });
  const agents = await agentOf(child);
  await printed(child, "Counting: one,", 60_000);
  process.kill(agents[0], "SIGKILL");
  const { code } = await child.done;
  assert.equal(code, 1);
  assert.match(onceResult(child).error, /Claude Code stopped in the middle of its answer \(killed by SIGKILL\)/);
  assert.equal(inbox(vault).length, 2, "the message is kept, with its run's journal");
  await noAgentLeft(agents, "the adapter's own children (claude) ended with it");

  server.enqueue({ kind: "text", text: "Roses like sun." }, { kind: "text", text: "You are welcome." });
  const next = withClaude(vault, { args: ["--once", "thanks"], stdin: "ignore" });
  const nextAgents = await agentOf(next);
  assert.equal((await next.done).code, 0, next.stderrText);
  assert.match(next.stderrText, /finished 1 message\(s\) left by an earlier run/);
  assert.equal(timesRecorded(vault, "tell me about roses"), 1, "answered once");
  assert.deepEqual(inbox(vault), []);
  await noAgentLeft(nextAgents);
});

test("the headless command killed (SIGKILL) mid-turn: the next start ends the Claude Code agent it left", async () => {
  const vault = tmpVault();
  const home = scratch("acp-claude-home-");
  // The model never finishes: the agent waits on it, writing nothing (a write to the dead host's
  // pipe would end it), as it does between a request and a slow model's first token.
  server.enqueue({ kind: "hang" });
  const posts = () => server.requests.filter((r) => r.method === "POST").length;
  const before = posts();
  const child = withClaude(vault, { args: ["--once", "count for me"], stdin: "ignore", home });
  const agents = await agentOf(child);
  await waitFor(() => posts() > before, 60_000, "the agent's model request");
  child.kill("SIGKILL");
  await child.done;
  assert.ok(groupMembers(agents[0]).length > 0, "the adapter outlives a killed host (its stdin closed)");

  try {
    server.enqueue({ kind: "text", text: "One to sixty." }, { kind: "text", text: "Yes." });
    const next = withClaude(vault, { args: ["--once", "are you there?"], stdin: "ignore", home });
    await noAgentLeft(agents, "the agent left by the killed host");
    assert.equal((await next.done).code, 0, next.stderrText);
    assert.equal(timesRecorded(vault, "count for me"), 1, "the message it left answered once");
  } finally {
    // What a failure left is not left for the next tests.
    for (const group of agents) {
      try {
        process.kill(-group, "SIGKILL");
      } catch {
        // gone
      }
    }
  }
});

test("Claude Code runs a scheduled job that names it, then answers a message routed by the hub, seen on the hub", async () => {
  const hub = await startHub();
  const vault = tmpVault();
  const dir = path.join(vault, ".smarthole/conversations");
  mkdirSync(dir, { recursive: true });
  // Due at the start: it runs before the hub's message is routed, so each gets its own answer.
  const runAt = new Date(Date.now() - 1_000).toISOString();
  const job = {
    id: "c-job",
    status: "background",
    title: "Stretch reminder",
    createdAt: runAt,
    state: { context: {}, data: {} },
    schedule: { type: "scheduled", runAt, nextRunAt: runAt, task: "Remind the user to stretch.", runs: 0, failures: 0, paused: false, agent: "claude-code" },
  };
  writeFileSync(path.join(dir, "index.json"), JSON.stringify({ current: null, conversations: [job] }));
  server.enqueue({ kind: "text", text: "Time to stretch!" }, { kind: "text", text: "Added oat milk to your list." });
  const child = withClaude(vault, { args: ["--hub", hub.url, "--hub-name", "obsidian"] });
  let agents = [];
  try {
    await printed(child, "[scheduled run]", 60_000);
    agents = childrenOf(child.pid);
    assert.match(child.stderrText, /\[scheduled run\] Scheduled task “.*” ran: Time to stretch!/);
    const worker = history(vault).filter((l) => l.source === "worker");
    assert.deepEqual(worker.map((l) => [l.role, l.content[0].text]).at(-1), ["assistant", "Time to stretch!"]);
    const jobRequest = server.requests.filter((r) => r.method === "POST").at(-1).body;
    assert.match(JSON.stringify(jobRequest.messages), /Remind the user to stretch\./, "the job's task reached the model");
    assert.ok(jobRequest.tools.some((t) => t.name === "Read"), "asked by Claude Code (its own Read tool offered)");

    await hub.waitFor(() => hub.clients().some((c) => c.name === "obsidian"), 10_000, "registration");
    const id = hub.route("obsidian", { text: "add oat milk to my shopping list" });
    await hub.waitFor(() => hub.messages.get(id).notifications.length === 1, 60_000, "the notification");
    const m = hub.messages.get(id);
    agents = [...new Set([...agents, ...childrenOf(child.pid)])];
    assert.equal(m.outcome, "acked");
    assert.equal(m.notifications[0].body, "Added oat milk to your list.");
    assert.deepEqual(hub.protocolErrors, []);
    await waitFor(() => history(vault).some((l) => l.source === "websocket" && l.role === "assistant"), 10_000, "the hub's turn in history");
    assert.deepEqual(history(vault).filter((l) => l.source === "websocket").map((l) => [l.role, l.content[0].text]), [
      ["user", "add oat milk to my shopping list"],
      ["assistant", "Added oat milk to your list."],
    ]);
  } finally {
    child.stdin.end();
    await stop(child);
    await hub.close();
  }
  await noAgentLeft(agents);
});
