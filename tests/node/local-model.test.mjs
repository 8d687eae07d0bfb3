// The real local model (SmolLM2 under llama-server, started by scripts/test.sh): a plain and a
// streamed answer through the same client, and a Stop mid-stream.
import { test } from "node:test";
import assert from "node:assert/strict";
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
