// The headless command against the scripted Anthropic server: plain and streamed answers, the
// tool loop, faults and retries, bad input, and a Stop (SIGINT) mid-stream.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import { startScriptedServer } from "../peers/anthropic-server.mjs";
import { tmpVault, once, history, inbox, runHeadless, startHeadless, waitFor, timesRecorded } from "./helpers.mjs";

let server;
before(async () => {
  server = await startScriptedServer();
});
after(() => server.close());

function assertValidRequests(from = 0) {
  for (const r of server.requests.slice(from)) {
    if (r.path !== "/v1/messages") continue;
    assert.deepEqual(r.schemaErrors, [], `request ${r.index} matches CreateMessageParams`);
  }
}

test("a streamed answer: the result as JSON on stdout, the tokens on stderr, history recorded", async () => {
  const vault = tmpVault();
  const from = server.requests.length;
  server.enqueue({ kind: "text", text: "Hello from the scripted model." });
  const run = await once(vault, server.url, "hello");
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.result.success, true);
  assert.equal(run.result.response, "Hello from the scripted model.");
  assert.match(run.stderr, /Hello from the scripted model\./);
  assert.equal(server.requests[from].body.stream, true);
  assert.equal(server.requests[from].headers["anthropic-version"], "2023-06-01");
  assert.deepEqual(history(vault).map((l) => [l.role, l.content[0].text]), [
    ["user", "hello"],
    ["assistant", "Hello from the scripted model."],
  ]);
  assert.deepEqual(inbox(vault), []);
  assertValidRequests(from);
});

test("the non-streaming path", async () => {
  const vault = tmpVault();
  const from = server.requests.length;
  server.enqueue({ kind: "text", text: "Whole answer." });
  const run = await once(vault, server.url, "hi", ["--no-stream"]);
  assert.equal(run.result.response, "Whole answer.");
  assert.equal(server.requests[from].body.stream, undefined);
});

test("a tool loop: send_message runs once, its result goes back paired with its id", async () => {
  const vault = tmpVault();
  const from = server.requests.length;
  server.enqueue(
    { kind: "tool_use", text: "On it.", tools: [{ id: "toolu_a", name: "send_message", input: { message: "Halfway" } }] },
    { kind: "text", text: "Done." },
  );
  const run = await once(vault, server.url, "do it");
  assert.equal(run.result.success, true);
  assert.deepEqual(run.result.toolsUsed, ["send_message"]);
  assert.equal(run.result.response, "On it.\n\nDone.");
  assert.match(run.stderr, /» Halfway/);
  const second = server.requests[from + 1].body.messages;
  assert.equal(second.length, 3);
  // The newest block carries the rolling prompt-cache mark (issue 17).
  const { cache_control: _mark, ...result } = second[2].content[0];
  assert.deepEqual(result, { type: "tool_result", tool_use_id: "toolu_a", content: "Message delivered to the user." });
  assertValidRequests(from);
});

test("429 with retry-after, 529, 500, a reset and malformed SSE are all retried to success", async () => {
  const vault = tmpVault();
  const from = server.requests.length;
  server.enqueue(
    { kind: "error", status: 429, type: "rate_limit_error", headers: { "retry-after": "1" } },
    { kind: "error", status: 529, type: "overloaded_error" },
    { kind: "reset", text: "partial", afterDeltas: 1 },
    { kind: "text", text: "Made it." },
  );
  const run = await once(vault, server.url, "persist");
  assert.equal(run.result.response, "Made it.", run.stderr);
  const times = server.requests.slice(from).map((r) => r.receivedAt);
  const gaps = times.slice(1).map((t, i) => t - times[i]);
  // 1 s, 2 s, 4 s (timings are loose here: virtual-time tests pin them exactly).
  assert.ok(gaps[0] >= 950 && gaps[1] >= 1950 && gaps[2] >= 3950, `gaps ${gaps}`);
  assert.match(run.stderr, /Too many requests/);

  const vault2 = tmpVault();
  server.enqueue({ kind: "malformed", afterDeltas: 1 }, { kind: "error", status: 500, type: "api_error" }, { kind: "text", text: "Recovered." });
  const run2 = await once(vault2, server.url, "again");
  assert.equal(run2.result.response, "Recovered.");
  assert.equal(timesRecorded(vault2, "again"), 1);
});

test("an auth error is not retried and gives the seed's message; the message waits in the inbox", async () => {
  const vault = tmpVault();
  const from = server.requests.length;
  server.enqueue({ kind: "error", status: 401, type: "authentication_error" });
  const run = await once(vault, server.url, "hello?");
  assert.equal(run.code, 1);
  assert.equal(run.result.success, false);
  assert.equal(run.result.errorCode, "auth_error");
  assert.equal(run.result.error, "API key is missing or invalid");
  assert.equal(server.requests.length - from, 1);
  assert.equal(inbox(vault).filter((f) => f.endsWith(".json")).length, 1, "the message waits (beside its run's journal)");
  // The next start finishes it first.
  server.enqueue({ kind: "text", text: "Answer to hello." }, { kind: "text", text: "Answer to next." });
  const next = await once(vault, server.url, "next");
  assert.equal(next.result.response, "Answer to next.");
  assert.deepEqual(history(vault).filter((l) => l.role === "user").map((l) => l.content[0].text), ["hello?", "next"]);
  assert.deepEqual(inbox(vault), []);
});

test("unknown events and blocks are ignored", async () => {
  const vault = tmpVault();
  server.enqueue({ kind: "unknown_events", text: "Still readable." });
  const run = await once(vault, server.url, "hi");
  assert.equal(run.result.response, "Still readable.");
});

test("bad input: a clear error, no crash loop", async () => {
  const vault = tmpVault();
  const noVault = await runHeadless(["--vault", path.join(vault, "missing"), "--once", "x"]);
  assert.equal(noVault.code, 2);
  assert.match(noVault.stderr, /does not exist/);
  const badFlag = await runHeadless(["--vault", vault, "--bogus"]);
  assert.equal(badFlag.code, 2);
  const noKey = await runHeadless(["--vault", vault, "--api-key-env", "SURELY_NOT_SET_123", "--once", "x"]);
  assert.match(noKey.stderr, /SURELY_NOT_SET_123.*not set/);
  for (const [message, pattern] of [
    [{ id: "a", text: 42 }, /text must be a string/],
    [{ text: "no id" }, /no id/],
    [{ id: "big", text: "x".repeat(100_001) }, /100001 characters/],
  ]) {
    const run = await runHeadless(["--vault", vault, "--llm-base-url", server.url, "--once-json", JSON.stringify(message)]);
    const result = JSON.parse(run.stdout);
    assert.equal(result.success, false);
    assert.equal(result.errorCode, "invalid_message");
    assert.match(result.error, pattern);
  }
  // A corrupt inbox file is set aside; the run goes on.
  mkdirSync(path.join(vault, ".smarthole/inbox"), { recursive: true });
  writeFileSync(path.join(vault, ".smarthole/inbox/broken.json"), "{not json");
  server.enqueue({ kind: "text", text: "fine" });
  const run = await once(vault, server.url, "still works");
  assert.equal(run.result.response, "fine");
  assert.deepEqual(inbox(vault), []);
  const failed = JSON.parse(readFileSync(path.join(vault, ".smarthole/failed/broken.json"), "utf8"));
  assert.match(failed.error, /unreadable inbox file/);
  assert.match(run.stderr, /set aside/);
});

test("Stop (Ctrl-C) mid-stream aborts the request, records nothing, and the next message works", async () => {
  const vault = tmpVault();
  const from = server.requests.length;
  const long = "word ".repeat(400);
  server.enqueue({ kind: "text", text: long, delayMs: 20 }, { kind: "text", text: "Second answer." });
  const child = startHeadless(["--vault", vault, "--llm-base-url", server.url], { stdin: "pipe" });
  child.stdin.write("tell me a long story\n");
  await waitFor(() => child.stdoutText.includes("word word"), 10_000, "tokens to stream");
  child.kill("SIGINT");
  await waitFor(() => child.stdoutText.includes("[stopped]"), 5_000, "the stop");
  await waitFor(() => server.requests[from].aborted, 2_000, "the server to see the abort");
  child.stdin.write("and now?\n");
  await waitFor(() => child.stdoutText.includes("Second answer."), 10_000, "the next answer");
  child.stdin.end();
  const { code } = await child.done;
  assert.equal(code, 0, child.stderrText);
  const lines = history(vault);
  assert.deepEqual(lines.map((l) => l.content[0].text), ["and now?", "Second answer."], "the stopped turn is not recorded");
  assert.deepEqual(inbox(vault), []);
});
