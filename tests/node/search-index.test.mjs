// The search index end to end (issue 18) through the headless command on a real folder: the
// index builds in the background after start, a search finds the planted notes, and a note
// written into the folder while the command runs (seen by the folder watcher) is found by the
// next search, answered from the index. The index is persisted under .smarthole/.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { startScriptedServer } from "../peers/anthropic-server.mjs";
import { tmpVault, once, toolResults } from "./helpers.mjs";

let server;
before(async () => {
  server = await startScriptedServer();
});
after(() => server.close());

test("planted notes are found, and a note written while the command runs is found by the next search", async () => {
  const vault = tmpVault();
  for (let f = 0; f < 10; f++) mkdirSync(path.join(vault, `f${f}`));
  for (let i = 0; i < 400; i++) {
    const planted = i % 100 === 3 ? "\nthe quasarflux is here" : "";
    writeFileSync(path.join(vault, `f${i % 10}/n${i}.md`), `# Note ${i}\nsome words about gardens and bikes${planted}\n`);
  }
  const from = server.requests.length;
  const wait = { kind: "tool_use", text: "wait ".repeat(8), chunks: Array(8).fill("wait "), delayMs: 300 };
  server.enqueue(
    { ...wait, tools: [{ id: "a", name: "search_files", input: { query: "quasarflux" } }] },
    { ...wait, tools: [{ id: "b", name: "search_files", input: { query: "zebrafish" } }] },
    { kind: "text", text: "Done." },
  );
  // As the second step starts streaming, a note appears in the folder.
  const writer = setInterval(() => {
    if (server.requests.length >= from + 2) {
      clearInterval(writer);
      writeFileSync(path.join(vault, "f1/new.md"), "a zebrafish swims\n");
    }
  }, 20);
  const run = await once(vault, server.url, "find them");
  clearInterval(writer);
  assert.equal(run.result.success, true, run.stderr);
  const results = toolResults(server, from);
  assert.match(results.a.content, /^4 notes match "quasarflux"/, results.a.content);
  assert.match(results.b.content, /^1 notes match "zebrafish"[\s\S]*f1\/new\.md — 1 match/, results.b.content);
  assert.doesNotMatch(results.b.content, /full scan/, "the second search was answered from the index");
  assert.match(run.stderr, /Search index ready: 40\d notes/);
  assert.ok(existsSync(path.join(vault, ".smarthole/search-index.txt")));
});
