// The connection check (issue 24): `--check` against the scripted server and against servers
// that fail the ways users meet — a web page where the API should be, a key refused, a model the
// server does not have, nothing listening — each with the line naming the setting to change; and
// against the real llama-server in both formats.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { startScriptedServer } from "../peers/anthropic-server.mjs";
import { freePort, runHeadless, tmpVault } from "./helpers.mjs";

let scripted;
before(async () => {
  scripted = await startScriptedServer();
});
after(() => scripted.close());

/** An HTTP server that answers every request with `answer(req)` = [status, body, type]. */
async function fakeServer(answer) {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const [status, body, type = "application/json"] = answer(req);
      res.writeHead(status, { "content-type": type }).end(typeof body === "string" ? body : JSON.stringify(body));
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) };
}

async function check(url, extra = []) {
  const started = Date.now();
  const run = await runHeadless(["--vault", tmpVault(), "--llm-base-url", url, "--model", "scripted", "--check", ...extra], { env: { ANTHROPIC_API_KEY: "k" } });
  const lines = run.stdout.trim().split("\n").filter(Boolean);
  return { ...run, lines, ms: Date.now() - started };
}

test("a working server: every line passes and the exit code is 0", async () => {
  const from = scripted.requests.length;
  scripted.enqueue(
    { kind: "text", text: "OK" },
    { kind: "tool_use", text: "", tools: [{ name: "connection_probe", input: { word: "ping" } }] },
    { kind: "text", text: "Red." },
  );
  const { code, lines, stderr } = await check(scripted.url, ["--api-key-env", "ANTHROPIC_API_KEY"]);
  assert.equal(code, 0, stderr + lines.join("\n"));
  assert.deepEqual(lines.map((l) => l.split(":")[0]), ["ok   reachable", "ok   model", "ok   key", "ok   streaming", "ok   tools", "ok   images"]);
  const image = scripted.requests.slice(from).at(-1);
  assert.equal(image.body.messages[0].content[0].type, "image", "a real image block");
  assert.deepEqual(image.schemaErrors, [], "valid against the Messages API schema");
});

test("a model without vision: the images line says so, and the check still passes", async () => {
  scripted.enqueue(
    { kind: "text", text: "OK" },
    { kind: "tool_use", text: "", tools: [{ name: "connection_probe", input: { word: "ping" } }] },
    { kind: "error", status: 400, type: "invalid_request_error", message: "image input is not supported by this model" },
  );
  const { code, lines } = await check(scripted.url);
  assert.equal(code, 0, lines.join("\n"));
  assert.match(lines.at(-1), /^no   images: scripted does not take images \(.*not supported.*\): chatting works, but attach no images or PDFs/);
});

test("a model that never calls the probe tool fails the tools line, saying why", async () => {
  scripted.enqueue({ kind: "text", text: "OK" }, { kind: "text", text: "I would rather not." });
  const { code, lines } = await check(scripted.url);
  assert.equal(code, 1);
  assert.match(lines.find((l) => l.includes(" tools:")), /^FAIL tools: scripted answered without calling the probe tool: .*--jinja/);
});

test("the failures users meet, each naming the setting to change, within seconds", async (t) => {
  const cases = [
    ["a web page", () => [200, "<!DOCTYPE html><html><body>Welcome to nginx</body></html>", "text/html"], /^FAIL reachable: .*answered a web page, not the API: the base URL .* with or without \/v1/],
    ["a refused key", () => [401, { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } }], /^FAIL key: the key was refused .*auth style to "bearer"/],
    ["an unknown model", (req) => (req.method === "GET" ? [200, { data: [{ id: "llama3" }, { id: "qwen3" }] }] : [500, {}]), /^FAIL model: the server has no model named scripted: choose one of llama3, qwen3/],
    ["not JSON", () => [200, "hello"], /^FAIL reachable: .*is not JSON: is this a anthropic server\?/],
  ];
  for (const [name, answer, expected] of cases) {
    const server = await fakeServer(answer);
    t.after(() => server.close());
    const { code, lines, ms } = await check(server.url);
    assert.equal(code, 1, name);
    assert.match(lines.find((l) => l.startsWith("FAIL")) ?? "", expected, name);
    assert.ok(ms < 10_000, `${name}: answered in ${ms} ms`);
  }
  const closed = await freePort();
  const { code, lines } = await check(`http://127.0.0.1:${closed}`);
  assert.equal(code, 1);
  assert.match(lines[0], /^FAIL reachable: cannot reach http:\/\/127\.0\.0\.1:\d+\/v1\/models .*check the base URL/);
});

test("the real llama-server passes in both formats, its model listed", { skip: !process.env.SMARTHOLE_TEST_MODEL_URL }, async () => {
  for (const format of ["anthropic", "openai"]) {
    const run = await runHeadless(["--vault", tmpVault(), "--llm-base-url", process.env.SMARTHOLE_TEST_MODEL_URL, "--model", "smollm2", "--format", format, "--auth", "none", "--check"]);
    const lines = run.stdout.trim().split("\n");
    // The small model may or may not call the probe tool; everything before it must pass.
    for (const step of ["reachable", "model", "key", "streaming"]) {
      assert.ok(lines.some((l) => l.startsWith(`ok   ${step}:`)), `${format} ${step}:\n${run.stdout}${run.stderr}`);
    }
    assert.match(run.stdout, /^models: .*smollm2/m);
  }
});
