// The search index end to end on a 20,000-note folder (issue 18): the headless command builds the
// index in the background after start; a scripted search_files call, held until the command says
// the index is ready, finds the planted notes from the index; a note written into the folder
// while the command runs (seen by the folder watcher) is found by the next search.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { startScriptedServer } from "../peers/anthropic-server.mjs";
import { tmpVault, startHeadless, toolResults } from "./helpers.mjs";

const NOTES = 20_000;
let server;
before(async () => {
  server = await startScriptedServer();
});
after(() => server.close());

/** 20,000 notes of about 1 KB in 50 folders, six of them with the planted word. */
function vault() {
  const dir = tmpVault();
  const words = ["garden", "bike", "river", "lamp", "orchard", "violin", "copper", "meadow", "harbor", "ledger"];
  for (let f = 0; f < 50; f++) mkdirSync(path.join(dir, `f${f}`));
  for (let i = 0; i < NOTES; i++) {
    let body = `# Note ${i}\n`;
    for (let l = 0; l < 12; l++) body += `${words[(i + l) % 10]} ${words[(i * 7 + l) % 10]} ${words[(i * 3 + l * 5) % 10]} item ${i * 13 + l}\n`;
    if (i % 3_333 === 11) body += "the quasarflux is here\n";
    writeFileSync(path.join(dir, `f${i % 50}/n${i}.md`), body);
  }
  return dir;
}

test("on 20,000 notes the index answers a scripted search with the planted notes and finds a note written meanwhile", async () => {
  const dir = vault();
  const from = server.requests.length;
  let ready;
  const indexReady = new Promise((resolve) => (ready = resolve));
  server.enqueue(
    { kind: "tool_use", text: "searching", waitFor: indexReady, tools: [{ id: "a", name: "search_files", input: { query: "quasarflux" } }] },
    { kind: "tool_use", text: "again", tools: [{ id: "b", name: "search_files", input: { query: "zebrafish" } }] },
    { kind: "text", text: "Done." },
  );
  const child = startHeadless(["--vault", dir, "--llm-base-url", server.url, "--model", "scripted", "--once", "find them"]);
  const watch = setInterval(() => {
    if (/Search index ready: 20,?000 notes/.test(child.stderrText)) {
      clearInterval(watch);
      // The edit: written while the command runs, before the second search is asked for.
      writeFileSync(path.join(dir, "f7/new.md"), "a zebrafish swims\n");
      setTimeout(ready, 300);
    }
  }, 50);
  const { code } = await child.done;
  clearInterval(watch);
  assert.equal(code, 0, child.stderrText);
  const results = toolResults(server, from);
  assert.match(results.a.content, /^6 notes match "quasarflux"/, results.a.content);
  for (const i of [11, 3344, 6677, 10010, 13343, 16676]) assert.match(results.a.content, new RegExp(`f${i % 50}/n${i}\\.md — 1 match`));
  assert.doesNotMatch(results.a.content, /full scan/, "the planted notes were found from the index");
  assert.match(results.b.content, /^1 notes match "zebrafish"[\s\S]*f7\/new\.md — 1 match/, results.b.content);
  assert.doesNotMatch(results.b.content, /full scan/, "the second search was answered from the index");
});
