// The search index end to end (issue 18) through the headless command on a real folder: the
// index builds in the background after start, a search finds the planted notes, and a note
// written into the folder while the command runs (seen by the folder watcher) is found by the
// next search, answered from the index. The index is persisted under .smarthole/.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
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

test("a note and index pieces past 64 KB, with text beyond ASCII, cross into the core whole; a restart answers from the pieces", async () => {
  const vault = tmpVault();
  // About 330 KB and 8,000 distinct words: the note, and the index's piece, cross as long strings.
  const lines = Array.from({ length: 8000 }, (_, i) => `línea ${i} café 🌿 日本語 zebra${i}`);
  writeFileSync(path.join(vault, "long.md"), `# Lång nøte\n${lines.join("\n")}\n`);
  const wait = { kind: "tool_use", text: "wait ".repeat(8), chunks: Array(8).fill("wait "), delayMs: 300 };
  const run = async (tools) => {
    const from = server.requests.length;
    server.enqueue({ ...wait, tools: [{ id: "w", name: "list_files", input: {} }] }, { ...wait, tools }, { kind: "text", text: "Done." });
    const out = await once(vault, server.url, "find it");
    assert.equal(out.result.success, true, out.stderr);
    return toolResults(server, from);
  };
  const first = await run([
    { id: "a", name: "search_files", input: { query: "zebra7777" } },
    { id: "b", name: "read_file", input: { path: "long.md", start_line: 7000, end_line: 7001 } },
  ]);
  assert.match(first.a.content, /^1 notes match "zebra7777"/, first.a.content);
  assert.match(first.b.content, /línea 6998 café 🌿 日本語 zebra6998\n.*línea 6999 café 🌿 日本語 zebra6999/s, first.b.content);
  const pieces = readdirSync(path.join(vault, ".smarthole/search-index"));
  assert.ok(pieces.some((p) => statSync(path.join(vault, ".smarthole/search-index", p)).size > 65_536), `${pieces}`);
  // Written as bytes (readFileBytes / writeFileAtomicBytes), not base64 text.
  assert.ok(pieces.every((p) => p.endsWith(".bin")), `${pieces}`);
  const piece = readFileSync(path.join(vault, ".smarthole/search-index", pieces[0]));
  assert.ok(piece.some((b) => b < 0x20 && b !== 0x0a), "raw bytes, not text");
  const second = await run([{ id: "c", name: "search_files", input: { query: "zebra4242" } }]);
  assert.match(second.c.content, /^1 notes match "zebra4242"/, second.c.content);
  assert.doesNotMatch(second.c.content, /full scan/, "answered from the index read back");
});

test("the base64 text pieces of before are rebuilt as bytes, never an error, and removed", async () => {
  const vault = tmpVault();
  writeFileSync(path.join(vault, "a.md"), "a zebrafish swims\n");
  const data = path.join(vault, ".smarthole");
  mkdirSync(path.join(data, "search-index"), { recursive: true });
  writeFileSync(path.join(data, "search-index/00000000000000aa-0.txt"), "AQIDBA==");
  writeFileSync(path.join(data, "search-index.txt"), "smarthole-search-index-2 1 1 1\nsearch-index/00000000000000aa-0.txt 8 2f0c6e1f0b3c9d7a\nend 0f1e2d3c4b5a6978\n");
  const wait = { kind: "tool_use", text: "wait ".repeat(8), chunks: Array(8).fill("wait "), delayMs: 300 };
  const from = server.requests.length;
  server.enqueue({ ...wait, tools: [{ id: "w", name: "list_files", input: {} }] }, { ...wait, tools: [{ id: "z", name: "search_files", input: { query: "zebrafish" } }] }, { kind: "text", text: "Done." });
  const out = await once(vault, server.url, "find it");
  assert.equal(out.result.success, true, out.stderr);
  assert.match(toolResults(server, from).z.content, /^1 notes match "zebrafish"/);
  const pieces = readdirSync(path.join(data, "search-index"));
  assert.ok(pieces.length > 0 && pieces.every((p) => p.endsWith(".bin")), `the old pieces removed: ${pieces}`);
  assert.match(readFileSync(path.join(data, "search-index.txt"), "utf8"), /^smarthole-search-index-3 1 /);
});
