// A job that names an ACP agent while the settings say Built-in (no --agent; --agent-command
// gives the agent's command): the core wants the `smarthole` tools' listener for the job, the
// host opens it — when the job is created in chat (the core's `agent_tools_wanted` event), and
// when it was stored before the start — and the job's run reads a note through it.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { startScriptedServer } from "../peers/anthropic-server.mjs";
import { startHeadless, tmpVault, waitFor } from "./helpers.mjs";
import { fakeAgent, noAgentLeft } from "./acp-plugin-peers.mjs";

let model;
before(async () => {
  model = await startScriptedServer();
});
after(() => model.close());

/** The scripted agent: each turn reads Note.md through the `smarthole` server. */
function noteReader() {
  return fakeAgent({ turns: [{ steps: [{ chunk: "Read: " }, { mcpCall: { name: "read_file", arguments: { path: "Note.md" } } }] }] });
}

/** The headless command on the built-in agent, with `command` for jobs naming `acp`. */
function builtinWithAgentCommand(vault, command) {
  return startHeadless(["--vault", vault, "--llm-base-url", model.url, "--model", "scripted", "--agent-command", command], { stdin: "pipe" });
}

/** The job's run read the note through the listener the host opened for it. */
function assertRanWithTools(agent, child) {
  assert.match(child.stderrText, /\[scheduled run\] Scheduled task “.*” ran: Read: [\s\S]*tulips in the note/, child.stderrText);
  const [prompt] = agent.read("session/prompt");
  assert.match(prompt.params.prompt[0].text, /Read the note\./);
  const [session] = agent.read("session/new");
  assert.match(session.params.mcpServers[0].url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  assert.doesNotMatch(child.stderrText, /could not listen|did not open it/);
}

test("a job created in chat that names the ACP agent runs on it with the smarthole tools, the settings on Built-in", { timeout: 60_000 }, async () => {
  const vault = tmpVault();
  writeFileSync(path.join(vault, "Note.md"), "tulips in the note\n");
  const agent = noteReader();
  const child = builtinWithAgentCommand(vault, agent.command);
  try {
    model.enqueue(
      { kind: "tool_use", tools: [{ id: "c1", name: "create_schedule", input: { type: "immediate", task: "Read the note.", agent: "acp" } }] },
      { kind: "text", text: "Scheduled." },
    );
    child.stdin.write("have my agent read the note\n");
    await waitFor(() => child.stderrText.includes("[scheduled run]"), 30_000, "the scheduled run");
    assertRanWithTools(agent, child);
  } finally {
    child.stdin.end();
    await child.done;
  }
  await noAgentLeft(agent.starts().map((s) => s.pid));
});

test("a stored job that names the ACP agent runs on it with the smarthole tools after a start on Built-in", { timeout: 60_000 }, async () => {
  const vault = tmpVault();
  writeFileSync(path.join(vault, "Note.md"), "tulips in the note\n");
  const dir = path.join(vault, ".smarthole/conversations");
  mkdirSync(dir, { recursive: true });
  const now = new Date().toISOString();
  const runAt = new Date(Date.now() + 1_000).toISOString();
  const job = {
    id: "c-job",
    status: "background",
    title: "Note reader",
    createdAt: now,
    state: { context: {}, data: {} },
    schedule: { type: "scheduled", runAt, nextRunAt: runAt, task: "Read the note.", runs: 0, failures: 0, paused: false, agent: "acp" },
  };
  writeFileSync(path.join(dir, "index.json"), JSON.stringify({ current: null, conversations: [job] }));
  const agent = noteReader();
  const child = builtinWithAgentCommand(vault, agent.command);
  try {
    await waitFor(() => child.stderrText.includes("[scheduled run]"), 30_000, "the scheduled run");
    assertRanWithTools(agent, child);
  } finally {
    child.stdin.end();
    await child.done;
  }
  await noAgentLeft(agent.starts().map((s) => s.pid));
});
