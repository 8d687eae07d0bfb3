// The Node host's reader thread (js-shim/src/node/read-thread.ts): a search's notes read on
// another core, many calls under way at once, each answer's buffer lent until the next turn of
// the event loop and then reused by the thread. Notes of many sizes and contents, so an answer
// read from a buffer handed back too early, or another call's bytes, would show.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { pathToFileURL } from "node:url";
import path from "node:path";
import { startScriptedServer } from "../peers/anthropic-server.mjs";
import { ROOT, tmpVault, once, toolResults } from "./helpers.mjs";

const { NodeVault } = await import(path.join(ROOT, "js-shim/dist/node.js"));

/** A vault of `count` notes in 12 folders, 100 B to 40 KB each, every fifth with a wikilink
 * with an alias naming its own note. */
function vaultOfNotes(count) {
  const vault = tmpVault();
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const paths = [];
  for (let f = 0; f < 12; f++) mkdirSync(path.join(vault, `f${f}`));
  for (let i = 0; i < count; i++) {
    const lines = Array.from({ length: 2 + Math.floor(random() ** 3 * 800) }, (_, k) => `n${i} line ${k} ${"abcdefghij".slice(0, Math.floor(random() * 10))}`);
    if (i % 5 === 0) lines.splice(Math.floor(random() * lines.length), 0, `see [[target|alias of n${i}]] here`);
    const relative = `f${i % 12}/n${i}.md`;
    writeFileSync(path.join(vault, relative), `${lines.join("\n")}\n`);
    paths.push(relative);
  }
  return { vault, paths };
}

let server;
before(async () => {
  server = await startScriptedServer();
});
after(() => server.close());

test("many reads under way at once each give their own notes' bytes, round after round; an answer held past the next turn has gone back to the thread", async () => {
  const { vault: folder, paths } = vaultOfNotes(900);
  const vault = new NodeVault(folder);
  await vault.vaultList(false);
  const batches = Array.from({ length: Math.ceil(paths.length / 40) }, (_, k) => paths.slice(k * 40, k * 40 + 40));
  for (let round = 0; round < 3; round++) {
    // All asked at once, as the core asks ahead; each answer copied in its own reaction.
    const answers = await Promise.all(batches.map((batch) => Promise.resolve(vault.vaultReadManyBytes(batch)).then((read) => read.map((one) => (typeof one === "string" ? one : Buffer.from(one).toString("utf8"))))));
    answers.forEach((read, k) => assert.deepEqual(read, batches[k].map((p) => readFileSync(path.join(folder, p), "utf8")), `round ${round}, batch ${k}`));
  }
  const held = await vault.vaultReadManyBytes(batches[0]);
  assert.ok(held.every((one) => typeof one !== "string" && one.byteLength > 0));
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
  assert.ok(held.every((one) => one.byteLength === 0), "the buffer went back to the reader thread (detached here)");
});

test("a regular-expression search through the reader thread finds every planted link, each excerpt from its own note", async () => {
  const { vault } = vaultOfNotes(1500);
  const from = server.requests.length;
  const wait = { kind: "tool_use", text: "wait ".repeat(4), chunks: Array(4).fill("wait "), delayMs: 50 };
  server.enqueue({ ...wait, tools: [{ id: "s", name: "search_files", input: { query: "\\[\\[[^\\]|]+\\|[^\\]]+\\]\\]", regex: true, max_results: 50 } }] }, { kind: "text", text: "Done." });
  const run = await once(vault, server.url, "find the links");
  assert.equal(run.result.success, true, run.stderr);
  const out = toolResults(server, from).s.content;
  assert.match(out, /^300 notes match/, out);
  const blocks = out.split("\n").filter((line) => / — \d+ match/.test(line));
  assert.ok(blocks.length >= 20, out);
  // Each note shown has one match, and its excerpt names that note.
  for (const block of out.split(/\n(?=f\d+\/n\d+\.md — )/).slice(1)) {
    const name = /^f\d+\/(n\d+)\.md — 1 match/.exec(block)?.[1];
    assert.ok(name, block);
    assert.match(block, new RegExp(`alias of ${name}\\]\\]`), block);
  }
});

/** NodeVault from a copy of the Node bundle in a folder of its own, beside `worker` as its reader
 * thread's script (none when undefined). */
async function vaultBeside(worker) {
  const dir = mkdtempSync(path.join(tmpdir(), "read-thread-copy-"));
  copyFileSync(path.join(ROOT, "js-shim/dist/node.js"), path.join(dir, "node.js"));
  if (worker !== undefined) writeFileSync(path.join(dir, "read-worker.js"), worker);
  return (await import(pathToFileURL(path.join(dir, "node.js")).href)).NodeVault;
}

test("where the reader thread cannot start, or fails on the way, the notes are read on the calling thread: the same bytes", async () => {
  const { vault: folder, paths } = vaultOfNotes(120);
  const batch = paths.slice(0, 40);
  const expected = batch.map((p) => readFileSync(path.join(folder, p), "utf8"));
  const text = (read) => read.map((one) => (typeof one === "string" ? one : Buffer.from(one).toString("utf8")));
  // With its script there, the thread answers later (a promise).
  // The first read learns the vault's scope (its real path, the folders never read) and reads here.
  const ready = new NodeVault(folder);
  assert.deepEqual(text(await ready.vaultReadManyBytes(batch)), expected);
  const later = ready.vaultReadManyBytes(batch);
  assert.ok(later instanceof Promise, "the reader thread answers");
  assert.deepEqual(text(await later), expected);
  // No script: answered at once, here.
  const missing = new (await vaultBeside(undefined))(folder);
  assert.deepEqual(text(await missing.vaultReadManyBytes(batch)), expected);
  const now = missing.vaultReadManyBytes(batch);
  assert.ok(Array.isArray(now), "read on the calling thread");
  assert.deepEqual(text(now), expected);
  // A thread that dies as it starts: the reads asked of it are read here, and the next ones at once.
  const dying = new (await vaultBeside("throw new Error('the reader thread failed');\n"))(folder);
  assert.deepEqual(text(await dying.vaultReadManyBytes(batch)), expected);
  const asked = [dying.vaultReadManyBytes(batch), dying.vaultReadManyBytes(paths.slice(40, 80))];
  assert.ok(asked[0] instanceof Promise, "asked of the thread before it failed");
  assert.deepEqual(text(await asked[0]), expected);
  assert.deepEqual(text(await asked[1]), paths.slice(40, 80).map((p) => readFileSync(path.join(folder, p), "utf8")));
  const after = dying.vaultReadManyBytes(batch);
  assert.ok(Array.isArray(after), "no read goes to a failed thread again");
  assert.deepEqual(text(after), expected);
});
