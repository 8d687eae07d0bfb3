// Issue 16 end to end, in real time (about 3.5 minutes): the model is down for two minutes while a
// message routed by the hub waits. The headless host keeps running; its attempts run out, the
// message waits and is tried again later in the same session (1 minute, then 2), and is answered
// once the model is back — acked once, recorded once, the inbox empty, no restart.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startHub } from "../peers/hub.mjs";
import { startEchoModel } from "../peers/echo-model.mjs";
import { inbox, startHeadless, timesRecorded, tmpVault, waitFor } from "./helpers.mjs";

const OUTAGE_MS = 120_000;

test("a model down for two minutes: the message is answered once it is back, without a restart", { timeout: 420_000 }, async (t) => {
  const model = await startEchoModel((text) => `Answered: ${text}`);
  model.down = true;
  const hub = await startHub({ answerDeadlineMs: 400_000 });
  const vault = tmpVault();
  const child = startHeadless(["--vault", vault, "--llm-base-url", model.url, "--model", "echo", "--no-stream", "--hub", hub.url], { stdin: "pipe" });
  t.after(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await child.done;
    await hub.close();
    await model.close();
  });
  await hub.waitFor(() => hub.clients().length === 1, 15_000, "registration");
  const started = Date.now();
  const id = hub.route("obsidian", { text: "what is on my list" });
  await hub.waitFor(() => hub.messages.get(id).acked, 10_000, "the ack");
  await waitFor(() => /Waiting to try again in 1 min \(attempt 2 of 5\)/.test(child.stderrText), 60_000, "the first wait");
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, OUTAGE_MS - (Date.now() - started))));
  model.down = false;
  const refusedWhileDown = model.refused;
  await waitFor(() => timesRecorded(vault, "what is on my list") === 1, 240_000, "the answer once the model is back");
  await hub.waitFor(() => hub.visibleText().includes("Answered: what is on my list"), 30_000, "the answer on the hub's screen");
  assert.ok(refusedWhileDown >= 2, `the model was tried while down (${refusedWhileDown} refusals)`);
  assert.equal(child.exitCode, null, "the same process answered: no restart");
  assert.equal(hub.messages.get(id).deliveries, 1, "delivered once");
  assert.equal(timesRecorded(vault, "what is on my list"), 1, "recorded once");
  await waitFor(() => inbox(vault).filter((f) => f.endsWith(".json")).length === 0, 10_000, "the inbox empty");
  assert.deepEqual(hub.protocolErrors, []);
});
