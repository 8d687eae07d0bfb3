// The offline embedding model (all-MiniLM-L6-v2 under llama.cpp's server, started by
// scripts/test.sh with `scripts/local-model.sh embeddings-start`): the vectors it serves are the
// model's own (a numpy forward pass of the original fp32 weights, written beside the converted
// GGUF), they carry meaning, and the server's limits are the ones the index relies on.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";

const URL = process.env.SMARTHOLE_TEST_EMBEDDINGS_URL;
const skip = !URL && "needs the embedding server started by scripts/test.sh";

function localModel(args) {
  const run = spawnSync("scripts/local-model.sh", args, { encoding: "utf8", timeout: 120_000 });
  assert.equal(run.status, 0, run.stderr);
  return run.stdout.trim().split("\n").pop();
}

async function embed(input, extra = {}) {
  const response = await fetch(`${URL}/v1/embeddings`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: localModel(["embeddings-model"]), input, ...extra }),
  });
  return { status: response.status, body: await response.json() };
}

const dot = (a, b) => a.reduce((sum, x, i) => sum + x * b[i], 0);

test("the embedding server is running (scripts/test.sh starts it)", () => {
  assert.ok(URL, "SMARTHOLE_TEST_EMBEDDINGS_URL is set by scripts/test.sh; run the tests through `make test`");
});

test("the served vectors are the model's own: 384 dimensions, unit length, as the fp32 weights give", { skip }, async () => {
  const expected = JSON.parse(readFileSync(`${localModel(["embeddings-path"])}.expected.json`, "utf8"));
  const { status, body } = await embed(expected.sentences);
  assert.equal(status, 200);
  assert.equal(body.data.length, expected.sentences.length);
  body.data.forEach(({ embedding }, i) => {
    assert.equal(embedding.length, 384);
    assert.ok(Math.abs(dot(embedding, embedding) - 1) < 1e-3, "L2-normalised");
    assert.ok(dot(embedding, expected.vectors[i]) > 0.999, `"${expected.sentences[i]}" as the original model embeds it`);
  });
  assert.ok(body.usage.prompt_tokens > 0);
});

test("a question in everyday words is closest to the passage that answers it", { skip }, async () => {
  const passages = [
    "Refund policy: purchases can be returned within 30 days for a full reimbursement.",
    "Installing community plugins: open Settings, then Community plugins, then Browse.",
    "Keyboard shortcuts can be changed under Settings → Hotkeys.",
  ];
  const { body } = await embed(["How do I get my money back?", ...passages]);
  const [question, ...rest] = body.data.map((d) => d.embedding);
  const scores = rest.map((v) => dot(question, v));
  assert.equal(scores.indexOf(Math.max(...scores)), 0, `scores ${scores}`);
});

test("base64 vectors, and an input longer than the model's 512 tokens refused (not cut)", { skip }, async () => {
  const b64 = await embed("This is an example sentence", { encoding_format: "base64" });
  assert.equal(b64.status, 200);
  assert.equal(Buffer.from(b64.body.data[0].embedding, "base64").length, 384 * 4);
  // Refused, not cut (this server build answers 500 "too large to process"; others 400
  // exceed_context_size_error): the index must cut such a chunk and try again.
  const long = await embed("word ".repeat(600));
  assert.ok(long.status >= 400, `status ${long.status}`);
  assert.match(long.body.error.message, /too large|exceed/i);
});
