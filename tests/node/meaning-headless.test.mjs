// Search by meaning from the headless command (issue 35) with the offline embedding server: the
// --embeddings-* flags build the meaning index of a small vault and say "Meaning index ready" on
// stderr; a restart on the same vault embeds nothing again; after one note's section is edited,
// only that passage is embedded; --check reports the embedding server. The embeddings requests are counted by a small proxy in front of
// the server (SMARTHOLE_TEST_EMBEDDINGS_URL from scripts/test.sh, or one started on port 8094).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import http from "node:http";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { startHeadless, runHeadless, tmpVault, waitFor } from "./helpers.mjs";

const PORT = "8094";
let upstream = process.env.SMARTHOLE_TEST_EMBEDDINGS_URL;
let startedHere = false;
let proxy;
/** Every text sent to be embedded through the proxy, in order. */
const embedded = [];

function localModel(args) {
  const run = spawnSync("scripts/local-model.sh", args, { encoding: "utf8", timeout: 600_000 });
  assert.equal(run.status, 0, run.stderr);
  return run.stdout.trim().split("\n").pop();
}

before(async () => {
  if (!upstream) {
    upstream = localModel(["embeddings-start", PORT]);
    startedHere = true;
  }
  proxy = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      if (req.url.endsWith("/embeddings")) {
        const input = JSON.parse(body.toString("utf8")).input;
        embedded.push(...(Array.isArray(input) ? input : [input]));
      }
      const forward = http.request(new URL(req.url, upstream), { method: req.method, headers: { "content-type": "application/json" } }, (answer) => {
        res.writeHead(answer.statusCode, { "content-type": answer.headers["content-type"] ?? "application/json" });
        answer.pipe(res);
      });
      forward.on("error", (e) => res.writeHead(502).end(String(e)));
      forward.end(body);
    });
  });
  await new Promise((resolve) => proxy.listen(0, "127.0.0.1", resolve));
});

after(() => {
  proxy?.close();
  if (startedHere) localModel(["embeddings-stop", PORT]);
});

const TOPICS = [
  ["Refunds", "Purchases can be returned within thirty days for a full reimbursement.", "Gift cards are not refundable."],
  ["Hotkeys", "Keyboard shortcuts are changed under Settings, then Hotkeys.", "A shortcut can be removed with the cross beside it."],
  ["Plugins", "Community plugins are installed from Settings, then Community plugins, then Browse.", "Restricted mode turns every community plugin off."],
  ["Sync", "Notes are kept the same on every device by the sync service.", "Conflicts keep both versions side by side."],
  ["Backups", "A copy of the vault folder is a complete backup.", "Restore by copying the folder back."],
  ["Themes", "The look of the app is changed with themes from the theme browser.", "A snippet adjusts one detail of a theme."],
  ["Templates", "A template inserts the same structure into many notes.", "Dates in templates are filled when inserted."],
  ["Links", "Double square brackets link one note to another.", "Renaming a note updates the links to it."],
  ["Tags", "A hash sign before a word makes it a tag.", "Nested tags use a slash between levels."],
  ["Search", "The search pane finds notes by the words they hold.", "Quotes search for an exact phrase."],
];

function writeVault(vault) {
  for (const [title, first, second] of TOPICS) {
    writeFileSync(path.join(vault, `${title}.md`), `# ${title}\n\n## Basics\n\n${first}\n\n## Details\n\n${second}\n`);
  }
}

/** Runs the headless chat on `vault` until the meaning index is ready; gives its stderr. */
async function runUntilReady(vault) {
  const from = embedded.length;
  const child = startHeadless(
    ["--vault", vault, "--llm-base-url", "http://127.0.0.1:9", "--model", "unused", "--embeddings-base-url", `http://127.0.0.1:${proxy.address().port}`, "--embeddings-model", localModel(["embeddings-model"]), "--embeddings-format", "openai"],
    { stdin: "pipe" },
  );
  try {
    await waitFor(() => /Meaning index ready/.test(child.stderrText) || child.exitCode !== null, 120_000, "Meaning index ready on stderr");
  } finally {
    child.kill("SIGTERM");
    await child.done;
  }
  assert.match(child.stderrText, /\[Meaning index ready: 10 notes, \d+ passages\]/, child.stderrText);
  return { stderr: child.stderrText, sent: embedded.slice(from) };
}

test("the flags build the meaning index, a restart embeds nothing again, an edit embeds only what changed", async () => {
  const vault = tmpVault();
  writeVault(vault);
  const first = await runUntilReady(vault);
  const passages = Number(/Meaning index ready: 10 notes, (\d+) passages/.exec(first.stderr)[1]);
  assert.ok(passages >= 10, first.stderr);
  for (const [, text] of TOPICS) assert.ok(first.sent.some((s) => s.includes(text)), `"${text}" was embedded`);

  const again = await runUntilReady(vault);
  assert.deepEqual(again.sent, [], "a restart embeds nothing that did not change");

  writeFileSync(path.join(vault, "Refunds.md"), "# Refunds\n\n## Basics\n\nPurchases can be returned within thirty days for a full reimbursement.\n\n## Details\n\nStore credit is offered for gift cards instead of cash.\n");
  const edited = await runUntilReady(vault);
  assert.equal(edited.sent.length, 1, `only the changed passage: ${JSON.stringify(edited.sent)}`);
  assert.match(edited.sent[0], /Store credit is offered/);
});

test("--check covers the embedding server: reachable, dimension, speed; a wrong URL says what to check", async () => {
  const vault = tmpVault();
  const model = localModel(["embeddings-model"]);
  const base = ["--vault", vault, "--llm-base-url", "http://127.0.0.1:9", "--model", "unused", "--check", "--embeddings-model", model];
  const good = await runHeadless([...base, "--embeddings-base-url", upstream]);
  assert.match(good.stdout, /^ok {3}embeddings: the embedding server at .* answers with all-minilm-l6-v2$/m, good.stdout);
  assert.match(good.stdout, /^ok {3}embeddings_dimension: vectors of 384 dimensions$/m);
  assert.match(good.stdout, /^ok {3}embeddings_speed: 2 texts embedded in \d+ ms$/m);
  const wrong = await runHeadless([...base, "--embeddings-base-url", `${upstream}/nope`]);
  assert.equal(wrong.code, 1);
  assert.match(wrong.stdout, /^FAIL embeddings: .* check the embeddings model .*the base URL/m, wrong.stdout);
});

test("bad embeddings flags are refused with what to do, as other flags", async () => {
  const vault = tmpVault();
  const format = await runHeadless(["--vault", vault, "--embeddings-base-url", "http://127.0.0.1:1", "--embeddings-format", "cohere", "--once", "x"]);
  assert.equal(format.code, 2);
  assert.match(format.stderr, /--embeddings-format must be openai or ollama \(got cohere\)/);
  const url = await runHeadless(["--vault", vault, "--embeddings-base-url", "localhost:11434", "--once", "x"]);
  assert.equal(url.code, 2);
  assert.match(url.stderr, /--embeddings-base-url must be an http/);
  const key = await runHeadless(["--vault", vault, "--embeddings-base-url", "http://127.0.0.1:1", "--embeddings-api-key-env", "SURELY_NOT_SET_456", "--once", "x"]);
  assert.equal(key.code, 2);
  assert.match(key.stderr, /SURELY_NOT_SET_456 \(named by --embeddings-api-key-env\) is not set/);
  const alone = await runHeadless(["--vault", vault, "--embeddings-model", "m", "--once", "x"]);
  assert.equal(alone.code, 2);
  assert.match(alone.stderr, /--embeddings-model needs --embeddings-base-url/);
});
