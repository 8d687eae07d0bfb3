// Tests for the scripted Anthropic server peer (tests/peers/anthropic-server.mjs), using plain fetch.
// Run: node --test tests/node/peer-anthropic.test.mjs

import { test } from "node:test";
import assert from "node:assert/strict";
import { once } from "node:events";
import { startScriptedServer } from "../peers/anthropic-server.mjs";

const MODEL = "claude-sonnet-4-5-20250929";

/** Starts a server that is closed when the test ends. */
async function serve(t, options) {
  const server = await startScriptedServer(options);
  t.after(() => server.close());
  return server;
}

function post(server, body, { stream = false, signal, path = "/v1/messages" } = {}) {
  const payload = typeof body === "string" ? body : JSON.stringify({ ...body, ...(stream ? { stream: true } : {}) });
  return fetch(`${server.url}${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-api-key": "test-key",
      "anthropic-version": "2023-06-01",
    },
    body: payload,
    signal,
  });
}

const simple = (text = "Hi") => ({ model: MODEL, max_tokens: 256, messages: [{ role: "user", content: text }] });

/** Minimal SSE parser: [{event, data, json}] per event; comment lines are counted in `comments`. */
function parseSse(text) {
  const events = [];
  let comments = 0;
  for (const block of text.split("\n\n")) {
    if (!block.trim()) continue;
    let event = "message";
    const data = [];
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) comments++;
      else if (line.startsWith("event:")) event = line.slice(6).trim();
      else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
    }
    if (!data.length) continue;
    let json;
    try {
      json = JSON.parse(data.join("\n"));
    } catch {}
    events.push({ event, data: data.join("\n"), json });
  }
  events.comments = comments;
  return events;
}

const textOf = (events, index = 0) =>
  events
    .filter((e) => e.event === "content_block_delta" && e.json?.index === index && e.json.delta.type === "text_delta")
    .map((e) => e.json.delta.text)
    .join("");

/** Reads a streamed body chunk by chunk; returns the text read and the error that ended it, if any. */
async function readAll(res) {
  const decoder = new TextDecoder();
  let text = "";
  try {
    for await (const chunk of res.body) text += decoder.decode(chunk, { stream: true });
    return { text, error: null };
  } catch (error) {
    return { text, error };
  }
}

test("non-streamed text answer", async (t) => {
  const server = await serve(t);
  server.enqueue({ kind: "text", text: "Hello there", headers: { "anthropic-ratelimit-requests-remaining": "41" } });
  const res = await post(server, simple());
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type"), /^application\/json/);
  assert.match(res.headers.get("request-id"), /^req_scripted_\d{4}$/);
  assert.equal(res.headers.get("anthropic-ratelimit-requests-remaining"), "41");
  const msg = await res.json();
  assert.equal(msg.id, "msg_scripted_0001");
  assert.equal(msg.type, "message");
  assert.equal(msg.role, "assistant");
  assert.equal(msg.model, MODEL);
  assert.deepEqual(msg.content, [{ type: "text", text: "Hello there" }]);
  assert.equal(msg.stop_reason, "end_turn");
  assert.equal(msg.stop_sequence, null);
  assert.ok(msg.usage.input_tokens > 0 && msg.usage.output_tokens > 0);

  const [rec] = server.requests;
  assert.equal(rec.index, 0);
  assert.equal(rec.method, "POST");
  assert.equal(rec.path, "/v1/messages");
  assert.equal(rec.headers["x-api-key"], "test-key");
  assert.equal(rec.headers["anthropic-version"], "2023-06-01");
  assert.deepEqual(rec.body, simple());
  assert.equal(rec.rawBody, JSON.stringify(simple()));
  assert.deepEqual(rec.schemaErrors, []);
  assert.equal(typeof rec.receivedAt, "number");
  assert.equal(rec.step.text, "Hello there");
  assert.equal(rec.aborted, false);
  assert.equal(server.pending(), 0);
});

test("streamed text: exact event order, deltas concatenate to the text, events emitted", async (t) => {
  const server = await serve(t);
  const text = "The quick brown fox jumps over the lazy dog.";
  server.enqueue({ kind: "text", text });
  const deltas = [];
  server.on("delta-sent", (d) => deltas.push(d));
  const done = once(server, "response-done");

  const res = await post(server, simple(), { stream: true });
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type"), /^text\/event-stream/);
  const events = parseSse(await res.text());
  const names = events.map((e) => e.event);
  const n = names.filter((e) => e === "content_block_delta").length;
  assert.ok(n > 5, "text is split into several deltas");
  assert.deepEqual(names, [
    "message_start", "ping", "content_block_start",
    ...Array(n).fill("content_block_delta"),
    "content_block_stop", "message_delta", "message_stop",
  ]);
  for (const e of events) assert.equal(e.json.type, e.event, "data.type matches the event name");
  assert.equal(textOf(events), text);

  const start = events[0].json.message;
  assert.equal(start.id, "msg_scripted_0001");
  assert.equal(start.model, MODEL);
  assert.deepEqual(start.content, []);
  assert.equal(start.stop_reason, null);
  assert.deepEqual(events[2].json.content_block, { type: "text", text: "" });
  const md = events.at(-2).json;
  assert.equal(md.delta.stop_reason, "end_turn");
  assert.ok(md.usage.output_tokens > 0);

  await done;
  assert.deepEqual(deltas, Array.from({ length: n }, (_, i) => ({ requestIndex: 0, deltaIndex: i })));
});

test("streamed text honours explicit chunks, stopReason and delayMs", async (t) => {
  const server = await serve(t);
  server.enqueue(
    { kind: "text", text: "ignored", chunks: ["Hel", "lo", "!"], delayMs: 40, stopReason: "max_tokens" },
    { kind: "text", text: "a STOP", stopReason: "stop_sequence" },
  );
  const t0 = performance.now();
  const events = parseSse(await (await post(server, simple(), { stream: true })).text());
  assert.ok(performance.now() - t0 >= 70, "two 40 ms gaps between three deltas");
  assert.deepEqual(
    events.filter((e) => e.event === "content_block_delta").map((e) => e.json.delta.text),
    ["Hel", "lo", "!"],
  );
  assert.equal(events.find((e) => e.event === "message_delta").json.delta.stop_reason, "max_tokens");

  const msg = await (await post(server, simple())).json();
  assert.equal(msg.stop_reason, "stop_sequence");
  assert.equal(typeof msg.stop_sequence, "string");
});

test("holdLast keeps the last delta back until the test releases it", async (t) => {
  const server = await serve(t);
  let release;
  const held = new Promise((r) => (release = r));
  server.enqueue({ kind: "text", text: "ignored", chunks: ["one ", "two ", "three"], holdLast: held });
  const sent = [];
  server.on("delta-sent", (d) => sent.push(d.deltaIndex));
  const answer = post(server, simple(), { stream: true }).then((res) => res.text());
  // Both deltas before the last are sent, then the stream waits: the server sends a delta a turn
  // of the event loop, and ten turns later the last one is still not sent.
  await new Promise((resolve) => server.on("delta-sent", () => sent.length === 2 && resolve()));
  for (let turn = 0; turn < 10; turn++) await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(sent, [0, 1]);
  release();
  const events = parseSse(await answer);
  assert.deepEqual(sent, [0, 1, 2]);
  assert.equal(textOf(events), "one two three");
});

test("holds keeps a given delta back until its promise resolves", async (t) => {
  const server = await serve(t);
  let release;
  const held = new Promise((r) => (release = r));
  server.enqueue({ kind: "text", text: "ignored", chunks: ["one ", "two ", "three"], holds: { 1: held } });
  const sent = [];
  server.on("delta-sent", (d) => sent.push(d.deltaIndex));
  const answer = post(server, simple(), { stream: true }).then((res) => res.text());
  await new Promise((resolve) => server.on("delta-sent", () => sent.length === 1 && resolve()));
  for (let turn = 0; turn < 10; turn++) await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(sent, [0]);
  release();
  assert.equal(textOf(parseSse(await answer)), "one two three");
  assert.deepEqual(sent, [0, 1, 2]);
});

test("multibyte text (emoji, Japanese) is split on whole characters", async (t) => {
  const server = await serve(t);
  const text = "Héllo 👋🏽 世界、こんにちは！ 🇯🇵👨‍👩‍👧 日本語のテキスト end";
  server.enqueue({ kind: "text", text });
  const events = parseSse(await (await post(server, simple(), { stream: true })).text());
  const pieces = events.filter((e) => e.event === "content_block_delta").map((e) => e.json.delta.text);
  assert.ok(pieces.length > 5);
  assert.equal(pieces.join(""), text);
  const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
  const seg = new Intl.Segmenter(undefined, { granularity: "grapheme" });
  for (const p of pieces) {
    assert.doesNotMatch(p, loneSurrogate);
    assert.ok([...seg.segment(p)].length <= 4, `piece ${JSON.stringify(p)} has at most 4 characters`);
  }
  // Every cut between pieces is a character boundary of the whole text (flags, ZWJ families intact).
  const boundaries = new Set([...seg.segment(text)].map((s) => s.index));
  let offset = 0;
  for (const p of pieces.slice(0, -1)) {
    offset += p.length;
    assert.ok(boundaries.has(offset), `cut at ${offset} splits a character`);
  }
});

test("streamed tool_use: input_json_delta pieces concatenate to the input", async (t) => {
  const server = await serve(t);
  const input = { path: "Notes/日記.md", content: "line 1\nline 2 🎉", tags: ["a", "b"] };
  server.enqueue({
    kind: "tool_use",
    text: "Let me write that.",
    tools: [{ name: "write_file", input }, { id: "toolu_custom", name: "list_files", input: {} }],
  });
  const events = parseSse(await (await post(server, simple(), { stream: true })).text());
  assert.equal(textOf(events, 0), "Let me write that.");

  const starts = events.filter((e) => e.event === "content_block_start").map((e) => e.json);
  assert.deepEqual(starts.map((s) => s.index), [0, 1, 2]);
  assert.deepEqual(starts[1].content_block, { type: "tool_use", id: "toolu_scripted_0001", name: "write_file", input: {} });
  assert.deepEqual(starts[2].content_block, { type: "tool_use", id: "toolu_custom", name: "list_files", input: {} });

  for (const [index, expected] of [[1, input], [2, {}]]) {
    const pieces = events
      .filter((e) => e.event === "content_block_delta" && e.json.index === index)
      .map((e) => e.json.delta);
    assert.ok(pieces.every((d) => d.type === "input_json_delta"));
    const parts = pieces.map((d) => d.partial_json);
    assert.ok(parts.length >= 3, "several pieces");
    assert.ok(parts.includes(""), "one empty piece");
    assert.deepEqual(JSON.parse(parts.join("")), expected);
  }
  assert.ok(events.some((e) => e.event === "content_block_stop" && e.json.index === 2));
  assert.equal(events.find((e) => e.event === "message_delta").json.delta.stop_reason, "tool_use");
  assert.equal(events.at(-1).event, "message_stop");
});

test("non-streamed tool_use returns full blocks", async (t) => {
  const server = await serve(t);
  server.enqueue({ kind: "tool_use", tools: [{ name: "read_file", input: { path: "a.md" } }] });
  const msg = await (await post(server, simple())).json();
  assert.equal(msg.stop_reason, "tool_use");
  assert.deepEqual(msg.content, [{ type: "tool_use", id: "toolu_scripted_0001", name: "read_file", input: { path: "a.md" } }]);
});

test("truncated tool call with max_tokens: last tool's JSON is invalid", async (t) => {
  const server = await serve(t);
  server.enqueue({
    kind: "tool_use",
    stopReason: "max_tokens",
    tools: [{ name: "read_file", input: { path: "a.md" } }, { name: "write_file", input: { path: "b.md", content: "long text here" } }],
  });
  const events = parseSse(await (await post(server, simple(), { stream: true })).text());
  const json = (index) => events
    .filter((e) => e.event === "content_block_delta" && e.json.index === index)
    .map((e) => e.json.delta.partial_json).join("");
  assert.deepEqual(JSON.parse(json(0)), { path: "a.md" });
  assert.ok(json(1).length > 0);
  assert.ok(JSON.stringify({ path: "b.md", content: "long text here" }).startsWith(json(1)));
  assert.throws(() => JSON.parse(json(1)), SyntaxError);
  assert.equal(events.find((e) => e.event === "message_delta").json.delta.stop_reason, "max_tokens");
  assert.equal(events.at(-1).event, "message_stop");
});

test("error steps: status, body and headers", async (t) => {
  const server = await serve(t);
  server.enqueue(
    { kind: "error", status: 429, type: "rate_limit_error", message: "Slow down", headers: { "retry-after": "2" } },
    { kind: "error", status: 529, type: "overloaded_error", headers: { "x-should-retry": "true" } },
    { kind: "error", status: 401, type: "authentication_error" },
    { kind: "error", status: 400, type: "invalid_request_error", message: "prompt is too long" },
  );
  const r1 = await post(server, simple(), { stream: true });
  assert.equal(r1.status, 429);
  assert.equal(r1.headers.get("retry-after"), "2");
  assert.match(r1.headers.get("content-type"), /^application\/json/);
  const b1 = await r1.json();
  assert.equal(b1.type, "error");
  assert.deepEqual(b1.error, { type: "rate_limit_error", message: "Slow down" });
  assert.match(b1.request_id, /^req_scripted_\d{4}$/);

  const r2 = await post(server, simple());
  assert.equal(r2.status, 529);
  assert.equal(r2.headers.get("x-should-retry"), "true");
  assert.equal((await r2.json()).error.type, "overloaded_error");

  const r3 = await post(server, simple());
  assert.equal(r3.status, 401);
  assert.equal((await r3.json()).error.type, "authentication_error");

  const r4 = await post(server, simple());
  assert.equal(r4.status, 400);
  assert.deepEqual((await r4.json()).error, { type: "invalid_request_error", message: "prompt is too long" });
});

test("stream_error: 200 SSE, some deltas, then an error event", async (t) => {
  const server = await serve(t);
  server.enqueue({ kind: "stream_error", text: "abcdefghijklmnop", errorType: "overloaded_error", afterDeltas: 2 });
  server.enqueue({ kind: "stream_error", errorType: "overloaded_error" });
  const res = await post(server, simple(), { stream: true });
  assert.equal(res.status, 200);
  const events = parseSse(await res.text());
  assert.deepEqual(events.map((e) => e.event), [
    "message_start", "ping", "content_block_start", "content_block_delta", "content_block_delta", "error",
  ]);
  assert.equal(textOf(events), "abcdefgh");
  assert.deepEqual(events.at(-1).json, { type: "error", error: { type: "overloaded_error", message: "Overloaded" } });

  // Non-streamed, the same step becomes the matching HTTP error.
  const r2 = await post(server, simple());
  assert.equal(r2.status, 529);
  assert.equal((await r2.json()).error.type, "overloaded_error");
});

test("reset: the connection dies mid-response", async (t) => {
  const server = await serve(t);
  server.enqueue(
    { kind: "reset", text: "abcdefghijkl", afterDeltas: 2 },
    { kind: "reset" },
    { kind: "reset", afterDeltas: 0 },
    { kind: "text", text: "still alive" },
  );
  const res = await post(server, simple(), { stream: true });
  assert.equal(res.status, 200);
  const { text, error } = await readAll(res);
  assert.ok(error, "reading the body rejects");
  const events = parseSse(text);
  assert.equal(textOf(events), "abcdefgh", "deltas before the reset arrived");
  assert.ok(!events.some((e) => e.event === "message_stop"));

  const r2 = await post(server, simple());
  assert.equal(r2.status, 200);
  await assert.rejects(r2.text());

  await assert.rejects(post(server, simple()), TypeError, "fetch itself fails with afterDeltas 0");

  assert.equal(await (await post(server, simple())).json().then((m) => m.content[0].text), "still alive");
  assert.ok(server.requests.slice(0, 3).every((r) => r.aborted === false), "our own resets are not client aborts");
});

test("malformed: invalid JSON in a data line / in the body", async (t) => {
  const server = await serve(t);
  server.enqueue({ kind: "malformed", afterDeltas: 2 }, { kind: "malformed" });
  const res = await post(server, simple(), { stream: true });
  assert.equal(res.status, 200);
  const events = parseSse(await res.text());
  assert.equal(events.filter((e) => e.event === "content_block_delta" && e.json).length, 2);
  const bad = events.at(-1);
  assert.equal(bad.event, "content_block_delta");
  assert.equal(bad.json, undefined);
  assert.throws(() => JSON.parse(bad.data), SyntaxError);
  assert.ok(!events.some((e) => e.event === "message_stop"));

  const r2 = await post(server, simple());
  assert.equal(r2.status, 200);
  await assert.rejects(r2.json(), SyntaxError);
});

test("unknown_events: unknown event, unknown block at index 0, comments", async (t) => {
  const server = await serve(t);
  const text = "Answer after thinking.";
  server.enqueue({ kind: "unknown_events", text }, { kind: "unknown_events", text });
  const raw = await (await post(server, simple(), { stream: true })).text();
  assert.match(raw, /^: keepalive$/m);
  const events = parseSse(raw);
  assert.ok(events.comments >= 2);
  assert.ok(events.filter((e) => e.event === "future_thing").length >= 2);
  const starts = events.filter((e) => e.event === "content_block_start").map((e) => e.json);
  assert.equal(starts[0].index, 0);
  assert.equal(starts[0].content_block.type, "thinking");
  assert.equal(starts[1].index, 1);
  assert.equal(starts[1].content_block.type, "text");
  const deltaTypes0 = events.filter((e) => e.event === "content_block_delta" && e.json.index === 0).map((e) => e.json.delta.type);
  assert.deepEqual(deltaTypes0, ["thinking_delta", "signature_delta"]);
  assert.equal(textOf(events, 1), text);
  // a future_thing sits between two text deltas
  const i1 = events.findIndex((e) => e.event === "content_block_delta" && e.json.index === 1);
  assert.equal(events[i1 + 1].event, "future_thing");
  assert.equal(events.at(-1).event, "message_stop");

  const msg = await (await post(server, simple())).json();
  assert.equal(msg.content[0].type, "thinking");
  assert.deepEqual(msg.content[1], { type: "text", text });
});

test("hang: client abort is recorded (streamed and not)", async (t) => {
  const server = await serve(t);
  server.enqueue({ kind: "hang" }, { kind: "hang" });

  const ac1 = new AbortController();
  const res = await post(server, simple(), { stream: true, signal: ac1.signal });
  assert.equal(res.status, 200);
  const reader = res.body.getReader();
  const first = new TextDecoder().decode((await reader.read()).value);
  assert.match(first, /^event: message_start/);
  let aborted = once(server, "aborted");
  ac1.abort();
  assert.deepEqual((await aborted)[0], { requestIndex: 0 });
  assert.equal(server.requests[0].aborted, true);

  const ac2 = new AbortController();
  const pending = post(server, simple(), { signal: ac2.signal });
  await server.waitForRequests(2);
  aborted = once(server, "aborted");
  ac2.abort();
  await assert.rejects(pending, { name: "AbortError" });
  assert.deepEqual((await aborted)[0], { requestIndex: 1 });
  assert.equal(server.requests[1].aborted, true);
});

test("client abort during a slow drip; the server keeps serving", async (t) => {
  const server = await serve(t);
  server.enqueue({ kind: "text", text: "a slow answer that drips", delayMs: 30 }, { kind: "text", text: "next" });
  const ac = new AbortController();
  const res = await post(server, simple(), { stream: true, signal: ac.signal });
  server.once("delta-sent", () => ac.abort());
  const [{ requestIndex }] = await once(server, "aborted");
  assert.equal(requestIndex, 0);
  await assert.rejects(res.text());
  assert.equal(server.requests[0].aborted, true);
  assert.equal((await (await post(server, simple())).json()).content[0].text, "next");
});

test("close() ends hanging responses instead of keeping the process alive", async () => {
  const server = await startScriptedServer();
  server.enqueue({ kind: "hang" }, { kind: "hang" });
  const p1 = post(server, simple());
  const p2 = post(server, simple(), { stream: true }).then((r) => r.text());
  await server.waitForRequests(2);
  const t0 = performance.now();
  await server.close();
  assert.ok(performance.now() - t0 < 1000);
  await assert.rejects(p1);
  await assert.rejects(p2);
  assert.ok(server.requests.every((r) => r.aborted === false));
});

test("pause_turn", async (t) => {
  const server = await serve(t);
  server.enqueue({ kind: "pause_turn", text: "Working..." }, { kind: "pause_turn", text: "Working..." });
  const msg = await (await post(server, simple())).json();
  assert.equal(msg.stop_reason, "pause_turn");
  assert.equal(msg.content[0].text, "Working...");
  const events = parseSse(await (await post(server, simple(), { stream: true })).text());
  assert.equal(events.find((e) => e.event === "message_delta").json.delta.stop_reason, "pause_turn");
  assert.equal(textOf(events), "Working...");
});

test("fallback when the queue is empty; pending() and ids", async (t) => {
  const server = await serve(t);
  assert.equal(server.pending(), 0);
  for (const id of ["msg_scripted_0001", "msg_scripted_0002"]) {
    const msg = await (await post(server, simple())).json();
    assert.equal(msg.id, id);
    assert.deepEqual(msg.content, [{ type: "text", text: "ok" }]);
  }
  server.enqueue({ kind: "text", text: "one" }, { kind: "text", text: "two" });
  assert.equal(server.pending(), 2);
  await post(server, simple()).then((r) => r.json());
  assert.equal(server.pending(), 1);

  const custom = await serve(t, { fallback: { kind: "error", status: 500, type: "api_error" } });
  assert.equal((await post(custom, simple())).status, 500);
  assert.equal((await post(custom, simple())).status, 500);
});

test("other paths answer 404 without consuming steps", async (t) => {
  const server = await serve(t);
  server.enqueue({ kind: "text", text: "kept" });
  const r1 = await fetch(`${server.url}/v1/models`);
  assert.equal(r1.status, 404);
  const b1 = await r1.json();
  assert.equal(b1.type, "error");
  assert.equal(b1.error.type, "not_found_error");
  assert.match(b1.request_id, /^req_scripted_/);
  assert.equal((await fetch(`${server.url}/v1/messages`)).status, 404, "GET /v1/messages");
  assert.equal((await post(server, simple(), { path: "/v1/complete" })).status, 404);
  assert.equal(server.pending(), 1);
  assert.equal(server.requests.length, 3);
  assert.equal(server.requests[0].step, null);
});

test("schema validation of request bodies", async (t) => {
  const server = await serve(t);
  const valid = {
    model: MODEL,
    max_tokens: 1024,
    stream: true,
    system: [{ type: "text", text: "You are helpful.", cache_control: { type: "ephemeral" } }, { type: "text", text: "Now: 12:00" }],
    tools: [{
      name: "read_file",
      description: "Read a note",
      input_schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
      cache_control: { type: "ephemeral" },
    }],
    tool_choice: { type: "auto", disable_parallel_tool_use: false },
    messages: [
      { role: "user", content: "Read a.md" },
      { role: "assistant", content: [{ type: "text", text: "Sure." }, { type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "a.md" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "# A", is_error: false }] },
    ],
  };
  const noId = structuredClone(valid);
  delete noId.messages[2].content[0].tool_use_id;
  const bodies = [
    valid,
    { ...valid, unknown_field: true },
    { ...valid, tool_choice: "auto" },
    noId,
    { model: MODEL, messages: [{ role: "user", content: "no max_tokens" }] },
  ];
  for (const body of bodies) await (await post(server, body)).text();
  await (await post(server, "{not json")).text();

  const errs = server.requests.map((r) => r.schemaErrors);
  assert.deepEqual(errs[0], []);
  assert.ok(errs[1].some((e) => e.keyword === "additionalProperties" && e.params.additionalProperty === "unknown_field"));
  assert.ok(errs[2].length > 0);
  assert.ok(errs[3].length > 0);
  assert.ok(errs[3].some((e) => e.params?.missingProperty === "tool_use_id"));
  assert.ok(errs[4].some((e) => e.params?.missingProperty === "max_tokens"));
  assert.ok(errs[5].length > 0);
  assert.equal(server.requests[5].body, null);
});

test("assert hook records failures without crashing", async (t) => {
  const server = await serve(t);
  server.enqueue(
    { kind: "text", text: "a", assert: (body) => assert.equal(body.max_tokens, 256) },
    { kind: "text", text: "b", assert: (body) => { if (body.max_tokens !== 1) throw new Error("max_tokens should be 1"); } },
  );
  assert.equal((await (await post(server, simple())).json()).content[0].text, "a");
  assert.equal((await (await post(server, simple())).json()).content[0].text, "b");
  assert.equal(server.requests[0].assertError, null);
  assert.equal(server.requests[1].assertError, "max_tokens should be 1");
});

test("waitForRequests, request event, enqueue validation", async (t) => {
  const server = await serve(t);
  const seen = [];
  server.on("request", (r) => seen.push(r.index));
  await assert.rejects(server.waitForRequests(1, 30), /waitForRequests/);
  const waiting = server.waitForRequests(2);
  await (await post(server, simple())).text();
  await (await post(server, simple())).text();
  assert.equal((await waiting).length, 2);
  assert.deepEqual(seen, [0, 1]);
  assert.throws(() => server.enqueue({ kind: "nope" }), TypeError);
  assert.throws(() => server.enqueue("text"), TypeError);
});
