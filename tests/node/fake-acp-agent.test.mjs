// The scripted ACP agent (tests/node/fake-acp-agent.mjs) does what its script says: streamed
// chunks, tool calls, plans and usage; a permission request whose answer picks what follows; a
// cancel that ends a silent turn `cancelled`; garbage lines; an exit mid-turn; an older protocol
// version; an initialize never answered; what it read logged. The plugin's end-to-end tests
// rely on each of these.
import { test as nodeTest } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { INITIALIZE, startFake } from "./acp-peers.mjs";

/** Each test bounded: a turn never answered fails it instead of hanging the run. */
const test = (name, run) => nodeTest(name, { timeout: 30_000 }, run);

async function session(agent) {
  await agent.request("initialize", INITIALIZE);
  return (await agent.request("session/new", { cwd: tmpdir(), mcpServers: [] })).sessionId;
}
const ask = (agent, sessionId, text = "hi") => agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });

test("a scripted turn: chunks, a tool call and its update, a plan, usage, then end_turn", async () => {
  const agent = startFake({
    turns: [
      {
        steps: [
          { chunk: "Reading " },
          { toolCall: { toolCallId: "t1", title: "Read Garden.md", kind: "read" } },
          { toolCallUpdate: { toolCallId: "t1", status: "completed" } },
          { plan: [{ content: "answer", priority: "high", status: "in_progress" }] },
          { chunk: "done." },
          { usage: { used: 120, size: 200000 } },
        ],
      },
    ],
  });
  const sessionId = await session(agent);
  assert.deepEqual(await ask(agent, sessionId), { stopReason: "end_turn" });
  assert.deepEqual(
    agent.updates(sessionId).map((u) => u.sessionUpdate),
    ["agent_message_chunk", "tool_call", "tool_call_update", "plan", "agent_message_chunk", "usage_update"],
  );
  assert.equal((await ask(agent, sessionId)).stopReason, "end_turn", "past the script: a plain answer");
  await agent.close();
});

test("a permission request: the answer picks the steps that follow; a cancel while it waits ends the turn cancelled", async () => {
  const permission = { toolCall: { toolCallId: "e1", title: "Edit Garden.md", kind: "edit" }, options: [{ optionId: "allow", name: "Allow", kind: "allow_once" }, { optionId: "reject", name: "Reject", kind: "reject_once" }] };
  const agent = startFake({
    turns: [
      { steps: [{ permission, then: { allow: [{ chunk: "edited" }], reject: [{ chunk: "left alone" }] } }] },
      { steps: [{ permission }] },
    ],
  });
  const sessionId = await session(agent);
  agent.handlers.set("session/request_permission", () => ({ outcome: { outcome: "selected", optionId: "reject" } }));
  await ask(agent, sessionId);
  assert.deepEqual(agent.updates(sessionId).map((u) => u.content?.text), ["left alone"]);
  agent.handlers.set("session/request_permission", () => new Promise(() => {}));
  const second = ask(agent, sessionId);
  await agent.until((log) => log.filter((e) => e.msg?.method === "session/request_permission").length === 2);
  agent.notify("session/cancel", { sessionId });
  assert.equal((await second).stopReason, "cancelled");
  await agent.close();
});

test("silence until cancelled; garbage lines; an unknown method answered -32601", async () => {
  const agent = startFake({ turns: [{ steps: [{ chunk: "thinking" }, { garbage: "this is not JSON" }, { silence: true }] }] });
  const sessionId = await session(agent);
  const turn = ask(agent, sessionId);
  await agent.until((log) => log.some((e) => e.raw === "this is not JSON"));
  agent.notify("session/cancel", { sessionId });
  assert.equal((await turn).stopReason, "cancelled");
  await assert.rejects(agent.request("unknown/thing", {}), /-32601/);
  await agent.close();
});

test("an exit mid-turn with its stderr; an older protocol version; an initialize never answered", async () => {
  const dying = startFake({ turns: [{ steps: [{ chunk: "half" }, { stderr: "agent crashed: out of tokens" }, { exit: 3 }] }] });
  const sessionId = await session(dying);
  await assert.rejects(ask(dying, sessionId), /exited \(3\)[^]*out of tokens/);
  assert.deepEqual(await dying.exited, { code: 3, signal: null });

  const old = startFake({ protocolVersion: 0 });
  assert.equal((await old.request("initialize", INITIALIZE)).protocolVersion, 0);
  await old.close();

  const mute = startFake({ initialize: "silent" });
  mute.notify("ping", {});
  const answered = mute.request("initialize", INITIALIZE).then(() => true, () => false);
  await mute.until((log) => log.some((e) => e.dir === "out" && e.msg.method === "initialize"));
  await mute.close();
  assert.equal(await answered, false, "never answered: it ended first");
});

test("a flood of output, and its log of what it read and its environment", async () => {
  const log = path.join(mkdtempSync(path.join(tmpdir(), "fake-acp-")), "log.jsonl");
  const agent = startFake({ turns: [{ steps: [{ flood: 4 * 1024 * 1024 }] }] }, { env: { FAKE_ACP_LOG: log, ONLY_THIS: "1" } });
  const sessionId = await session(agent);
  await ask(agent, sessionId);
  const text = agent.updates(sessionId).map((u) => u.content.text).join("");
  assert.equal(text.length, 4 * 1024 * 1024);
  await agent.close();
  const entries = readFileSync(log, "utf8").trim().split("\n").map((l) => JSON.parse(l));
  assert.equal(entries[0].start.env.ONLY_THIS, "1");
  assert.deepEqual(entries.filter((e) => e.in).map((e) => e.in.method), ["initialize", "session/new", "session/prompt"]);
});
