// Strict re-implementation of the SmartHole desktop hub's side of the WebSocket protocol, so the
// plugin's client can be tested against a real peer. See shared/reference/smarthole-hub-protocol.md.
//
//   const hub = await startHub({ port: 0, answerDeadlineMs: 200 });
//   // client connects to hub.url and registers
//   await hub.waitFor(() => hub.clients().length === 1, 5000, "registration");
//   const id = hub.route("obsidian", { text: "buy milk" });
//   await hub.waitFor(() => hub.messages.get(id).outcome === "acked");
//   await hub.close();
//
// Every rule a client breaks is recorded in hub.protocolErrors (never thrown), and the offending
// frame is otherwise ignored, as the real hub does. See tests/node/peer-hub.test.mjs.

import { EventEmitter } from "node:events";
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { WebSocketServer } from "ws";

const NAME_RE = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
const PRIORITIES = new Set(["low", "normal", "high"]);
const RESPONSE_TYPES = new Set(["ack", "reject", "notification"]);
const CLIENT_FRAME_TYPES = new Set(["registration", "response"]);
// The hub's delivery history: one record per delivery (a message routed again, to this client or
// another, is a new record), the newest 100 across all clients. A response is matched to a record
// by message id and the responding client's name; without one it is an unknown message, dropped.
const DELIVERY_HISTORY = 100;
const NOTIFICATION_WINDOW_MS = 60_000; // the hub shows about 10 notifications a minute
const NOTIFICATIONS_PER_WINDOW = 10;

// The hub's display queue (what the user sees): notifications of the same title merge within
// 5 s, at most 10 are shown a minute and at least 1 s apart, at most 20 wait (low, then medium
// priority dropped first); a high-priority one skips the queue when the rate allows. Checked
// against the public hub's notification queue (src/services/notification-queue.ts): the same
// numbers and order. What is shown is what the OS notification gets: the title (the client's name
// when none is given) and the body, with anything between < and > removed, as the hub does.
const DISPLAY = { mergeWindowMs: 5_000, perMinute: 10, minIntervalMs: 1_000, maxWaiting: 20 };
const QUEUE_PRIORITY = { low: 1, normal: 2, high: 3 };

const DEFAULTS = {
  port: 0,
  // How long after a socket closes its name stays taken (the real hub frees it only when it has
  // handled the close): a client registering again at once may get DUPLICATE_NAME for itself.
  nameReleaseMs: 30,
  display: DISPLAY,
  pingIntervalMs: 30_000,
  pongTimeoutMs: 10_000,
  answerDeadlineMs: 30_000,
  maxReroutes: 3,
  maxConnections: 100,
  maxFrameBytes: 1024 * 1024,
  registrationOverride: null,
};

const DEFAULT_METADATA = { inputMethod: "voice", directRouted: true, confidence: 1, routingReason: "test" };

const isObject = (v) => typeof v === "object" && v !== null && !Array.isArray(v);

/** Starts a hub on 127.0.0.1; resolves once it listens. */
export async function startHub(options = {}) {
  const hub = new Hub({ ...DEFAULTS, ...options });
  await hub._listen();
  return hub;
}

class Hub extends EventEmitter {
  constructor(opts) {
    super();
    this.opts = opts;
    this.port = null;
    this.url = null;
    this.messages = new Map();
    this.frames = [];
    this.protocolErrors = [];
    this._conns = new Set(); // every open socket, registered or not
    // Per message id, what the public record does not show: the metadata to re-send on a
    // re-route and every delivery, [{ name, answered, expired, timer, answer, answeredOn }].
    this._routes = new Map();
    this._deliveryHistory = []; // { id, name } of the last DELIVERY_HISTORY deliveries, oldest first
    this._notificationTimes = new Map(); // client name -> timestamps of recent notifications
    this._nextConnId = 1;
    this._msgCounter = 0;
    // What the user would have seen: shown (in order, with when and for which message ids),
    // merged into another (body replaced, or gone if that one was already on screen), dropped.
    this.display = { shown: [], merged: [], dropped: [] };
    this._displayQueue = [];
    this._displayKeys = new Map(); // title -> { lastUpdate, count, queued }
    this._displayTimes = [];
    this._displayLast = -Infinity;
    this._displayTimer = null;
  }

  /** Every text the user saw on screen (titles and bodies), for "is this answer visible". */
  visibleText() {
    return this.display.shown.map((n) => `${n.title}\n${n.body}`).join("\n");
  }

  // -------------------------------------------------------------------------------------------
  // Public API

  /** Registered clients, in registration order — a closed one too while the hub still holds its
   *  name (a moment, as the real hub's registry does). */
  clients() {
    return this._registered().map((c) => ({ ...c.info }));
  }

  /** Whether a message can be routed to the client `name` now (registered, socket open). */
  routable(name) {
    return this._open().some((c) => c.info.name === name);
  }

  /** Sends a `message` frame to a registered client; returns the message id. */
  route(clientName, { id, text, metadata } = {}) {
    const conn = this._open().find((c) => c.info.name === clientName);
    if (!conn) throw new Error(`route: no registered client named ${JSON.stringify(clientName)}`);
    id ??= `msg-${++this._msgCounter}`;
    let record = this.messages.get(id);
    if (!record) {
      record = { id, text, client: clientName, deliveries: 0, acked: false, rejected: [], notifications: [], outcome: "pending" };
      this.messages.set(id, record);
      this._routes.set(id, { metadata: null, deliveries: [] });
    }
    this._routes.get(id).metadata = metadata ?? DEFAULT_METADATA;
    this._deliver(record, conn);
    return id;
  }

  /** Polls predicate() every 10 ms; resolves with its first truthy value. */
  waitFor(predicate, timeoutMs = 10_000, what = "condition") {
    return new Promise((resolve, reject) => {
      const started = Date.now();
      const tick = () => {
        let value;
        try {
          value = predicate();
        } catch (err) {
          return reject(err);
        }
        if (value) return resolve(value);
        if (Date.now() - started >= timeoutMs) return reject(new Error(`timed out waiting for ${what}`));
        setTimeout(tick, 10);
      };
      tick();
    });
  }

  /** Terminates the client's socket without a close frame (what a missed pong does). */
  drop(clientName) {
    const conn = this._byName(clientName);
    if (!conn) throw new Error(`drop: no registered client named ${JSON.stringify(clientName)}`);
    this._terminate(conn, "drop()");
  }

  /** Sends an arbitrary text frame (strings as they are, anything else as JSON). */
  sendRaw(clientName, data) {
    const conn = this._byName(clientName);
    if (!conn) throw new Error(`sendRaw: no registered client named ${JSON.stringify(clientName)}`);
    const text = typeof data === "string" || Buffer.isBuffer(data) ? data : JSON.stringify(data);
    conn.ws.send(text, { binary: false });
  }

  /** Terminates every socket and closes the server; resolves when the port is free. */
  close() {
    if (this._closing) return this._closing;
    for (const record of this.messages.values()) this._clearTimers(record.id);
    clearTimeout(this._displayTimer);
    for (const ws of this._wss.clients) ws.terminate(); // including sockets refused with 1013
    this._closing = new Promise((resolve) => this._wss.close(() => resolve()));
    return this._closing;
  }

  // -------------------------------------------------------------------------------------------
  // Server and connections

  _listen() {
    const { port, maxFrameBytes } = this.opts;
    return new Promise((resolve, reject) => {
      // maxPayload makes ws itself close an oversized frame's socket with 1009.
      const wss = new WebSocketServer({ host: "127.0.0.1", port, maxPayload: maxFrameBytes });
      this._wss = wss;
      wss.once("error", reject);
      wss.once("listening", () => {
        wss.off("error", reject);
        wss.on("error", (err) => this.emit("server-error", err));
        this.port = wss.address().port;
        this.url = `ws://127.0.0.1:${this.port}`;
        resolve();
      });
      wss.on("connection", (ws, req) => this._onConnection(ws, req));
    });
  }

  _onConnection(ws, req) {
    const conn = { id: this._nextConnId++, ws, name: null, info: null, pongTimer: null, pingTimer: null, dropped: null };
    if (this._conns.size >= this.opts.maxConnections) {
      ws.close(1013, "too many connections");
      return;
    }
    this._conns.add(conn);
    this.emit("connection", { conn: conn.id, remoteAddress: req.socket.remoteAddress });

    ws.on("message", (data, isBinary) => this._onFrame(conn, data, isBinary));
    ws.on("pong", () => {
      clearTimeout(conn.pongTimer);
      conn.pongTimer = null;
    });
    ws.on("error", (err) => {
      // ws has already failed the connection (1009 for maxPayload, 1007 for bad UTF-8, …).
      const rule = err.code === "WS_ERR_UNSUPPORTED_MESSAGE_LENGTH" ? "frame-too-large" : "ws-error";
      this._protocolError(conn, rule, `${err.code ?? "error"}: ${err.message}`);
    });
    ws.on("close", (code) => {
      clearInterval(conn.pingTimer);
      clearTimeout(conn.pongTimer);
      conn.closed = true;
      // The close is handled, and the name released, a moment later ("disconnected").
      const release = () => {
        this._conns.delete(conn);
        this.emit("disconnected", { name: conn.name, code, conn: conn.id });
      };
      if (this.opts.nameReleaseMs > 0 && conn.info && !this._closing) setTimeout(release, this.opts.nameReleaseMs).unref?.();
      else release();
    });

    // One outstanding pong deadline at a time, started by the first unanswered ping.
    conn.pingTimer = setInterval(() => {
      if (ws.readyState !== ws.OPEN) return;
      ws.ping();
      conn.pongTimer ??= setTimeout(() => this._terminate(conn, "missed pong"), this.opts.pongTimeoutMs);
    }, this.opts.pingIntervalMs);
  }

  _terminate(conn, why) {
    if (conn.dropped) return;
    conn.dropped = why;
    this.emit("dropped", { name: conn.name, why, conn: conn.id });
    conn.ws.terminate();
  }

  _registered() {
    return [...this._conns].filter((c) => c.info);
  }

  /** Registered connections that are still open (what a message can be routed to). */
  _open() {
    return this._registered().filter((c) => !c.closed);
  }

  _byName(name) {
    return this._registered().find((c) => c.info.name === name) ?? null;
  }

  // -------------------------------------------------------------------------------------------
  // Frames

  _onFrame(conn, data, isBinary) {
    const raw = Buffer.isBuffer(data) ? data.toString("utf8") : Buffer.concat(data).toString("utf8");
    const record = { at: performance.now(), client: conn.info?.name ?? null, conn: conn.id, raw, parsed: null, error: null };
    this.frames.push(record);
    this._handleFrame(conn, record, isBinary);
    this.emit("frame", record); // after handling, so that `error` is filled in
  }

  _handleFrame(conn, record, isBinary) {
    const fail = (rule, detail) => this._protocolError(conn, rule, detail, record);
    if (isBinary) return fail("binary-frame", "frames must be JSON text");
    try {
      record.parsed = JSON.parse(record.raw);
    } catch (err) {
      return fail("invalid-json", err.message);
    }
    const frame = record.parsed;
    if (!isObject(frame)) return fail("frame-not-object", `frame is ${describe(frame)}`);
    if (typeof frame.type !== "string") return fail("missing-type", `type is ${describe(frame.type)}`);
    if (!isObject(frame.payload)) return fail("payload-not-object", `payload is ${describe(frame.payload)}`);
    if (!CLIENT_FRAME_TYPES.has(frame.type)) return fail("unknown-type", `type ${JSON.stringify(frame.type)}`);

    if (frame.type === "registration") return this._onRegistration(conn, frame.payload);
    if (!conn.info) return fail("not-registered", `${frame.type} frame before a successful registration`);
    this._onResponse(conn, frame.payload, fail);
  }

  _onRegistration(conn, payload) {
    const failWith = (code, message) => {
      conn.ws.send(JSON.stringify({ type: "registration_response", payload: { success: false, code, message } }));
      this.emit("registration-failed", { code, message, name: typeof payload.name === "string" ? payload.name : null, conn: conn.id });
    };
    if (conn.info) return failWith("ALREADY_REGISTERED", `This connection is already registered as ${conn.info.name}`);

    const forced = this.opts.registrationOverride?.(payload);
    if (forced) return failWith(forced.code, forced.message ?? `Registration refused (${forced.code})`);

    const { name, description, version, capabilities } = payload;
    if (typeof name !== "string") return failWith("VALIDATION_ERROR", `name must be a string, got ${describe(name)}`);
    if (typeof description !== "string") return failWith("VALIDATION_ERROR", `description must be a string, got ${describe(description)}`);
    if (version !== undefined && typeof version !== "string") return failWith("VALIDATION_ERROR", "version must be a string");
    if (capabilities !== undefined && !(Array.isArray(capabilities) && capabilities.every((c) => typeof c === "string"))) {
      return failWith("VALIDATION_ERROR", "capabilities must be an array of strings");
    }
    if (!NAME_RE.test(name)) return failWith("INVALID_NAME", `name must match ${NAME_RE.source}`);
    // Length in UTF-16 code units, as a JavaScript hub counts it.
    if (description.length < 1 || description.length > 1024) {
      return failWith("INVALID_DESCRIPTION", "description must be 1-1024 characters");
    }
    if (this._byName(name)) return failWith("DUPLICATE_NAME", `A client named ${name} is already connected`);

    const clientId = randomUUID();
    conn.name = name;
    conn.info = {
      name, clientId, description, version: version ?? null, capabilities: capabilities ?? [],
      registeredAt: new Date().toISOString(),
    };
    conn.ws.send(JSON.stringify({ type: "registration_response", payload: { success: true, clientId, message: `Registered as ${name}` } }));
    this.emit("registered", { name, clientId, conn: conn.id });
  }

  _onResponse(conn, payload, fail) {
    const { messageId, type, payload: inner } = payload;
    if (typeof messageId !== "string" || messageId === "") return fail("response-missing-message-id", `messageId is ${describe(messageId)}`);
    if (!RESPONSE_TYPES.has(type)) return fail("unknown-response-type", `response type ${JSON.stringify(type)}`);
    if (!isObject(inner)) return fail("response-payload-not-object", `response payload is ${describe(inner)}`);
    // Ids the hub has forgotten are as unknown as ids it never sent; an id it routed only to
    // other clients is dropped alike (flagged apart, as that is a client bug).
    const name = conn.info.name;
    if (!this._deliveryHistory.some((d) => d.id === messageId && d.name === name)) {
      const elsewhere = this._deliveryHistory.some((d) => d.id === messageId);
      return fail(elsewhere ? "answer-from-wrong-client" : "response-for-unknown-message", `messageId ${messageId}`);
    }
    const record = this.messages.get(messageId);

    if (type === "ack") {
      const keys = Object.keys(inner);
      if (keys.length > 0) return fail("ack-payload-not-empty", `ack payload has ${keys.join(", ")}`);
    }
    if (type === "reject" && typeof inner.reason !== "string") return fail("invalid-reject", `reason is ${describe(inner.reason)}`);
    if (type === "notification") return this._onNotification(conn, record, inner, fail);
    this._onAnswer(conn, record, type, inner, fail);
  }

  // -------------------------------------------------------------------------------------------
  // Deliveries, answers, re-routing

  _deliver(record, conn) {
    const delivery = { name: conn.info.name, answered: false, expired: false, timer: null };
    delivery.timer = setTimeout(() => this._expire(record, delivery), this.opts.answerDeadlineMs);
    const route = this._routes.get(record.id);
    route.deliveries.push(delivery);
    this._deliveryHistory.push({ id: record.id, name: conn.info.name });
    if (this._deliveryHistory.length > DELIVERY_HISTORY) this._deliveryHistory.shift();
    record.deliveries += 1;
    record.client = conn.info.name;
    record.outcome = "pending";
    const payload = { id: record.id, text: record.text, timestamp: new Date().toISOString(), metadata: route.metadata };
    conn.ws.send(JSON.stringify({ type: "message", payload }));
  }

  _onAnswer(conn, record, type, inner, fail) {
    const name = conn.info.name;
    // Matched by client name, not socket: a client may answer on a new connection after a
    // reconnect. The newest unanswered delivery wins; only the latest one can still be pending.
    const mine = this._routes.get(record.id).deliveries.filter((d) => d.name === name);
    const delivery = mine.findLast((d) => !d.answered);
    if (!delivery) {
      // The same ack again from a later connection is a client that restarted after a crash: it
      // cannot know whether its ack left before it died, so it acks what it resumes. The hub
      // matches answers by client name and id and takes it as the same answer. On the same
      // connection, or as a different answer, it is a client bug.
      const last = mine.at(-1);
      if (type === "ack" && last?.answer === "ack" && last.answeredOn !== conn.id) {
        last.answeredOn = conn.id;
        this.emit("repeated-ack", { id: record.id, name, conn: conn.id });
        return;
      }
      return fail(mine.length ? "duplicate-answer" : "answer-from-wrong-client", `${type} for ${record.id}`);
    }
    delivery.answered = true;
    if (delivery.expired) return fail("late-answer", `${type} for ${record.id} after the ${this.opts.answerDeadlineMs} ms deadline`);
    delivery.answer = type;
    delivery.answeredOn = conn.id;
    clearTimeout(delivery.timer);

    if (type === "ack") {
      record.acked = true;
      record.outcome = "acked";
      this.emit("ack", { id: record.id, name });
    } else {
      record.rejected.push({ reason: inner.reason });
      record.outcome = "rejected";
      this.emit("reject", { id: record.id, reason: inner.reason, name });
      this._reroute(record, name);
    }
  }

  _expire(record, delivery) {
    delivery.expired = true;
    record.rejected.push({ reason: "expired", expired: true });
    record.outcome = "expired";
    this.emit("expired", { id: record.id, name: delivery.name });
    this._reroute(record, delivery.name);
  }

  // Prefers another registered client; falls back to the one that refused (tests often have one).
  // With nobody to route to, the outcome stays "rejected" / "expired".
  _reroute(record, fromName) {
    if (record.deliveries - 1 >= this.opts.maxReroutes) {
      record.outcome = "failed";
      this.emit("failed", { id: record.id });
      return;
    }
    const registered = this._open();
    const target = registered.find((c) => c.info.name !== fromName) ?? registered.find((c) => c.info.name === fromName);
    if (target) this._deliver(record, target);
  }

  _onNotification(conn, record, inner, fail) {
    const { title, body, priority = "normal" } = inner;
    if (title !== undefined && typeof title !== "string") return fail("invalid-notification", `title is ${describe(title)}`);
    if (typeof body !== "string") return fail("invalid-notification", `body is ${describe(body)}`);
    if (body.trim() === "") return fail("empty-notification", "notification body is empty");
    if (!PRIORITIES.has(priority)) return fail("invalid-notification-priority", `priority ${JSON.stringify(priority)}`);

    const name = conn.info.name;
    // Recorded anyway, but flagged: the reference orders responses as ack, then notifications.
    const answered = this._routes.get(record.id).deliveries.some((d) => d.name === name && d.answered && !d.expired);
    if (!answered) fail("notification-before-ack", `notification for ${record.id} before an ack or reject`);
    const now = Date.now();
    const times = (this._notificationTimes.get(name) ?? []).filter((t) => now - t < NOTIFICATION_WINDOW_MS);
    times.push(now);
    this._notificationTimes.set(name, times);
    if (times.length > NOTIFICATIONS_PER_WINDOW) {
      fail("notification-rate", `${times.length} notifications from ${name} within a minute`);
    }

    const notification = { title: title ?? name, body, priority };
    record.notifications.push(notification);
    this.emit("notification", { id: record.id, payload: notification, name });
    this._enqueueDisplay({ ...notification, ids: [record.id], client: name });
  }

  // -------------------------------------------------------------------------------------------
  // The display queue

  _enqueueDisplay(n) {
    const d = this.opts.display;
    const now = Date.now();
    const key = this._displayKeys.get(n.title);
    if (key && now - key.lastUpdate < d.mergeWindowMs) {
      key.count += 1;
      key.lastUpdate = now;
      const body = `${n.body} (${key.count} occurrences)`;
      const queued = this._displayQueue.find((q) => q.title === n.title);
      if (queued) {
        this.display.merged.push({ ...queued, into: "queued" });
        Object.assign(queued, { body, ids: [...queued.ids, ...n.ids] });
      } else {
        this.display.merged.push({ ...n, into: "shown" });
      }
      return;
    }
    this._displayKeys.set(n.title, { lastUpdate: now, count: 1 });
    if (n.priority === "high" && !this._rateLimited(now)) return this._show(n, now);
    this._displayQueue.push(n);
    this._displayQueue.sort((a, b) => QUEUE_PRIORITY[b.priority] - QUEUE_PRIORITY[a.priority]);
    while (this._displayQueue.length > d.maxWaiting) {
      let at = this._displayQueue.findLastIndex((q) => q.priority === "low");
      if (at < 0) at = this._displayQueue.findLastIndex((q) => q.priority === "normal");
      if (at < 0) break;
      this.display.dropped.push(...this._displayQueue.splice(at, 1));
    }
    this._scheduleDisplay(now);
  }

  _rateLimited(now) {
    this._displayTimes = this._displayTimes.filter((t) => now - t < 60_000);
    return this._displayTimes.length >= this.opts.display.perMinute || now - this._displayLast < this.opts.display.minIntervalMs;
  }

  _show(n, now) {
    const stripTags = (text) => text.replace(/<[^>]*>/g, "");
    this.display.shown.push({ ...n, title: stripTags(n.title), body: stripTags(n.body), at: now });
    this._displayTimes.push(now);
    this._displayLast = now;
    this.emit("shown", n);
  }

  _scheduleDisplay(now) {
    if (this._displayTimer || this._closing) return;
    const { minIntervalMs, perMinute } = this.opts.display;
    let delay = Math.max(0, minIntervalMs - (now - this._displayLast));
    const recent = this._displayTimes.filter((t) => now - t < 60_000);
    if (recent.length >= perMinute) delay = Math.max(delay, recent[recent.length - perMinute] + 60_000 - now);
    this._displayTimer = setTimeout(() => {
      this._displayTimer = null;
      const at = Date.now();
      if (this._displayQueue.length === 0) return;
      if (!this._rateLimited(at)) this._show(this._displayQueue.shift(), at);
      if (this._displayQueue.length > 0) this._scheduleDisplay(at);
    }, delay);
  }

  _clearTimers(id) {
    for (const d of this._routes.get(id)?.deliveries ?? []) clearTimeout(d.timer);
  }

  _protocolError(conn, rule, detail, frameRecord = null) {
    if (frameRecord && !frameRecord.error) frameRecord.error = rule;
    const entry = { at: performance.now(), client: conn.info?.name ?? null, conn: conn.id, rule, detail };
    this.protocolErrors.push(entry);
    this.emit("protocol-error", entry);
  }
}

function describe(v) {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (v === undefined) return "missing";
  return `a ${typeof v}`;
}
