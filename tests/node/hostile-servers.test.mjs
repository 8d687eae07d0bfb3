// Model servers that misbehave (issue 32), against the built bundle and Node's real fetch: a
// redirect to another host or port never carries the key there (chat and --check), a key echoed
// back in an error is never printed, a server that takes the connection and never answers is
// given up on by --check within seconds, and an answer that never ends is cut, not grown until
// the core traps.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { once, runHeadless, tmpVault } from "./helpers.mjs";

const KEY = "sk-ant-api03-REDIRECT-SECRET-123456";

/** An HTTP server calling `handle(req, res, body)`; keeps every request's method, url and headers. */
async function server(handle) {
  const requests = [];
  const sockets = new Set();
  const srv = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8").on("data", (d) => (body += d));
    req.on("end", () => {
      requests.push({ method: req.method, url: req.url, headers: req.headers });
      handle(req, res, body);
    });
  });
  srv.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise((resolve) => srv.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${srv.address().port}`;
  const close = () => {
    for (const s of sockets) s.destroy();
    return new Promise((r) => srv.close(r));
  };
  return { url, requests, close };
}

const keyed = { env: { ANTHROPIC_API_KEY: KEY } };

for (const status of [301, 302, 307, 308]) {
  test(`a ${status} to another port: the key never reaches it, in the chat or in --check`, async () => {
    const elsewhere = await server((req, res) => res.writeHead(200, { "content-type": "application/json" }).end("{}"));
    const redirecting = await server((req, res) => res.writeHead(status, { location: `${elsewhere.url}${req.url}` }).end());
    try {
      const chat = await once(tmpVault(), redirecting.url, "hello", [], keyed);
      assert.equal(chat.result?.errorCode, "redirected", chat.stdout + chat.stderr);
      assert.ok(chat.result.error.includes(elsewhere.url), chat.result.error);
      assert.match(chat.result.error, /set the base URL/);
      const check = await runHeadless(["--vault", tmpVault(), "--llm-base-url", redirecting.url, "--model", "m", "--check"], keyed);
      assert.notEqual(check.code, 0, "the check fails");
      assert.match(check.stdout, /^FAIL reachable: The server redirected the request to http:\/\/127\.0\.0\.1:\d+\/v1\/models/m, check.stdout);
      assert.doesNotMatch(check.stdout, /^ok +reachable/m);
      assert.deepEqual(elsewhere.requests, [], "nothing was sent to the other port");
      assert.ok(redirecting.requests.length >= 2 && redirecting.requests.every((r) => r.headers["x-api-key"] === KEY));
    } finally {
      await Promise.all([elsewhere.close(), redirecting.close()]);
    }
  });
}

test("a key the server echoes back in its error is printed nowhere", async () => {
  const echo = await server((req, res) => {
    const message = `invalid x-api-key: ${req.headers["x-api-key"]}`;
    res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ type: "error", error: { type: "invalid_request_error", message } }));
  });
  try {
    const chat = await once(tmpVault(), echo.url, "hello", ["--verbose"], keyed);
    assert.equal(chat.result?.errorCode, "invalid_request", chat.stdout);
    assert.ok(chat.result.error.includes("invalid x-api-key: [hidden API key]"), chat.result.error);
    assert.ok(!chat.stdout.includes(KEY) && !chat.stderr.includes(KEY), `the key was printed:\n${chat.stdout}\n${chat.stderr}`);
    const check = await runHeadless(["--vault", tmpVault(), "--llm-base-url", echo.url, "--model", "m", "--check"], keyed);
    assert.ok(!check.stdout.includes(KEY) && !check.stderr.includes(KEY), check.stdout);
  } finally {
    await echo.close();
  }
});

test("a server that takes the connection and never answers: --check gives up in seconds and says so", { timeout: 60_000 }, async () => {
  const silent = await server(() => {});
  try {
    const check = await runHeadless(["--vault", tmpVault(), "--llm-base-url", silent.url, "--model", "m", "--check"], keyed);
    assert.notEqual(check.code, 0);
    assert.match(check.stdout, /^FAIL reachable: connected, but no answer in 15 s from http:\/\/127\.0\.0\.1:\d+\/v1\/models/m, check.stdout);
    assert.equal(silent.requests.length, 1);
  } finally {
    await silent.close();
  }
});

test("an answer that never ends is cut at 4 MB, recorded, and the host exits", { timeout: 120_000 }, async () => {
  const piece = "and on and on ".repeat(64);
  const endless = await server((req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(`event: message_start\ndata: ${JSON.stringify({ type: "message_start", message: { id: "m", role: "assistant", content: [], usage: { input_tokens: 5, output_tokens: 1 } } })}\n\n`);
    res.write(`event: content_block_start\ndata: ${JSON.stringify({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } })}\n\n`);
    const delta = `event: content_block_delta\ndata: ${JSON.stringify({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: piece } })}\n\n`;
    const more = () => {
      while (res.write(delta.repeat(16)));
      if (!res.destroyed) res.once("drain", more);
    };
    res.on("close", () => res.removeAllListeners("drain"));
    more();
  });
  try {
    const vault = tmpVault();
    const chat = await once(vault, endless.url, "talk forever");
    assert.equal(chat.result?.success, true, `exit ${chat.code}, ${chat.stdout.length} bytes out: ${chat.stderr.slice(-500)}`);
    assert.match(chat.result.notice, /The answer passed 4 MB and was cut there/);
  } finally {
    await endless.close();
  }
});
