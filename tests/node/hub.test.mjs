// The plugin's hub connection end to end: the headless host (--hub) against a strict
// SmartHole-protocol hub on a real WebSocket, with the scripted Anthropic server as the model.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startHub } from "../peers/hub.mjs";
import { startScriptedServer } from "../peers/anthropic-server.mjs";
import { tmpVault, startHeadless, history, inbox, timesRecorded, waitFor } from "./helpers.mjs";

let model;
before(async () => {
  model = await startScriptedServer({ fallback: { kind: "text", text: "Done." } });
});
after(() => model.close());

/** The headless host serving a hub; resolves once it registered. */
async function serve(vault, hub, { name = "obsidian", env = {}, waitRegistered = true } = {}) {
  const child = startHeadless(["--vault", vault, "--llm-base-url", model.url, "--model", "scripted", "--hub", hub.url, "--hub-name", name], {
    stdin: "pipe",
    env,
  });
  if (waitRegistered) await hub.waitFor(() => hub.clients().some((c) => c.name === name), 10_000, `${name} to register`);
  return child;
}

async function stop(child) {
  if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
  return child.done;
}

test("the hub routes a message: ack, the model's answer, one notification; all in history", async () => {
  const hub = await startHub();
  const vault = tmpVault();
  const child = await serve(vault, hub);
  model.enqueue({ kind: "text", text: "Added **oat milk** to your [[Shopping]] list." });
  const id = hub.route("obsidian", { text: "add oat milk to my shopping list" });
  await hub.waitFor(() => hub.messages.get(id).notifications.length === 1, 10_000, "the notification");
  await waitFor(() => history(vault).length === 2, 5_000, "the turn in history");
  const m = hub.messages.get(id);
  assert.equal(m.outcome, "acked");
  assert.equal(m.deliveries, 1);
  assert.deepEqual(m.notifications[0], { title: "Obsidian", body: "Added oat milk to your Shopping list.", priority: "normal" });
  assert.deepEqual(hub.protocolErrors, [], "the client kept every rule");
  const lines = history(vault);
  assert.deepEqual(lines.map((l) => [l.role, l.source, l.content[0].text]), [
    ["user", "websocket", "add oat milk to my shopping list"],
    ["assistant", "websocket", "Added **oat milk** to your [[Shopping]] list."],
  ]);
  await stop(child);
  await hub.close();
});

test("the hub restarts while a message is processed: nothing lost, the notification arrives after the reconnect, nothing processed twice", async () => {
  let hub = await startHub();
  const port = hub.port;
  const vault = tmpVault();
  const child = await serve(vault, hub);
  const requestsBefore = model.requests.length;
  model.enqueue({ kind: "text", text: "A slow answer that outlives the hub.", delayMs: 150 });
  const id = hub.route("obsidian", { text: "summarise my week" });
  await hub.waitFor(() => hub.messages.get(id).acked, 5_000, "the ack");
  await hub.close();
  hub = await startHub({ port });
  await hub.waitFor(() => hub.clients().some((c) => c.name === "obsidian"), 15_000, "re-registration");
  await hub.waitFor(() => hub.frames.some((f) => f.parsed?.payload?.type === "notification" && f.parsed.payload.messageId === id), 15_000, "the notification");
  await waitFor(() => timesRecorded(vault, "summarise my week") === 1, 5_000, "the turn in history");
  await waitFor(() => inbox(vault).length === 0, 5_000, "the inbox to empty");
  assert.equal(model.requests.length - requestsBefore, 1, "one model call");
  await stop(child);
  await hub.close();
});

test("malformed and oversized frames are logged and dropped; the connection goes on", async () => {
  const hub = await startHub();
  const vault = tmpVault();
  const child = await serve(vault, hub);
  const registrations = hub.frames.filter((f) => f.parsed?.type === "registration").length;
  for (const raw of ["{not json", "[1,2]", JSON.stringify({ type: "message", payload: "text" }), JSON.stringify({ type: "surprise", payload: {} })]) {
    hub.sendRaw("obsidian", raw);
  }
  hub.sendRaw("obsidian", JSON.stringify({ type: "message", payload: { id: "huge", text: "x".repeat(1_200_000) } }));
  hub.sendRaw("obsidian", JSON.stringify({ type: "message", payload: { id: "bad-text", text: 7 } }));
  const rejectOf = (id) => hub.frames.find((f) => f.parsed?.payload?.type === "reject" && f.parsed.payload.messageId === id)?.parsed.payload;
  await hub.waitFor(() => hub.messages.size === 0 && rejectOf("bad-text"), 5_000, "the reject of the bad message");
  const reject = rejectOf("bad-text");
  assert.equal(reject.messageId, "bad-text");
  // Issue 16: the oversized message is refused by its id (the hub never re-delivers).
  await hub.waitFor(() => rejectOf("huge"), 5_000, "the reject of the oversized message");
  assert.match(rejectOf("huge").payload.reason, /1 MB/);
  assert.match(reject.payload.reason, /text must be a string/);
  await waitFor(() => (child.stderrText.match(/dropped a frame from the hub/g) ?? []).length >= 5, 5_000, "five log lines");
  // Still the same connection, still working.
  assert.equal(hub.frames.filter((f) => f.parsed?.type === "registration").length, registrations);
  const id = hub.route("obsidian", { text: "still there?" });
  await hub.waitFor(() => hub.messages.get(id).notifications.length === 1, 10_000, "an answer");
  await stop(child);
  await hub.close();
});

for (const code of ["INVALID_NAME", "INVALID_DESCRIPTION", "DUPLICATE_NAME"]) {
  test(`${code}: the plugin stops retrying and says what to change`, async () => {
    const hub = await startHub({ registrationOverride: () => ({ success: false, code, message: `refused: ${code}` }) });
    const vault = tmpVault();
    const child = await serve(vault, hub, { waitRegistered: false });
    await waitFor(() => /hub error/.test(child.stderrText), 10_000, "the error status");
    assert.match(child.stderrText, /Settings/);
    await new Promise((r) => setTimeout(r, 3_000));
    const attempts = hub.frames.filter((f) => f.parsed?.type === "registration").length;
    assert.equal(attempts, 1, "no retry after a permanent refusal");
    await stop(child);
    await hub.close();
  });
}

test("a second plugin under the same name gets DUPLICATE_NAME from the real rule", async () => {
  const hub = await startHub();
  const first = await serve(tmpVault(), hub);
  const second = await serve(tmpVault(), hub, { waitRegistered: false });
  await waitFor(() => /Another app is already connected/.test(second.stderrText), 10_000, "the duplicate-name error");
  assert.equal(hub.clients().length, 1);
  await stop(second);
  await stop(first);
  await hub.close();
});

test("ALREADY_REGISTERED and VALIDATION_ERROR are retried with backoff", async () => {
  let refusals = 2;
  const hub = await startHub({
    registrationOverride: () => (refusals-- > 0 ? { success: false, code: refusals ? "VALIDATION_ERROR" : "ALREADY_REGISTERED", message: "try again" } : null),
  });
  const child = await serve(tmpVault(), hub, { waitRegistered: false });
  await hub.waitFor(() => hub.clients().length === 1, 15_000, "registration after two refusals");
  assert.equal(hub.frames.filter((f) => f.parsed?.type === "registration").length, 3);
  await stop(child);
  await hub.close();
});

test("a re-delivered message id is acked and not processed twice", async () => {
  const hub = await startHub();
  const vault = tmpVault();
  const child = await serve(vault, hub);
  const before = model.requests.length;
  const id = hub.route("obsidian", { id: "msg-again", text: "remember the milk" });
  await hub.waitFor(() => hub.messages.get(id).notifications.length === 1, 10_000, "the first answer");
  hub.route("obsidian", { id: "msg-again", text: "remember the milk" });
  await hub.waitFor(() => hub.frames.filter((f) => f.parsed?.payload?.type === "ack" && f.parsed.payload.messageId === id).length === 2, 5_000, "the second ack");
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(model.requests.length - before, 1, "one model call");
  assert.equal(timesRecorded(vault, "remember the milk"), 1);
  await stop(child);
  await hub.close();
});

test("the hub drops the connection without a close frame (missed pong): the plugin reconnects and registers again", async () => {
  const hub = await startHub();
  const child = await serve(tmpVault(), hub);
  const registered = [];
  hub.on("registered", (r) => registered.push(r));
  hub.drop("obsidian");
  await hub.waitFor(() => registered.length === 1, 10_000, "re-registration");
  const id = hub.route("obsidian", { text: "are you back?" });
  await hub.waitFor(() => hub.messages.get(id).notifications.length === 1, 10_000, "an answer after the reconnect");
  await stop(child);
  await hub.close();
});

test("the hub's pings are answered: a client is not dropped", async () => {
  const hub = await startHub({ pingIntervalMs: 100, pongTimeoutMs: 200 });
  const child = await serve(tmpVault(), hub);
  const dropped = [];
  hub.on("dropped", (d) => dropped.push(d));
  await new Promise((r) => setTimeout(r, 1_000));
  assert.deepEqual(dropped, []);
  await stop(child);
  await hub.close();
});

test("killed before the ack, the restarted plugin acks the message, then answers it, once", async () => {
  const hub = await startHub();
  const vault = tmpVault();
  let child = await serve(vault, hub, { env: { SMARTHOLE_TEST_KILL_AT: "inbox_written" } });
  const id = hub.route("obsidian", { text: "crash before the ack" });
  const { signal } = await child.done;
  assert.equal(signal, "SIGKILL");
  assert.equal(hub.messages.get(id).outcome, "pending", "no ack left the killed plugin");
  child = await serve(vault, hub);
  await hub.waitFor(() => hub.messages.get(id).notifications.length === 1, 15_000, "the notification");
  const m = hub.messages.get(id);
  assert.equal(m.outcome, "acked");
  assert.equal(m.deliveries, 1, "no re-route was needed");
  assert.deepEqual(hub.protocolErrors, [], "the ack came before the notification");
  await waitFor(() => timesRecorded(vault, "crash before the ack") === 1, 5_000, "the turn in history");
  await waitFor(() => inbox(vault).length === 0, 5_000, "the inbox to empty");
  await stop(child);
  await hub.close();
});

test("killed after the ack, the restarted plugin finishes the message and notifies after registering", async () => {
  const hub = await startHub();
  const vault = tmpVault();
  let child = await serve(vault, hub, { env: { SMARTHOLE_TEST_KILL_AT: "ack_sent" } });
  const id = hub.route("obsidian", { text: "crash after the ack" });
  await child.done;
  assert.equal(hub.messages.get(id).outcome, "acked");
  const repeated = [];
  hub.on("repeated-ack", (e) => repeated.push(e.id));
  child = await serve(vault, hub);
  await hub.waitFor(() => hub.messages.get(id).notifications.length === 1, 15_000, "the notification");
  // The restarted plugin cannot know its ack left: it acks again on its new connection.
  assert.deepEqual(repeated, [id]);
  assert.deepEqual(hub.protocolErrors, []);
  // The seed's order is notify, then record: give the append a moment.
  await waitFor(() => timesRecorded(vault, "crash after the ack") === 1, 5_000, "the turn in history");
  await waitFor(() => inbox(vault).length === 0, 5_000, "the inbox to empty");
  await stop(child);
  await hub.close();
});
