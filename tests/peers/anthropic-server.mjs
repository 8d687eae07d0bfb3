// Scripted Anthropic Messages API server for end-to-end tests and benchmarks.
//
//   const server = await startScriptedServer({ port: 0, fallback: { kind: "text", text: "ok" } });
//   server.enqueue({ kind: "text", text: "Hello" }, { kind: "error", status: 429, type: "rate_limit_error" });
//   // client posts to `${server.url}/v1/messages`; each POST consumes the next step
//   await server.close();
//
// With `promptCache: new PromptCache()` (./prompt-cache.mjs) each answer's `usage` reports the
// prompt cache as the API would (cache_creation_input_tokens, cache_read_input_tokens) for the
// request's cache_control marks; `record.usage` keeps what each request was told.
//
// Every request body is validated against CreateMessageParams from the Messages API's OpenAPI
// document (tests/peers/anthropic-create-message.schema.json); the result is recorded (never
// enforced) so tests can assert on it.
// See tests/node/peer-anthropic.test.mjs for the behaviour of each step kind.

import http from "node:http";
import fs from "node:fs";
import { EventEmitter } from "node:events";
import { performance } from "node:perf_hooks";
import Ajv2020 from "ajv/dist/2020.js";

// CreateMessageParams and what it references, extracted from shared/reference/anthropic-openapi.json
// by scripts/extract-anthropic-schema.mjs (kept in the repository so a clone needs nothing else).
const SPEC_URL = new URL("./anthropic-create-message.schema.json", import.meta.url);
const STEP_KINDS = new Set([
  "text", "tool_use", "error", "stream_error", "reset", "malformed", "unknown_events", "hang", "silent", "pause_turn",
]);

// ---------------------------------------------------------------------------------------------
// Request validation

let validatorCache = null;

/** Compiles (once per process) the validator for CreateMessageParams. Throws if it cannot. */
function getValidator() {
  if (validatorCache) return validatorCache;
  const doc = JSON.parse(fs.readFileSync(SPEC_URL, "utf8"));
  if (!doc?.components?.schemas?.CreateMessageParams) {
    throw new Error(`${SPEC_URL.pathname}: no components.schemas.CreateMessageParams`);
  }
  // strict: false lets ajv ignore OpenAPI-only keywords (discriminator, example, x-stainless-*).
  // Formats are not checked: ajv ships no format implementations and we only care about shape.
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  const id = "https://scripted.invalid/anthropic-openapi.json";
  ajv.addSchema({ $id: id, components: doc.components });
  validatorCache = ajv.compile({ $ref: `${id}#/components/schemas/CreateMessageParams` });
  return validatorCache;
}

function validateBody(validate, body) {
  if (body === null) return [{ instancePath: "", keyword: "json", message: "request body is not valid JSON" }];
  return validate(body) ? [] : structuredClone(validate.errors);
}

// ---------------------------------------------------------------------------------------------
// Small helpers

const pad = (n) => String(n).padStart(4, "0");
const estimateTokens = (s) => Math.max(1, Math.ceil(String(s).length / 4));

// Split into pieces of ~4 user-perceived characters so that neither surrogate pairs nor composed
// emoji (skin tones, flags, ZWJ sequences) are cut in half.
const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });
function splitText(text, size = 4) {
  const graphemes = Array.from(segmenter.segment(text), (s) => s.segment);
  const pieces = [];
  for (let i = 0; i < graphemes.length; i += size) pieces.push(graphemes.slice(i, i + size).join(""));
  return pieces;
}

// Tool input JSON is sent as an empty piece (the real API starts with one) followed by about four
// partial pieces, cut on code points. `truncate` keeps only the first half: a proper prefix of a
// JSON object is never valid JSON, which is what a max_tokens cut-off looks like.
function jsonPieces(input, truncate) {
  let cps = Array.from(JSON.stringify(input ?? {}));
  if (truncate) cps = cps.slice(0, Math.max(1, Math.floor(cps.length / 2)));
  const size = Math.max(1, Math.ceil(cps.length / 4));
  const pieces = [""];
  for (let i = 0; i < cps.length; i += size) pieces.push(cps.slice(i, i + size).join(""));
  return pieces;
}

const ERROR_STATUS = {
  invalid_request_error: 400, authentication_error: 401, billing_error: 402, permission_error: 403,
  not_found_error: 404, request_too_large: 413, rate_limit_error: 429, api_error: 500,
  timeout_error: 504, overloaded_error: 529,
};
const ERROR_MESSAGE = {
  overloaded_error: "Overloaded", rate_limit_error: "Rate limited", api_error: "Internal server error",
  authentication_error: "invalid x-api-key", not_found_error: "Not found",
};

// ---------------------------------------------------------------------------------------------
// Server

class ScriptedServer extends EventEmitter {
  #server;
  #fallback;
  #validate;
  #queue = [];
  #closing = false;
  #closed = null;
  #ids = { msg: 0, toolu: 0, req: 0 };
  requests = [];
  url = "";

  constructor({ fallback, validate, promptCache }) {
    super();
    this.promptCache = promptCache ?? null;
    this.#fallback = fallback ?? { kind: "text", text: "ok" };
    checkStep(this.#fallback);
    this.#validate = validate;
    this.#server = http.createServer((req, res) => this.#handle(req, res));
  }

  async listen(port) {
    await new Promise((resolve, reject) => {
      this.#server.once("error", reject);
      this.#server.listen(port, "127.0.0.1", () => {
        this.#server.off("error", reject);
        resolve();
      });
    });
    this.url = `http://127.0.0.1:${this.#server.address().port}`;
  }

  /** Appends steps; each POST /v1/messages consumes one, in order. */
  enqueue(...steps) {
    steps.forEach(checkStep);
    this.#queue.push(...steps);
    return this;
  }

  /** Number of enqueued steps not consumed yet. */
  pending() {
    return this.#queue.length;
  }

  /** Resolves with `requests` once at least n requests have been recorded. */
  waitForRequests(n, timeoutMs = 10000) {
    if (this.requests.length >= n) return Promise.resolve(this.requests);
    return new Promise((resolve, reject) => {
      const onRequest = () => {
        if (this.requests.length < n) return;
        clearTimeout(timer);
        this.off("request", onRequest);
        resolve(this.requests);
      };
      const timer = setTimeout(() => {
        this.off("request", onRequest);
        reject(new Error(`waitForRequests(${n}): only ${this.requests.length} request(s) after ${timeoutMs} ms`));
      }, timeoutMs);
      this.on("request", onRequest);
    });
  }

  /** Stops listening and destroys every open socket, hanging responses included. */
  close() {
    if (!this.#closed) {
      this.#closing = true;
      this.#closed = new Promise((resolve) => this.#server.close(() => resolve()));
      this.#server.closeAllConnections();
    }
    return this.#closed;
  }

  // --- request handling ----------------------------------------------------------------------

  async #handle(req, res) {
    // A client that goes away makes these streams error; that is expected, not noise.
    req.on("error", () => {});
    res.on("error", () => {});

    const chunks = [];
    try {
      for await (const chunk of req) chunks.push(chunk);
    } catch {
      return; // the client vanished while sending its body
    }
    const rawBody = Buffer.concat(chunks).toString("utf8");
    let body = null;
    try {
      body = JSON.parse(rawBody);
    } catch {}

    const path = new URL(req.url, "http://x").pathname;
    const isMessages = req.method === "POST" && path === "/v1/messages";
    const step = isMessages ? (this.#queue.shift() ?? this.#fallback) : null;

    const record = {
      index: this.requests.length,
      method: req.method,
      path,
      headers: { ...req.headers }, // node already lower-cases header names
      body,
      rawBody,
      schemaErrors: isMessages ? validateBody(this.#validate, body) : [],
      receivedAt: performance.now(),
      step,
      aborted: false,
      assertError: null,
    };
    if (step?.assert) {
      try {
        step.assert(body);
      } catch (err) {
        record.assertError = String(err?.message ?? err);
      }
    }
    this.requests.push(record);

    const ctx = new ResponseContext(this, req, res, record);
    res.on("close", () => {
      // "close" before the response finished and without us causing it = the client aborted.
      if (!res.writableFinished && !ctx.destroyedByUs && !this.#closing) {
        record.aborted = true;
        this.emit("aborted", { requestIndex: record.index });
      }
    });
    res.on("finish", () => this.emit("response-done", { requestIndex: record.index }));
    this.emit("request", record);

    try {
      if (!isMessages) {
        ctx.sendError(404, "not_found_error", `${req.method} ${path}: not found`);
      } else {
        // A step may wait for something to happen elsewhere first (`waitFor`: a promise).
        if (step?.waitFor) await step.waitFor;
        await respond(ctx, step);
      }
    } catch (err) {
      // A bug in a step should fail the test through the client, not crash the process.
      record.serverError = String(err?.stack ?? err);
      if (!res.headersSent) ctx.sendError(500, "api_error", `scripted server error: ${err?.message}`);
      else ctx.destroy();
    }
  }

  nextId(kind) {
    return `${kind}_scripted_${pad(++this.#ids[kind])}`;
  }
}

function checkStep(step) {
  if (!step || typeof step !== "object" || !STEP_KINDS.has(step.kind)) {
    throw new TypeError(`scripted step must be an object with kind in ${[...STEP_KINDS].join("|")}: ${JSON.stringify(step)}`);
  }
}

/** Per-request writer: JSON or SSE, with abort awareness. */
class ResponseContext {
  destroyedByUs = false;
  #deltaIndex = 0;

  constructor(server, req, res, record) {
    this.server = server;
    this.res = res;
    this.record = record;
    this.model = typeof record.body?.model === "string" ? record.body.model : "claude-scripted";
    this.stream = record.body?.stream === true;
    this.requestId = server.nextId("req");
    this.inputTokens = estimateTokens(record.rawBody);
    // The input usage reported; with a simulated prompt cache, split as the API would split it.
    this.inputUsage = server.promptCache && record.body
      ? server.promptCache.apply(record.body)
      : { input_tokens: this.inputTokens };
    record.usage = { ...this.inputUsage, output_tokens: 0 };
  }

  get gone() {
    return this.res.destroyed || this.res.writableEnded;
  }

  headers(step, extra) {
    return { "request-id": this.requestId, ...extra, ...(step?.headers ?? {}) };
  }

  sendJson(status, obj, step) {
    const text = typeof obj === "string" ? obj : JSON.stringify(obj);
    this.res.writeHead(status, this.headers(step, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(text),
    }));
    this.res.end(text);
  }

  sendError(status, type, message, step) {
    this.sendJson(status, {
      type: "error",
      error: { type, message: message ?? ERROR_MESSAGE[type] ?? type },
      request_id: this.requestId,
    }, step);
  }

  startSse(step) {
    this.res.writeHead(step.status ?? 200, this.headers(step, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
    }));
    this.res.flushHeaders();
    this.res.socket?.setNoDelay(true);
  }

  /** Writes raw SSE text, then yields a turn so each event leaves in its own write. */
  async raw(text) {
    if (this.gone) return false;
    this.res.write(text);
    await sleep(0, this.res);
    return !this.gone;
  }

  event(type, data) {
    return this.raw(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  }

  async textDelta(index, text, delayMs) {
    if (delayMs && this.#deltaIndex > 0) await sleep(delayMs, this.res);
    const ok = await this.event("content_block_delta", { index, delta: { type: "text_delta", text } });
    if (ok) this.server.emit("delta-sent", { requestIndex: this.record.index, deltaIndex: this.#deltaIndex++ });
    return ok;
  }

  messageStart() {
    return this.event("message_start", {
      message: {
        id: this.server.nextId("msg"), type: "message", role: "assistant", content: [], model: this.model,
        stop_reason: null, stop_sequence: null,
        usage: { ...this.inputUsage, output_tokens: 1 },
      },
    });
  }

  message(content, stopReason, outputTokens, step) {
    return {
      id: this.server.nextId("msg"), type: "message", role: "assistant", content, model: this.model,
      stop_reason: stopReason,
      stop_sequence: stopReason === "stop_sequence" ? (step.stopSequence ?? "STOP") : null,
      usage: { ...this.inputUsage, output_tokens: (this.record.usage.output_tokens = outputTokens) },
    };
  }

  async end(stopReason, outputTokens, step) {
    const stop_sequence = stopReason === "stop_sequence" ? (step.stopSequence ?? "STOP") : null;
    this.record.usage.output_tokens = outputTokens;
    if (!(await this.event("message_delta", { delta: { stop_reason: stopReason, stop_sequence }, usage: { output_tokens: outputTokens } }))) return;
    if (!(await this.event("message_stop", {}))) return;
    this.res.end();
  }

  /** Kills the connection with no proper end (a reset as far as the client can tell). */
  destroy() {
    this.destroyedByUs = true;
    (this.res.socket ?? this.res).destroy();
  }
}

/** Resolves after ms (0 = next turn of the event loop), or early when `res` closes. */
function sleep(ms, res) {
  return new Promise((resolve) => {
    if (res.destroyed) return resolve();
    const done = () => {
      clearTimeout(timer);
      clearImmediate(immediate);
      res.off("close", done);
      resolve();
    };
    const timer = ms > 0 ? setTimeout(done, ms) : null;
    const immediate = ms > 0 ? null : setImmediate(done);
    res.on("close", done);
  });
}

// ---------------------------------------------------------------------------------------------
// Step kinds

async function respond(ctx, step) {
  switch (step.kind) {
    case "text":
      return textAnswer(ctx, step, step.stopReason ?? "end_turn");
    case "pause_turn":
      return textAnswer(ctx, step, "pause_turn");
    case "tool_use":
      return toolUseAnswer(ctx, step);
    case "error":
      return ctx.sendError(step.status ?? ERROR_STATUS[step.type] ?? 500, step.type ?? "api_error", step.message, step);
    case "stream_error":
      return streamError(ctx, step);
    case "reset":
      return reset(ctx, step);
    case "malformed":
      return malformed(ctx, step);
    case "unknown_events":
      return unknownEvents(ctx, step);
    case "silent":
      return; // takes the request and never answers: no status, no headers
    case "hang":
      if (ctx.stream) {
        ctx.startSse(step);
        await ctx.messageStart();
      }
      return; // never answer; close() destroys the socket
  }
}

async function textAnswer(ctx, step, stopReason) {
  const text = step.text ?? "";
  const outputTokens = estimateTokens(text);
  if (!ctx.stream) {
    return ctx.sendJson(step.status ?? 200, ctx.message([{ type: "text", text }], stopReason, outputTokens, step), step);
  }
  ctx.startSse(step);
  if (!(await ctx.messageStart()) || !(await ctx.event("ping", {}))) return;
  if (!(await sendTextBlock(ctx, 0, text, step.chunks, step.delayMs, Infinity, step))) return;
  await ctx.end(stopReason, outputTokens, step);
}

/** content_block_start, deltas (at most `limit` of them), and — unless limited — the stop. A step's
 * `holdLast` (a promise) keeps the last delta back until it resolves, and `holds` ({delta index:
 * promise}) any delta: a test sees the answer mid-stream, acts, then lets it go on. */
async function sendTextBlock(ctx, index, text, chunks, delayMs, limit = Infinity, { holdLast, holds } = {}) {
  if (!(await ctx.event("content_block_start", { index, content_block: { type: "text", text: "" } }))) return false;
  const pieces = (chunks ?? splitText(text)).slice(0, limit);
  for (const [i, piece] of pieces.entries()) {
    if (holdLast && i === pieces.length - 1 && pieces.length > 1) await holdLast;
    if (holds?.[i]) await holds[i];
    if (!(await ctx.textDelta(index, piece, delayMs))) return false;
  }
  if (limit !== Infinity) return true;
  return ctx.event("content_block_stop", { index });
}

async function toolUseAnswer(ctx, step) {
  const stopReason = step.stopReason ?? "tool_use";
  const tools = step.tools.map((t) => ({ type: "tool_use", id: t.id ?? ctx.server.nextId("toolu"), name: t.name, input: t.input ?? {} }));
  const outputTokens = estimateTokens(JSON.stringify(tools) + (step.text ?? ""));
  if (!ctx.stream) {
    // Non-streamed, the inputs are returned as given (even with max_tokens).
    const content = [...(step.text ? [{ type: "text", text: step.text }] : []), ...tools];
    return ctx.sendJson(step.status ?? 200, ctx.message(content, stopReason, outputTokens, step), step);
  }
  ctx.startSse(step);
  if (!(await ctx.messageStart()) || !(await ctx.event("ping", {}))) return;
  let index = 0;
  if (step.text && !(await sendTextBlock(ctx, index++, step.text, step.chunks, step.delayMs))) return;
  for (const [i, tool] of tools.entries()) {
    const truncate = stopReason === "max_tokens" && i === tools.length - 1;
    const block = { ...tool, input: {} };
    if (!(await ctx.event("content_block_start", { index, content_block: block }))) return;
    for (const partial_json of jsonPieces(tool.input, truncate)) {
      if (!(await ctx.event("content_block_delta", { index, delta: { type: "input_json_delta", partial_json } }))) return;
    }
    if (!(await ctx.event("content_block_stop", { index: index++ }))) return;
  }
  await ctx.end(stopReason, outputTokens, step);
}

async function streamError(ctx, step) {
  const errorType = step.errorType ?? "overloaded_error";
  const message = step.message ?? ERROR_MESSAGE[errorType] ?? errorType;
  if (!ctx.stream) {
    // The nearest non-streamed equivalent is the matching HTTP error.
    return ctx.sendError(ERROR_STATUS[errorType] ?? 500, errorType, message, step);
  }
  ctx.startSse(step);
  if (!(await ctx.messageStart()) || !(await ctx.event("ping", {}))) return;
  const text = step.text ?? "Partial answer that is about to fail";
  if (!(await sendTextBlock(ctx, 0, text, step.chunks, step.delayMs, step.afterDeltas ?? 1))) return;
  if (!(await ctx.event("error", { error: { type: errorType, message } }))) return;
  ctx.res.end();
}

async function reset(ctx, step) {
  const afterDeltas = step.afterDeltas ?? 1;
  const text = step.text ?? "Partial answer cut by a connection reset";
  if (!ctx.stream) {
    if (afterDeltas === 0) return ctx.destroy();
    // Promise a full body, send half of it, then drop the connection.
    const full = JSON.stringify(ctx.message([{ type: "text", text }], "end_turn", estimateTokens(text), step));
    ctx.res.writeHead(step.status ?? 200, ctx.headers(step, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(full),
    }));
    ctx.res.write(full.slice(0, Math.floor(full.length / 2)));
    await sleep(20, ctx.res); // let the partial body reach the client first
    return ctx.destroy();
  }
  ctx.startSse(step);
  if (!(await ctx.messageStart()) || !(await ctx.event("ping", {}))) return;
  if (!(await sendTextBlock(ctx, 0, text, step.chunks, step.delayMs, afterDeltas))) return;
  await sleep(20, ctx.res);
  ctx.destroy();
}

async function malformed(ctx, step) {
  if (!ctx.stream) {
    ctx.res.writeHead(step.status ?? 200, ctx.headers(step, { "content-type": "application/json" }));
    return ctx.res.end(`{"id":"msg_scripted_bad","type":"message","content":[{"type":"text","text":"trunc`);
  }
  ctx.startSse(step);
  if (!(await ctx.messageStart()) || !(await ctx.event("ping", {}))) return;
  const text = step.text ?? "Some valid text before garbage";
  if (!(await sendTextBlock(ctx, 0, text, step.chunks, step.delayMs, step.afterDeltas ?? 1))) return;
  if (!(await ctx.raw(`event: content_block_delta\ndata: {"type":"content_block_delta", "index":0, "delta": {\n\n`))) return;
  ctx.res.end();
}

async function unknownEvents(ctx, step) {
  const text = step.text ?? "";
  const thinking = { type: "thinking", thinking: "Considering the question.", signature: "c2NyaXB0ZWQtc2lnbmF0dXJl" };
  const outputTokens = estimateTokens(text + thinking.thinking);
  if (!ctx.stream) {
    const content = [thinking, { type: "text", text }];
    return ctx.sendJson(step.status ?? 200, ctx.message(content, "end_turn", outputTokens, step), step);
  }
  ctx.startSse(step);
  const future = () => ctx.raw(`event: future_thing\ndata: ${JSON.stringify({ type: "future_thing", detail: { level: 1 } })}\n\n`);
  const ok =
    (await ctx.messageStart()) &&
    (await ctx.raw(": keepalive\n\n")) &&
    (await ctx.event("ping", {})) &&
    (await future()) &&
    // A block type the client does not know, at index 0, with its own delta types.
    (await ctx.event("content_block_start", { index: 0, content_block: { type: "thinking", thinking: "", signature: "" } })) &&
    (await ctx.event("content_block_delta", { index: 0, delta: { type: "thinking_delta", thinking: thinking.thinking } })) &&
    (await ctx.raw(": keepalive\n\n")) &&
    (await ctx.event("content_block_delta", { index: 0, delta: { type: "signature_delta", signature: thinking.signature } })) &&
    (await ctx.event("content_block_stop", { index: 0 })) &&
    (await ctx.event("content_block_start", { index: 1, content_block: { type: "text", text: "" } }));
  if (!ok) return;
  for (const [i, piece] of (step.chunks ?? splitText(text)).entries()) {
    if (!(await ctx.textDelta(1, piece, step.delayMs))) return;
    // Interleave noise between the text deltas.
    if (i === 0 && !((await future()) && (await ctx.raw(": keepalive\n\n")))) return;
  }
  if (!(await ctx.event("content_block_stop", { index: 1 }))) return;
  if (!(await future())) return;
  await ctx.end("end_turn", outputTokens, step);
}

// ---------------------------------------------------------------------------------------------

/**
 * Starts a scripted server on 127.0.0.1. Rejects if the request validator cannot be compiled.
 * @param {{ port?: number, fallback?: object }} [options]
 */
export async function startScriptedServer({ port = 0, fallback, promptCache } = {}) {
  const server = new ScriptedServer({ fallback, validate: getValidator(), promptCache });
  await server.listen(port);
  return server;
}
