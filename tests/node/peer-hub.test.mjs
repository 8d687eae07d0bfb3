// Tests of the SmartHole hub test peer (tests/peers/hub.mjs), driven by a raw `ws` client.
import { test } from "node:test";
import assert from "node:assert/strict";
import { once } from "node:events";
import { WebSocket } from "ws";
import { startHub } from "../peers/hub.mjs";

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function until(predicate, timeoutMs = 3000, what = "condition") {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const tick = () => {
      const value = predicate();
      if (value) return resolve(value);
      if (Date.now() - started > timeoutMs) return reject(new Error(`timed out waiting for ${what}`));
      setTimeout(tick, 5);
    };
    tick();
  });
}

/** A raw client: every frame received is queued; take(type) removes the next one of that type. */
async function connect(hub, wsOptions = {}) {
  const ws = new WebSocket(hub.url, wsOptions);
  const client = { ws, queue: [], pings: 0 };
  ws.on("message", (data) => {
    const text = data.toString();
    try {
      client.queue.push(JSON.parse(text));
    } catch {
      client.queue.push({ type: "<raw>", raw: text });
    }
  });
  ws.on("ping", () => client.pings++);
  client.closed = new Promise((resolve) => ws.on("close", (code) => resolve(code)));
  client.send = (type, payload) => ws.send(JSON.stringify({ type, payload }));
  client.respond = (messageId, type, payload) => client.send("response", { messageId, type, payload });
  client.take = async (type, timeoutMs = 3000) => {
    const index = await until(() => client.queue.findIndex((f) => f.type === type) + 1, timeoutMs, `a ${type} frame`);
    return client.queue.splice(index - 1, 1)[0];
  };
  client.register = async (name, extra = {}) => {
    client.send("registration", { name, description: `Test client ${name}`, version: "1.0.0", capabilities: [], ...extra });
    return (await client.take("registration_response")).payload;
  };
  await once(ws, "open");
  return client;
}

async function registered(hub, name) {
  const client = await connect(hub);
  const reply = await client.register(name);
  assert.equal(reply.success, true, JSON.stringify(reply));
  return client;
}

async function withHub(t, options = {}) {
  const hub = await startHub({ port: 0, ...options });
  t.after(() => hub.close());
  return hub;
}

const rules = (hub) => hub.protocolErrors.map((e) => e.rule);

test("successful registration returns a clientId and lists the client", async (t) => {
  const hub = await withHub(t);
  assert.match(hub.url, /^ws:\/\/127\.0\.0\.1:\d+$/);
  const events = [];
  hub.on("registered", (e) => events.push(e));
  const client = await connect(hub);
  const reply = await client.register("obsidian", { capabilities: ["notes"] });
  assert.equal(reply.success, true);
  assert.match(reply.clientId, UUID_RE);
  assert.equal(typeof reply.message, "string");
  const [info] = hub.clients();
  assert.equal(info.name, "obsidian");
  assert.equal(info.clientId, reply.clientId);
  assert.equal(info.description, "Test client obsidian");
  assert.equal(info.version, "1.0.0");
  assert.deepEqual(info.capabilities, ["notes"]);
  assert.ok(!Number.isNaN(Date.parse(info.registeredAt)));
  assert.equal(events[0].name, "obsidian");
  assert.equal(events[0].clientId, reply.clientId);
  assert.deepEqual(hub.protocolErrors, []);
});

test("each registration failure code; the socket stays open and can retry", async (t) => {
  const hub = await withHub(t);
  const failures = [];
  hub.on("registration-failed", (e) => failures.push(e.code));
  const cases = [
    [{ name: "1bad" }, "INVALID_NAME"],
    [{ name: "a".repeat(65) }, "INVALID_NAME"],
    [{ name: "bad name" }, "INVALID_NAME"],
    [{ description: "" }, "INVALID_DESCRIPTION"],
    [{ description: "d".repeat(1025) }, "INVALID_DESCRIPTION"],
    [{ name: 5 }, "VALIDATION_ERROR"],
    [{ description: undefined }, "VALIDATION_ERROR"],
    [{ capabilities: "notes" }, "VALIDATION_ERROR"],
  ];
  const client = await connect(hub);
  for (const [extra, code] of cases) {
    const reply = await client.register("okname", extra);
    assert.equal(reply.success, false, JSON.stringify(extra));
    assert.equal(reply.code, code, JSON.stringify(extra));
    assert.equal(typeof reply.message, "string");
    assert.equal(reply.clientId, undefined);
  }
  assert.deepEqual(failures, cases.map(([, code]) => code));
  assert.deepEqual(hub.clients(), []); // a name is only taken on success
  // Boundaries that are valid: 64-character name, 1024-character description.
  const ok = await client.register("a".repeat(64), { description: "d".repeat(1024) });
  assert.equal(ok.success, true);
  assert.equal(client.ws.readyState, WebSocket.OPEN);
  // A second registration on the same socket.
  const again = await client.register("other");
  assert.equal(again.code, "ALREADY_REGISTERED");
  assert.equal(hub.clients().length, 1);
});

test("DUPLICATE_NAME while the first client is connected; the name is released on disconnect", async (t) => {
  const hub = await withHub(t);
  const first = await registered(hub, "obsidian");
  const second = await connect(hub);
  const dup = await second.register("obsidian");
  assert.equal(dup.success, false);
  assert.equal(dup.code, "DUPLICATE_NAME");
  const gone = once(hub, "disconnected");
  first.ws.close();
  assert.equal((await gone)[0].name, "obsidian");
  assert.deepEqual(hub.clients(), []);
  const retry = await second.register("obsidian");
  assert.equal(retry.success, true);
});

test("registrationOverride forces a failure", async (t) => {
  let calls = 0;
  const hub = await withHub(t, {
    registrationOverride: () => (calls++ === 0 ? { success: false, code: "DUPLICATE_NAME", message: "forced" } : null),
  });
  const client = await connect(hub);
  assert.deepEqual(await client.register("obsidian"), { success: false, code: "DUPLICATE_NAME", message: "forced" });
  assert.equal((await client.register("obsidian")).success, true);
});

test("frames before registration are ignored as not-registered", async (t) => {
  const hub = await withHub(t);
  const client = await connect(hub);
  client.respond("msg-1", "ack", {});
  await hub.waitFor(() => hub.protocolErrors.length === 1, 2000, "the protocol error");
  assert.deepEqual(rules(hub), ["not-registered"]);
  assert.equal(hub.protocolErrors[0].client, null);
  assert.equal(hub.frames[0].client, null);
  assert.equal(hub.frames[0].error, "not-registered");
  assert.equal((await client.register("obsidian")).success, true);
  assert.throws(() => hub.route("nobody", { text: "x" }), /no registered client/);
});

test("route → ack {} → acked", async (t) => {
  const hub = await withHub(t);
  const client = await registered(hub, "obsidian");
  const acks = [];
  hub.on("ack", (e) => acks.push(e.id));
  const id = hub.route("obsidian", { text: "buy milk" });
  assert.equal(id, "msg-1");
  const { payload } = await client.take("message");
  assert.equal(payload.id, id);
  assert.equal(payload.text, "buy milk");
  assert.ok(!Number.isNaN(Date.parse(payload.timestamp)));
  assert.deepEqual(payload.metadata, { inputMethod: "voice", directRouted: true, confidence: 1, routingReason: "test" });
  assert.equal(hub.messages.get(id).outcome, "pending");
  client.respond(id, "ack", {});
  await hub.waitFor(() => hub.messages.get(id).outcome === "acked", 2000, "the ack");
  const record = hub.messages.get(id);
  assert.equal(record.acked, true);
  assert.equal(record.deliveries, 1);
  assert.equal(record.client, "obsidian");
  assert.deepEqual(acks, [id]);
  // A second ack for the same delivery is flagged.
  client.respond(id, "ack", {});
  await hub.waitFor(() => hub.protocolErrors.length === 1, 2000, "the protocol error");
  assert.deepEqual(rules(hub), ["duplicate-answer"]);
  // Custom id and metadata.
  const custom = hub.route("obsidian", { id: "abc", text: "t", metadata: { inputMethod: "text", directRouted: false, confidence: 0.5, routingReason: "r" } });
  assert.equal(custom, "abc");
  assert.equal((await client.take("message")).payload.metadata.inputMethod, "text");
});

test("a client restarted after a crash may ack again on its new connection; a notification before any ack is flagged", async (t) => {
  const hub = await withHub(t);
  // Acked, then the client dies (its socket drops) and comes back on a new connection.
  const first = await registered(hub, "obsidian");
  const acked = hub.route("obsidian", { text: "acked before the crash" });
  const unacked = hub.route("obsidian", { text: "saved, not acked, before the crash" });
  await first.take("message");
  await first.take("message");
  first.respond(acked, "ack", {});
  await hub.waitFor(() => hub.messages.get(acked).acked, 2000, "the ack");
  first.ws.terminate();
  await hub.waitFor(() => hub.clients().length === 0, 2000, "the old connection to go");
  const second = await registered(hub, "obsidian");
  const repeated = [];
  hub.on("repeated-ack", (e) => repeated.push(e.id));
  // It cannot know whether its ack left: acking again before the answer is taken.
  second.respond(acked, "ack", {});
  second.respond(acked, "notification", { body: "done", priority: "normal" });
  // The message it never acked: the answer alone is out of order.
  second.respond(unacked, "notification", { body: "done too", priority: "normal" });
  await hub.waitFor(() => hub.messages.get(unacked).notifications.length === 1, 2000, "the notifications");
  assert.deepEqual(repeated, [acked]);
  assert.deepEqual(rules(hub), ["notification-before-ack"]);
  assert.match(hub.protocolErrors[0].detail, new RegExp(unacked));
  // On the same connection, a second ack is still a client bug; so is a reject after an ack.
  second.respond(acked, "ack", {});
  second.respond(acked, "reject", { reason: "changed my mind" });
  await hub.waitFor(() => hub.protocolErrors.length === 3, 2000, "the protocol errors");
  assert.deepEqual(rules(hub), ["notification-before-ack", "duplicate-answer", "duplicate-answer"]);
});

test("an ack with fields is not recognised; the message expires and is re-routed with the same id", async (t) => {
  const hub = await withHub(t, { answerDeadlineMs: 300 });
  const client = await registered(hub, "obsidian");
  const id = hub.route("obsidian", { text: "buy milk" });
  await client.take("message");
  client.respond(id, "ack", { ok: true });
  await hub.waitFor(() => rules(hub).includes("ack-payload-not-empty"), 2000, "the protocol error");
  assert.equal(hub.messages.get(id).outcome, "pending");

  const again = await client.take("message", 2000); // re-delivered after the 300 ms deadline
  assert.equal(again.payload.id, id);
  const record = hub.messages.get(id);
  assert.equal(record.deliveries, 2);
  assert.deepEqual(record.rejected, [{ reason: "expired", expired: true }]);
  assert.equal(record.outcome, "pending");

  client.respond(id, "ack", {}); // answers the pending re-delivery
  await hub.waitFor(() => hub.messages.get(id).outcome === "acked", 2000, "the ack");
  client.respond(id, "ack", {}); // the first delivery's answer, too late
  await hub.waitFor(() => rules(hub).includes("late-answer"), 2000, "late-answer");
  assert.deepEqual(rules(hub), ["ack-payload-not-empty", "late-answer"]);
  assert.equal(hub.messages.get(id).outcome, "acked");
});

test("unanswered deliveries expire up to maxReroutes, then fail; a late reject is flagged", async (t) => {
  const hub = await withHub(t, { answerDeadlineMs: 100, maxReroutes: 1 });
  const client = await registered(hub, "obsidian");
  const id = hub.route("obsidian", { text: "x" });
  await hub.waitFor(() => hub.messages.get(id).outcome === "failed", 2000, "failure");
  assert.equal(hub.messages.get(id).deliveries, 2);
  assert.equal(hub.messages.get(id).rejected.length, 2);
  client.respond(id, "reject", { reason: "too late" });
  await hub.waitFor(() => rules(hub).includes("late-answer"), 2000, "late-answer");
  assert.equal(hub.messages.get(id).outcome, "failed");
});

test("reject → re-routed with the same id up to maxReroutes, then failed", async (t) => {
  const hub = await withHub(t);
  const client = await registered(hub, "obsidian");
  const id = hub.route("obsidian", { text: "do something impossible" });
  for (let i = 0; i < 4; i++) {
    const { payload } = await client.take("message");
    assert.equal(payload.id, id);
    client.respond(id, "reject", { reason: `no ${i}` });
  }
  await hub.waitFor(() => hub.messages.get(id).outcome === "failed", 2000, "failure");
  const record = hub.messages.get(id);
  assert.equal(record.deliveries, 4); // the first delivery and 3 re-routes
  assert.deepEqual(record.rejected.map((r) => r.reason), ["no 0", "no 1", "no 2", "no 3"]);
  assert.equal(record.acked, false);
  await sleep(50);
  assert.equal(client.queue.filter((f) => f.type === "message").length, 0);
  // A reject without a reason is not recognised.
  const other = hub.route("obsidian", { text: "y" });
  await client.take("message");
  client.respond(other, "reject", {});
  await hub.waitFor(() => rules(hub).includes("invalid-reject"), 2000, "invalid-reject");
  assert.equal(hub.messages.get(other).outcome, "pending");
});

test("a rejected message goes to another registered client when there is one", async (t) => {
  const hub = await withHub(t);
  const a = await registered(hub, "alpha");
  const b = await registered(hub, "beta");
  const id = hub.route("alpha", { text: "x" });
  await a.take("message");
  a.respond(id, "reject", { reason: "not mine" });
  assert.equal((await b.take("message")).payload.id, id);
  b.respond(id, "ack", {});
  await hub.waitFor(() => hub.messages.get(id).outcome === "acked", 2000, "the ack");
  assert.equal(hub.messages.get(id).client, "beta");
  // An answer from a client the message was never sent to.
  const other = hub.route("alpha", { text: "y" });
  b.respond(other, "ack", {});
  await hub.waitFor(() => rules(hub).includes("answer-from-wrong-client"), 2000, "the protocol error");
});

test("notifications are recorded, also from a new connection after a reconnect", async (t) => {
  const hub = await withHub(t);
  let client = await registered(hub, "obsidian");
  const id = hub.route("obsidian", { text: "buy milk" });
  await client.take("message");
  client.respond(id, "ack", {});
  client.respond(id, "notification", { title: "Done", body: "Added milk", priority: "high" });
  client.respond(id, "notification", { body: "Second" });
  await hub.waitFor(() => hub.messages.get(id).notifications.length === 2, 2000, "notifications");
  assert.deepEqual(hub.messages.get(id).notifications, [
    { title: "Done", body: "Added milk", priority: "high" },
    { title: "obsidian", body: "Second", priority: "normal" }, // defaults
  ]);

  client.ws.close();
  await client.closed;
  await hub.waitFor(() => hub.clients().length === 0, 2000, "the disconnect");
  client = await registered(hub, "obsidian");
  const seen = once(hub, "notification");
  client.respond(id, "notification", { body: "Later", priority: "low" });
  const [event] = await seen;
  assert.equal(event.id, id);
  assert.deepEqual(event.payload, { title: "obsidian", body: "Later", priority: "low" });
  assert.equal(hub.messages.get(id).notifications.length, 3);
  assert.deepEqual(hub.protocolErrors, []);

  // Ignored notifications.
  client.respond(id, "notification", { body: "" });
  client.respond(id, "notification", { body: "x", priority: "urgent" });
  await hub.waitFor(() => hub.protocolErrors.length === 2, 2000, "the protocol errors");
  assert.deepEqual(rules(hub), ["empty-notification", "invalid-notification-priority"]);
  assert.equal(hub.messages.get(id).notifications.length, 3);
});

test("more than 10 notifications a minute are recorded but flagged", async (t) => {
  const hub = await withHub(t);
  const client = await registered(hub, "obsidian");
  const id = hub.route("obsidian", { text: "x" });
  await client.take("message");
  client.respond(id, "ack", {});
  for (let i = 0; i < 11; i++) client.respond(id, "notification", { body: `step ${i}` });
  await hub.waitFor(() => hub.messages.get(id).notifications.length === 11, 2000, "11 notifications");
  assert.deepEqual(rules(hub), ["notification-rate"]);
});

test("a notification before the ack is recorded but flagged", async (t) => {
  const hub = await withHub(t);
  const client = await registered(hub, "obsidian");
  const id = hub.route("obsidian", { text: "x" });
  await client.take("message");
  client.respond(id, "notification", { body: "working" });
  await hub.waitFor(() => hub.messages.get(id).notifications.length === 1, 2000, "the notification");
  assert.deepEqual(rules(hub), ["notification-before-ack"]);
});

test("responses for unknown or forgotten message ids are protocol errors", async (t) => {
  const hub = await withHub(t);
  const client = await registered(hub, "obsidian");
  client.respond("never-sent", "ack", {});
  await hub.waitFor(() => hub.protocolErrors.length === 1, 2000, "the protocol error");
  assert.deepEqual(rules(hub), ["response-for-unknown-message"]);
  assert.equal(hub.frames.at(-1).parsed.payload.messageId, "never-sent"); // still recorded
  assert.equal(hub.frames.at(-1).error, "response-for-unknown-message");

  // Only the last 100 routed ids are remembered.
  const ids = [];
  for (let i = 0; i < 101; i++) ids.push(hub.route("obsidian", { text: `m${i}` }));
  await until(() => client.queue.length === 101, 3000, "101 messages");
  client.respond(ids[0], "notification", { body: "old" });
  client.respond(ids[1], "ack", {});
  await hub.waitFor(() => hub.messages.get(ids[1]).acked, 2000, "the ack");
  assert.deepEqual(rules(hub), ["response-for-unknown-message", "response-for-unknown-message"]);
  assert.equal(hub.messages.get(ids[0]).notifications.length, 0);
});

test("the hub remembers its last 100 deliveries, across clients: an id routed again is remembered again", async (t) => {
  const hub = await withHub(t);
  const alpha = await registered(hub, "alpha");
  const beta = await registered(hub, "beta");
  const old = hub.route("alpha", { text: "first" });
  const again = hub.route("alpha", { text: "second" });
  for (let i = 0; i < 99; i++) hub.route("beta", { text: `b${i}` });
  hub.route("alpha", { id: again, text: "second" }); // delivered again: a new record
  hub.route("beta", { text: "b99" });
  await until(() => alpha.queue.length === 3 && beta.queue.length === 100, 3000, "the deliveries");
  // 102 deliveries since `old`, 100 of them to another client: forgotten; `again`, delivered anew, is not.
  alpha.respond(old, "ack", {});
  alpha.respond(again, "ack", {});
  await hub.waitFor(() => hub.messages.get(again).acked, 2000, "the ack of the id routed again");
  assert.deepEqual(rules(hub), ["response-for-unknown-message"]);
  assert.equal(hub.messages.get(old).acked, false);
});

test("malformed frames are protocol errors and the connection stays usable", async (t) => {
  const hub = await withHub(t);
  const client = await registered(hub, "obsidian");
  const frameEvents = [];
  hub.on("frame", (record) => frameEvents.push(record.error));
  client.ws.send("{not json");
  client.ws.send(JSON.stringify({ type: "response", payload: "ack" }));
  client.ws.send(JSON.stringify({ type: "response", payload: [] }));
  client.ws.send(JSON.stringify({ type: "hello", payload: {} }));
  client.ws.send(JSON.stringify([1, 2]));
  client.ws.send(JSON.stringify({ payload: {} }));
  client.ws.send(Buffer.from(JSON.stringify({ type: "response", payload: {} })), { binary: true });
  client.send("response", { messageId: "x", type: "maybe", payload: {} });
  client.send("response", { type: "ack", payload: {} });
  await hub.waitFor(() => hub.protocolErrors.length === 9, 2000, "9 protocol errors");
  assert.deepEqual(rules(hub), [
    "invalid-json", "payload-not-object", "payload-not-object", "unknown-type", "frame-not-object", "missing-type",
    "binary-frame", "unknown-response-type", "response-missing-message-id",
  ]);
  assert.equal(hub.frames.length, 10); // the registration and the 9 bad frames
  assert.deepEqual(frameEvents, rules(hub));
  assert.equal(hub.frames[1].parsed, null);
  assert.equal(hub.frames[1].raw, "{not json");
  assert.ok(hub.protocolErrors.every((e) => e.client === "obsidian"));

  const id = hub.route("obsidian", { text: "still there?" });
  await client.take("message");
  client.respond(id, "ack", {});
  await hub.waitFor(() => hub.messages.get(id).acked, 2000, "the ack");
});

test("a frame over maxFrameBytes closes the socket with 1009", async (t) => {
  const hub = await withHub(t);
  const client = await registered(hub, "obsidian");
  // Exactly 1 MiB is still accepted (and here only an unknown message id).
  const envelope = JSON.stringify({ type: "response", payload: { messageId: "m", type: "notification", payload: { body: "" } } });
  const fill = 1024 * 1024 - envelope.length;
  client.respond("m", "notification", { body: "x".repeat(fill) });
  await hub.waitFor(() => hub.protocolErrors.length === 1, 3000, "the first protocol error");
  assert.equal(hub.frames.at(-1).raw.length, 1024 * 1024);
  assert.deepEqual(rules(hub), ["response-for-unknown-message"]);

  client.respond("m", "notification", { body: "x".repeat(fill + 1) });
  assert.equal(await client.closed, 1009);
  await hub.waitFor(() => rules(hub).includes("frame-too-large"), 2000, "frame-too-large");
  await hub.waitFor(() => hub.clients().length === 0, 2000, "the disconnect");
});

test("pings: a client that answers stays, one that does not pong is dropped without a close frame", async (t) => {
  const hub = await withHub(t, { pingIntervalMs: 100, pongTimeoutMs: 200 });
  const drops = [];
  hub.on("dropped", (e) => drops.push(e));
  const alive = await registered(hub, "alive");
  const dead = await connect(hub, { autoPong: false });
  assert.equal((await dead.register("dead")).success, true);
  assert.equal(await dead.closed, 1006);
  assert.deepEqual(drops.map(({ name, why }) => ({ name, why })), [{ name: "dead", why: "missed pong" }]);
  assert.ok(dead.pings >= 1);
  await sleep(300);
  assert.ok(alive.pings >= 4, `alive saw ${alive.pings} pings`);
  assert.equal(alive.ws.readyState, WebSocket.OPEN);
  assert.deepEqual(hub.clients().map((c) => c.name), ["alive"]);
});

test("drop(name) gives the client 1006 and releases the name", async (t) => {
  const hub = await withHub(t);
  const client = await registered(hub, "obsidian");
  const dropped = once(hub, "dropped");
  hub.drop("obsidian");
  assert.equal(await client.closed, 1006);
  assert.equal((await dropped)[0].name, "obsidian");
  await hub.waitFor(() => hub.clients().length === 0, 2000, "the disconnect");
  await registered(hub, "obsidian");
  assert.throws(() => hub.drop("nobody"), /no registered client/);
});

test("sendRaw sends arbitrary text frames", async (t) => {
  const hub = await withHub(t);
  const client = await registered(hub, "obsidian");
  hub.sendRaw("obsidian", "{garbage");
  hub.sendRaw("obsidian", { type: "surprise", payload: {} });
  assert.equal((await client.take("<raw>")).raw, "{garbage");
  assert.deepEqual(await client.take("surprise"), { type: "surprise", payload: {} });
});

test("connections beyond maxConnections are refused with 1013", async (t) => {
  const hub = await withHub(t, { maxConnections: 2 });
  await connect(hub);
  await connect(hub);
  const third = await connect(hub);
  assert.equal(await third.closed, 1013);
});

test("close() frees the port for a new hub right away", async (t) => {
  const first = await startHub({ port: 0 });
  const client = await registered(first, "obsidian");
  const port = first.port;
  await first.close();
  assert.equal(await client.closed, 1006);
  const second = await startHub({ port });
  t.after(() => second.close());
  assert.equal(second.port, port);
  await registered(second, "obsidian");
});
