// The agent API over real HTTP: the headless host serving it on 127.0.0.1, the scripted model
// answering messages, and the three example clients (Python, JavaScript, Rust) walking through
// config, context, a message round trip, a verification this test approves (as the user) and
// one left to time out.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import net from "node:net";
import { networkInterfaces } from "node:os";
import path from "node:path";
import { startScriptedServer } from "../peers/anthropic-server.mjs";
import { ROOT, tmpVault, startHeadless, waitFor, freePort } from "./helpers.mjs";

const TOKEN = "a".repeat(24) + "0123456789abcdef0123456789abcdef";
let server;
let headless;
let base;
let reviewerPort;

before(async () => {
  server = await startScriptedServer({ fallback: { kind: "text", text: "Added to Inbox.md." } });
  const vault = tmpVault();
  const [port, ownPort] = [await freePort(), await freePort()];
  reviewerPort = ownPort;
  base = `http://127.0.0.1:${port}`;
  const config = path.join(vault, "api.json");
  writeFileSync(
    config,
    JSON.stringify({
      verificationTimeoutSeconds: 3,
      agentContexts: [
        { name: "default", system: "test vault", role: "a test agent", baseInstruction: "ask first", allowedActions: ["deploy", "git_push"], verificationRequired: true },
        { name: "reviewer", port: ownPort, system: "test vault", role: "a reviewer", baseInstruction: "comment only", allowedActions: ["comment"], verificationRequired: false },
      ],
    }),
  );
  headless = startHeadless(
    ["--vault", vault, "--llm-base-url", server.url, "--model", "scripted", "--no-stream", "--api-port", String(port), "--api-config", config, "--approvals", "ask"],
    { env: { SMARTHOLE_API_TOKEN: TOKEN }, stdin: "pipe" },
  );
  await waitFor(() => headless.stderrText.includes(`listening on http://127.0.0.1:${ownPort}`), 15_000, "the agent API");
  // The user: approves every "deploy" verification as it appears; leaves the others alone.
  headless.stderr.on("data", (chunk) => {
    for (const [, id] of String(chunk).matchAll(/\[approval (ver-[0-9a-f]+)\] An external agent asks to deploy/g)) {
      headless.stdin.write(`/approve ${id}\n`);
    }
  });
});

after(async () => {
  headless?.kill("SIGTERM");
  await headless?.done;
  await server?.close();
});

function call(pathname, { method = "GET", token = TOKEN, headers = {}, body } = {}) {
  return fetch(base + pathname, {
    method,
    headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...headers },
    body,
  }).then(async (r) => ({ status: r.status, body: await r.json() }));
}

test("no token or a wrong one is 401; a browser Origin is refused; every error is JSON {error: {code, message}}", async () => {
  assert.deepEqual((await call("/config", { token: null })).body.error.code, "unauthorized");
  assert.equal((await call("/config", { token: null })).status, 401);
  assert.equal((await call("/config", { token: "b".repeat(64) })).status, 401);
  const browser = await call("/context", { headers: { Origin: "https://example.org" } });
  assert.deepEqual([browser.status, browser.body.error.code], [403, "forbidden_origin"]);
  const missing = await call("/admin");
  assert.deepEqual([missing.status, missing.body.error.code], [404, "not_found"]);
  assert.match(missing.body.error.message, /GET \/config lists them/);
});

test("oversized and malformed bodies: 413, and 400 naming the field", async () => {
  const big = await call("/messages", { method: "POST", body: JSON.stringify({ text: "x".repeat(70_000) }) });
  assert.deepEqual([big.status, big.body.error.code], [413, "payload_too_large"]);
  const notJson = await call("/verify", { method: "POST", body: "{action: deploy" });
  assert.deepEqual([notJson.status, notJson.body.error.code], [400, "invalid_json"]);
  const noReason = await call("/verify", { method: "POST", body: JSON.stringify({ action: "deploy" }) });
  assert.deepEqual([noReason.status, noReason.body.error.field], [400, "reason"]);
  assert.equal((await call("/config")).status, 200, "the server is fine afterwards");
});

test("the server is reachable on loopback only", async () => {
  const port = Number(new URL(base).port);
  /** "connected", or why not (an error code, or "timeout"). */
  const attempt = (host) =>
    new Promise((resolve) => {
      const socket = net.connect({ host, port, timeout: 2_000 });
      socket.once("connect", () => (socket.destroy(), resolve("connected")));
      socket.once("timeout", () => (socket.destroy(), resolve("timeout")));
      socket.once("error", (error) => resolve(error.code));
    });
  assert.equal(await attempt("127.0.0.1"), "connected");
  // 127.0.0.2 is loopback too but not 127.0.0.1: only a server bound to every address answers it.
  assert.equal(await attempt("127.0.0.2"), "ECONNREFUSED");
  const others = Object.values(networkInterfaces()).flat().filter((i) => !i.internal).map((i) => i.address);
  for (const host of others) assert.notEqual(await attempt(host), "connected", `not reachable on ${host}`);
});

test("a context on its own port, and the config lists both ports", async () => {
  const own = await fetch(`http://127.0.0.1:${reviewerPort}/context`, { headers: { Authorization: `Bearer ${TOKEN}` } }).then((r) => r.json());
  assert.equal(own.name, "reviewer");
  const { body: config } = await call("/config");
  assert.deepEqual(config.ports.map((p) => p.port), [Number(new URL(base).port), reviewerPort]);
  assert.equal(config.auth.token, undefined);
});

/** Runs an example client (against the test's server unless `env` says otherwise); resolves
 * with its exit code and output. */
function runClient(command, args, env = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: ROOT,
      env: { ...process.env, SMARTHOLE_API_URL: base, SMARTHOLE_API_TOKEN: TOKEN, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

const CLIENT_ARGS = ["--message", "remember the milk", "--verify", "deploy:ship the release", "--verify", "git_push:push to main"];
const CLIENTS = {
  Python: ["python3", ["examples/agent_api_client.py", ...CLIENT_ARGS]],
  JavaScript: [process.execPath, ["examples/agent_api_client.mjs", ...CLIENT_ARGS]],
  Rust: ["cargo", ["run", "--quiet", "--example", "agent_api_client", "--", ...CLIENT_ARGS]],
};

for (const [language, [command, args]] of Object.entries(CLIENTS)) {
  test(`the ${language} example client: config, context, a message round trip, one verification approved and one timed out`, { timeout: 300_000 }, async () => {
    const run = await runClient(command, args);
    assert.equal(run.code, 0, run.stderr);
    const lines = run.stdout.trim().split("\n");
    assert.match(lines[0], /^config: SmartHole Agent \S+, api_version 1, 7 endpoints$/);
    assert.equal(lines[1], "context: default (allowed: deploy, git_push)");
    assert.match(lines[2], /^message api-[0-9a-f]+: done: Added to Inbox\.md\.$/);
    assert.equal(lines[3], "verification deploy: approved");
    assert.equal(lines[4], "verification git_push: rejected (timeout)");
  });
}

test("the example clients give up clearly: a 4xx is not retried; nothing listening is retried with backoff, then reported", async () => {
  const closed = `http://127.0.0.1:${await freePort()}`;
  const started = Date.now();
  const unreachable = await runClient("python3", ["examples/agent_api_client.py", "--url", closed]);
  assert.equal(unreachable.code, 1);
  assert.match(unreachable.stderr, /cannot reach .* \(gave up after 5 attempts\)/);
  assert.ok(Date.now() - started >= 7_000, "0.5 + 1 + 2 + 4 s of backoff");
  const wrongToken = await runClient(process.execPath, ["examples/agent_api_client.mjs"], { SMARTHOLE_API_TOKEN: "wrong" });
  assert.equal(wrongToken.code, 1);
  assert.match(wrongToken.stderr, /HTTP 401 unauthorized/);
  assert.doesNotMatch(wrongToken.stderr, /gave up/, "a 4xx is not retried");
});
