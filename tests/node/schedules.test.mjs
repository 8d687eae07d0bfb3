// Schedules through the headless host: croner's times across daylight-saving changes (the same
// table the native tests check against croner's Rust port), and a schedule created in chat by
// the scripted model that the worker runs at its time, as a `worker` message.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { startScriptedServer } from "../peers/anthropic-server.mjs";
import { ROOT, history, startHeadless, tmpVault, waitFor } from "./helpers.mjs";

const { cronNext } = await import(path.join(ROOT, "js-shim/dist/node.js"));

let model;
before(async () => {
  model = await startScriptedServer();
});
after(() => model.close());

function series(expression, zone, start, n = 5) {
  const out = [];
  let t = Date.parse(start);
  for (let i = 0; i < n; i++) {
    t = cronNext(expression, zone, t);
    out.push(new Date(t).toISOString());
  }
  return out;
}

test("cron times in the user's zone across both daylight-saving changes (croner)", () => {
  assert.deepEqual(series("30 2 * * *", "Europe/Paris", "2026-03-26T12:00:00Z"), [
    "2026-03-27T01:30:00.000Z",
    "2026-03-28T01:30:00.000Z",
    "2026-03-29T01:00:00.000Z",
    "2026-03-30T00:30:00.000Z",
    "2026-03-31T00:30:00.000Z",
  ]);
  assert.deepEqual(series("30 2 * * *", "Europe/Paris", "2026-10-22T12:00:00Z"), [
    "2026-10-23T00:30:00.000Z",
    "2026-10-24T00:30:00.000Z",
    "2026-10-25T00:30:00.000Z",
    "2026-10-26T01:30:00.000Z",
    "2026-10-27T01:30:00.000Z",
  ]);
  assert.throws(() => cronNext("0 8 * * * *", "UTC", 0), /exactly 5 parts/);
  assert.throws(() => cronNext("0 8 * * *", "Mars/Base", 0), /Invalid timezone/);
});

test("the model schedules a run in chat; the worker runs it at its time as a worker message", async () => {
  const vault = tmpVault();
  const child = startHeadless(["--vault", vault, "--llm-base-url", model.url, "--model", "scripted"], { stdin: "pipe" });
  try {
    const runAt = new Date(Date.now() + 4_000).toISOString();
    const from = model.requests.length;
    model.enqueue(
      { kind: "tool_use", tools: [{ id: "c1", name: "create_schedule", input: { type: "scheduled", run_at: runAt, task: "Remind the user to stretch." } }] },
      { kind: "text", text: "I will remind you in a few seconds." },
      { kind: "text", text: "Time to stretch!" },
    );
    child.stdin.write("remind me to stretch in a few seconds\n");
    await waitFor(() => child.stderrText.includes("[scheduled run]"), 30_000, "the scheduled run");
    assert.match(child.stderrText, /\[scheduled run\] Scheduled task “.*” ran: Time to stretch!/);
    const run = model.requests.slice(from).find((r) => JSON.stringify(r.body.messages).includes("Scheduled run ("));
    assert.ok(run, "the run went to the model");
    const lines = history(vault);
    const worker = lines.filter((l) => l.source === "worker");
    assert.deepEqual(worker.map((l) => l.role), ["user", "assistant"]);
    assert.ok(Date.parse(worker[0].ts) >= Date.parse(runAt), `ran at ${worker[0].ts}, not before ${runAt}`);
    assert.equal(worker[1].content[0].text, "Time to stretch!");
  } finally {
    child.stdin.end();
    await child.done;
  }
});

test("with a background model on its own server, the scheduled run goes there (with its key, never the chat's); the chat stays on its model", async () => {
  const background = await startScriptedServer({ fallback: { kind: "text", text: "Stretched." } });
  const vault = tmpVault();
  const child = startHeadless(
    [
      "--vault", vault, "--llm-base-url", model.url, "--model", "chat-model",
      "--background-model", "cheap-model", "--background-base-url", background.url,
      "--background-auth", "bearer", "--background-key-env", "BACKGROUND_KEY",
    ],
    { stdin: "pipe", env: { ANTHROPIC_API_KEY: "chat-secret", BACKGROUND_KEY: "local-secret" } },
  );
  try {
    const from = model.requests.length;
    model.enqueue(
      { kind: "tool_use", tools: [{ id: "c1", name: "create_schedule", input: { type: "immediate", task: "Remind the user to stretch." } }] },
      { kind: "text", text: "Scheduled." },
    );
    child.stdin.write("remind me to stretch\n");
    await waitFor(() => child.stderrText.includes("[scheduled run]"), 30_000, "the scheduled run");
    const chat = model.requests.slice(from);
    assert.equal(chat.length, 2, "the chat's two calls only");
    assert.ok(chat.every((r) => r.body.model === "chat-model" && r.headers["x-api-key"] === "chat-secret"));
    const runs = background.requests.filter((r) => JSON.stringify(r.body?.messages ?? "").includes("Scheduled run ("));
    assert.equal(runs.length, 1, "the run went to the background server");
    assert.equal(runs[0].body.model, "cheap-model");
    assert.equal(runs[0].headers.authorization, "Bearer local-secret");
    assert.equal(runs[0].headers["x-api-key"], undefined);
    assert.ok(!JSON.stringify(runs[0].headers).includes("chat-secret"), "the chat's key never goes to the background server");
    assert.deepEqual(runs[0].schemaErrors, []);
  } finally {
    child.stdin.end();
    await child.done;
    await background.close();
  }
});
