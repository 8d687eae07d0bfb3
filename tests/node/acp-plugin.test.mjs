// The plugin with the user's own agent, end to end: the headless command with `--agent acp
// --agent-command "node fake-acp-agent.mjs …"` (a scripted ACP agent, tests/node/fake-acp-agent.mjs)
// — a streamed turn, Stop mid-stream, the agent killed mid-turn and the message answered at the
// next start, the agent's faults as clear errors, a missing program, the agent's clean
// environment, a message routed by the hub, a scheduled job; after each, no agent process left.
import { test as nodeTest } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { startHub } from "../peers/hub.mjs";
import { history, inbox, timesRecorded, tmpVault, waitFor } from "./helpers.mjs";
import { fakeAgent, headlessWithAgent, noAgentLeft, onceResult, printed, stop } from "./acp-plugin-peers.mjs";

/** Each test bounded: a hang fails it instead of the run. */
const test = (name, run) => nodeTest(name, { timeout: 90_000 }, run);

/** One `--once` message through the agent; the run, its result and the agent's pids. */
async function once(vault, agent, text, { args = [], env = {} } = {}) {
  const child = headlessWithAgent(vault, agent.command, { args: [...args, "--once", text], env, stdin: "ignore" });
  const { code } = await child.done;
  return { code, child, result: onceResult(child), pids: agent.starts().map((s) => s.pid) };
}

test("a streamed turn: the agent's chunks printed as they come, the answer recorded, its session kept", async () => {
  const vault = tmpVault();
  const agent = fakeAgent({ turns: [{ steps: [{ chunk: "Plant " }, { chunk: "tulips " }, { chunk: "in autumn." }] }] });
  const { code, child, result, pids } = await once(vault, agent, "what does my garden need?");
  assert.equal(code, 0, child.stderrText);
  assert.equal(result.success, true);
  assert.equal(result.response, "Plant tulips in autumn.");
  assert.match(child.stderrText, /Plant tulips in autumn\./, "streamed to the terminal");
  const [prompt] = agent.read("session/prompt");
  assert.match(prompt.params.prompt[0].text, /what does my garden need\?/);
  assert.equal(agent.read("initialize")[0].params.protocolVersion, 1);
  assert.deepEqual(history(vault).map((l) => [l.role, l.content[0].text]), [
    ["user", "what does my garden need?"],
    ["assistant", "Plant tulips in autumn."],
  ]);
  await noAgentLeft(pids);
});

test("Stop mid-stream (SIGINT in the chat): session/cancel reaches the agent, its prompt ends cancelled, nothing recorded; the next message is answered", async () => {
  const vault = tmpVault();
  const agent = fakeAgent({
    turns: [{ steps: [{ chunk: "Thinking about your garden" }, { silence: true }] }, { steps: [{ chunk: "Second answer." }] }],
  });
  const child = headlessWithAgent(vault, agent.command);
  try {
    child.stdin.write("a long question\n");
    await printed(child, "Thinking about your garden");
    child.kill("SIGINT");
    await waitFor(() => agent.read("session/cancel").length === 1, 10_000, "session/cancel at the agent");
    const [prompt] = agent.read("session/prompt");
    await waitFor(() => agent.wrote().some((m) => m.id === prompt.id && m.result), 10_000, "the prompt's answer");
    assert.equal(agent.wrote().find((m) => m.id === prompt.id).result.stopReason, "cancelled");
    assert.equal(agent.read("session/cancel")[0].params.sessionId, prompt.params.sessionId);
    child.stdin.write("and now?\n");
    await printed(child, "Second answer.");
  } finally {
    child.stdin.end();
    await child.done;
  }
  assert.equal(timesRecorded(vault, "a long question"), 0, "a stopped turn records nothing");
  assert.equal(timesRecorded(vault, "and now?"), 1);
  assert.deepEqual(inbox(vault), []);
  assert.equal(agent.starts().length, 1, "one agent process for both turns");
  await noAgentLeft(agent.starts().map((s) => s.pid));
});

test("the agent killed mid-turn: a clear error, the message kept; the next start answers it once", async () => {
  const vault = tmpVault();
  const dying = fakeAgent({ turns: [{ steps: [{ chunk: "Half an answer" }, { silence: true }] }] });
  const child = headlessWithAgent(vault, dying.command, { args: ["--once", "tell me about roses"], stdin: "ignore" });
  await printed(child, "Half an answer");
  process.kill(dying.starts()[0].pid, "SIGKILL");
  const { code } = await child.done;
  assert.equal(code, 1);
  const failed = onceResult(child);
  assert.equal(failed.success, false);
  assert.match(failed.error, /stopped in the middle of its answer \(killed by SIGKILL\)/);
  assert.equal(inbox(vault).length, 2, "the message is kept, with its run's journal");
  assert.equal(inbox(vault).filter((f) => f.endsWith(".turn.jsonl")).length, 1, "the run's journal");
  assert.equal(timesRecorded(vault, "tell me about roses"), 0);

  const healthy = fakeAgent({ turns: [{ steps: [{ chunk: "Roses like sun." }] }, { steps: [{ chunk: "Yes." }] }] });
  const next = await once(vault, healthy, "anything else?");
  assert.equal(next.code, 0, next.child.stderrText);
  assert.match(next.child.stderrText, /finished 1 message\(s\) left by an earlier run/);
  assert.equal(timesRecorded(vault, "tell me about roses"), 1, "answered once");
  assert.ok(history(vault).some((l) => l.role === "assistant" && l.content[0].text === "Roses like sun."));
  assert.deepEqual(inbox(vault), []);
  const third = await once(vault, fakeAgent({}), "thanks");
  assert.equal(third.code, 0);
  assert.equal(timesRecorded(vault, "tell me about roses"), 1, "never recorded twice");
  await noAgentLeft([...dying.starts(), ...healthy.starts()].map((s) => s.pid));
});

// `prompted`: the run got to its prompt, so its journal is kept beside the message.
for (const [name, script, expected, prompted] of [
  ["speaks protocol version 0", { protocolVersion: 0 }, /speaks ACP protocol version 0; this plugin speaks version 1\. Update/],
  ["prints garbage", { startup: { garbage: ["Welcome to my agent!"] } }, /sent something that is not ACP \(JSON-RPC 2\.0\).*Welcome to my agent!.*Check that .*fake-acp-agent\.mjs.* is an ACP agent/],
  ["floods one endless line", { turns: [{ steps: [{ floodLine: 9 * 1024 * 1024 }] }] }, /sent too much output \(a line longer than 8 MB\); it was stopped/, true],
  ["exits at start", { startup: { stderr: "config file broken", exit: 2 } }, /stopped while starting \(exit code 2\): config file broken/],
]) {
  test(`an agent that ${name}: a clear error naming what to change, the message kept, no process left`, async () => {
    const vault = tmpVault();
    const agent = fakeAgent(script);
    const { code, result, pids } = await once(vault, agent, "hello");
    assert.equal(code, 1);
    assert.equal(result.success, false);
    assert.match(result.error, expected);
    assert.equal(inbox(vault).length, prompted ? 2 : 1, "nothing lost");
    assert.equal(inbox(vault).some((f) => f.endsWith(".turn.jsonl")), Boolean(prompted), "a prompted run's journal");
    assert.equal(timesRecorded(vault, "hello"), 0);
    await noAgentLeft(pids);
  });
}

test("an agent that never answers initialize: stopped with an error naming the command", async () => {
  const vault = tmpVault();
  const agent = fakeAgent({ initialize: "silent" });
  const { code, result, pids } = await once(vault, agent, "hello");
  assert.equal(code, 1);
  assert.match(result.error, /did not answer initialize within \d+ s\. Check that .*node.* is an ACP agent/);
  assert.equal(inbox(vault).length, 1, "nothing lost");
  await noAgentLeft(pids);
});

test("a missing program: the error says how to install it", async () => {
  const vault = tmpVault();
  const child = headlessWithAgent(vault, "/nonexistent/bin/claude-agent-acp", { agent: "claude-code", args: ["--once", "hello"], stdin: "ignore" });
  const { code } = await child.done;
  assert.equal(code, 1);
  const result = onceResult(child);
  assert.match(result.error, /Claude Code could not be started \(\/nonexistent\/bin\/claude-agent-acp: .*ENOENT.*\)\. Install Claude Code's ACP adapter/);
  assert.equal(inbox(vault).length, 1, "nothing lost");
});

test("the agent's environment: PATH, HOME and its preset's prefixes; none of the plugin's secrets", async () => {
  const vault = tmpVault();
  const agent = fakeAgent({});
  const secretToken = "t".repeat(40);
  const env = {
    MY_MODEL_KEY: "sk-my-own-model-key-0123456789",
    SMARTHOLE_API_TOKEN: secretToken,
    ANTHROPIC_API_KEY: "sk-ant-agents-own-key",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    ANTHROPIC_COPY_OF_MY_KEY: "sk-my-own-model-key-0123456789",
    GEMINI_API_KEY: "not-for-claude",
    UNRELATED_VARIABLE: "x",
  };
  const port = 40_000 + Math.floor(Math.random() * 20_000);
  const args = ["--api-key-env", "MY_MODEL_KEY", "--api-port", String(port), "--api-token-env", "SMARTHOLE_API_TOKEN"];
  const child = headlessWithAgent(vault, agent.command, { agent: "claude-code", args: [...args, "--once", "hi"], env, stdin: "ignore" });
  const { code } = await child.done;
  assert.equal(code, 0, child.stderrText);
  const [start] = agent.starts();
  assert.deepEqual(Object.keys(start.env).sort(), ["ANTHROPIC_API_KEY", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "HOME", "PATH"]);
  assert.equal(start.env.ANTHROPIC_API_KEY, "sk-ant-agents-own-key", "the agent's own key is its own");
  const all = JSON.stringify(start);
  for (const secret of [env.MY_MODEL_KEY, secretToken]) assert.ok(!all.includes(secret), "no secret of the plugin's reaches the agent");
  await noAgentLeft([start.pid]);
});

test("a message routed by the hub: answered by the agent, the answer seen on the hub", async () => {
  const hub = await startHub();
  const vault = tmpVault();
  const agent = fakeAgent({ turns: [{ steps: [{ chunk: "Added oat milk " }, { chunk: "to your list." }] }] });
  const child = headlessWithAgent(vault, agent.command, { args: ["--hub", hub.url, "--hub-name", "obsidian"] });
  try {
    await hub.waitFor(() => hub.clients().some((c) => c.name === "obsidian"), 10_000, "registration");
    const id = hub.route("obsidian", { text: "add oat milk to my shopping list" });
    await hub.waitFor(() => hub.messages.get(id).notifications.length === 1, 20_000, "the notification");
    const m = hub.messages.get(id);
    assert.equal(m.outcome, "acked");
    assert.equal(m.notifications[0].body, "Added oat milk to your list.");
    assert.deepEqual(hub.protocolErrors, []);
    await waitFor(() => history(vault).length === 2, 10_000, "the turn in history");
    assert.deepEqual(history(vault).map((l) => [l.role, l.source, l.content[0].text]), [
      ["user", "websocket", "add oat milk to my shopping list"],
      ["assistant", "websocket", "Added oat milk to your list."],
    ]);
  } finally {
    child.stdin.end();
    await stop(child);
    await hub.close();
  }
  await noAgentLeft(agent.starts().map((s) => s.pid));
});

test("a scheduled job that names the agent is run by it at its time", async () => {
  const vault = tmpVault();
  const dir = path.join(vault, ".smarthole/conversations");
  mkdirSync(dir, { recursive: true });
  const now = new Date().toISOString();
  const runAt = new Date(Date.now() + 1_000).toISOString();
  const job = {
    id: "c-job",
    status: "background",
    title: "Stretch reminder",
    createdAt: now,
    state: { context: {}, data: {} },
    schedule: { type: "scheduled", runAt, nextRunAt: runAt, task: "Remind the user to stretch.", runs: 0, failures: 0, paused: false, agent: "acp" },
  };
  writeFileSync(path.join(dir, "index.json"), JSON.stringify({ current: null, conversations: [job] }));
  const agent = fakeAgent({ turns: [{ steps: [{ chunk: "Time to stretch!" }] }] });
  const child = headlessWithAgent(vault, agent.command);
  try {
    await printed(child, "[scheduled run]", 30_000);
    assert.match(child.stderrText, /\[scheduled run\] Scheduled task “.*” ran: Time to stretch!/);
    const [prompt] = agent.read("session/prompt");
    assert.match(prompt.params.prompt[0].text, /Remind the user to stretch\./);
    const worker = history(vault).filter((l) => l.source === "worker");
    assert.deepEqual(worker.map((l) => l.role), ["user", "assistant"]);
    assert.equal(worker[1].content[0].text, "Time to stretch!");
  } finally {
    child.stdin.end();
    await stop(child);
  }
  await noAgentLeft(agent.starts().map((s) => s.pid));
});
