// The headless process is SIGKILLed after the inbox write, after the ack, mid-stream, and after
// recording but before cleanup; after each restart every message is in history exactly once and
// the inbox is empty.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startScriptedServer } from "../peers/anthropic-server.mjs";
import { tmpVault, runHeadless, once, history, inbox, timesRecorded } from "./helpers.mjs";

let server;
before(async () => {
  server = await startScriptedServer({ fallback: { kind: "text", text: "Recorded answer.", delayMs: 2 } });
});
after(() => server.close());

const POINTS = ["inbox_written", "ack_sent", "text_delta", "history_recorded"];

for (const point of POINTS) {
  test(`SIGKILL at ${point}, then a restart finishes the message exactly once`, async () => {
    const vault = tmpVault();
    const message = { id: `msg-${point}`, text: `remember ${point}`, source: "websocket", timestamp: new Date().toISOString() };
    const killed = await runHeadless(["--vault", vault, "--llm-base-url", server.url, "--once-json", JSON.stringify(message)], {
      env: { SMARTHOLE_TEST_KILL_AT: point },
    });
    assert.equal(killed.signal, "SIGKILL", `killed at ${point}: ${killed.stderr}`);
    assert.deepEqual(inbox(vault).filter((f) => f.endsWith(".json")), [`msg-${point}.json`]);
    const recordedBefore = timesRecorded(vault, message.text);
    assert.equal(recordedBefore, point === "history_recorded" ? 1 : 0);

    const restart = await once(vault, server.url, "after the restart");
    assert.equal(restart.code, 0, restart.stderr);
    assert.match(restart.stderr, /finished 1 message\(s\) left by an earlier run/);
    assert.equal(timesRecorded(vault, message.text), 1, "exactly once");
    assert.equal(timesRecorded(vault, "after the restart"), 1);
    assert.deepEqual(inbox(vault), []);
    // Every turn in the file is whole.
    for (const line of history(vault)) assert.ok(line.messageId && Array.isArray(line.content));
  });
}

test("repeated kills, each start finishing the last one's message, never lose or duplicate one", async () => {
  const vault = tmpVault();
  const sent = [];
  for (let i = 0; i < 12; i++) {
    const point = POINTS[i % POINTS.length];
    const message = { id: `m${i}`, text: `message ${i}`, source: i % 2 ? "websocket" : "direct", timestamp: new Date().toISOString() };
    sent.push(message.text);
    const run = await runHeadless(["--vault", vault, "--llm-base-url", server.url, "--once-json", JSON.stringify(message)], {
      env: { SMARTHOLE_TEST_KILL_AT: `${point}@${message.id}` },
    });
    assert.equal(run.signal, "SIGKILL", `run ${i} was killed at ${point}`);
  }
  const final = await once(vault, server.url, "final");
  assert.equal(final.code, 0, final.stderr);
  for (const text of [...sent, "final"]) assert.equal(timesRecorded(vault, text), 1, text);
  assert.deepEqual(inbox(vault), []);
});

test("a message whose run takes the app down twice is set aside at the next start, not replayed into a third crash", async () => {
  const vault = tmpVault();
  const poison = { id: "poison", text: "the message that crashes", source: "direct", timestamp: new Date().toISOString() };
  const kill = { env: { SMARTHOLE_TEST_KILL_AT: "text_delta@poison" } };
  const first = await runHeadless(["--vault", vault, "--llm-base-url", server.url, "--once-json", JSON.stringify(poison)], kill);
  assert.equal(first.signal, "SIGKILL");
  // The next start runs it again, into the same crash.
  const second = await once(vault, server.url, "a second start", [], kill);
  assert.equal(second.signal, "SIGKILL", second.stderr);
  const requests = server.requests.length;
  const third = await once(vault, server.url, "a third start");
  assert.equal(third.code, 0, third.stderr);
  assert.match(third.stderr, /set aside in \.smarthole\/failed\/poison\.json: "the message that crashes": working on it stopped the app or the agent's core 2 times/);
  assert.equal(timesRecorded(vault, poison.text), 0, "not run a third time");
  assert.equal(timesRecorded(vault, "a third start"), 1);
  assert.equal(server.requests.length, requests + 1, "only the new message called the model");
  assert.deepEqual(inbox(vault), []);
});
