// The note tools on a real vault folder through the headless host (NodeVault): create, edit,
// search, and the approval answers the command line gives (--approvals reject | approve).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync, mkdirSync, existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { startScriptedServer } from "../peers/anthropic-server.mjs";
import { tmpVault, once, startHeadless, toolResults, waitFor } from "./helpers.mjs";

let server;
before(async () => {
  server = await startScriptedServer();
});
after(() => server.close());

function vaultWithNote() {
  const vault = tmpVault();
  mkdirSync(path.join(vault, "Notes"));
  writeFileSync(path.join(vault, "Notes/Old.md"), "old text\n");
  mkdirSync(path.join(vault, ".obsidian"));
  writeFileSync(path.join(vault, ".obsidian/app.json"), "{}");
  return vault;
}


test("create, edit, list and search notes in a real folder; hidden folders stay out", async () => {
  const vault = vaultWithNote();
  const from = server.requests.length;
  server.enqueue(
    { kind: "tool_use", tools: [{ id: "w", name: "write_file", input: { path: "Ideas/Garden", content: "plant tulips\nwater daily\n" } }] },
    { kind: "tool_use", tools: [{ id: "e", name: "edit_file", input: { path: "ideas/garden.md", operation: "replace", old_text: "tulips", new_text: "roses" } }] },
    { kind: "tool_use", tools: [{ id: "l", name: "list_files", input: {} }, { id: "s", name: "search_files", input: { query: "roses" } }] },
    { kind: "tool_use", tools: [{ id: "x", name: "read_file", input: { path: ".obsidian/app.json" } }] },
    { kind: "text", text: "Done." },
  );
  const run = await once(vault, server.url, "start a garden note", ["--approvals", "approve"]);
  assert.equal(run.result.success, true, run.stderr);
  assert.equal(readFileSync(path.join(vault, "Ideas/Garden.md"), "utf8"), "plant roses\nwater daily\n");
  const results = toolResults(server, from);
  assert.equal(results.w.content, "Created Ideas/Garden.md (2 lines).");
  assert.equal(results.e.content, "Edited Ideas/Garden.md (replace).");
  assert.match(results.l.content, /^2 files, newest first:/);
  assert.doesNotMatch(results.l.content, /\.obsidian|\.smarthole/);
  assert.match(results.s.content, /Ideas\/Garden\.md — 1 match\n {2}1: plant roses/);
  assert.equal(results.x.is_error, true);
  assert.match(results.x.content, /refused/);
});

test("without a user to ask, a delete is rejected and the note stays", async () => {
  const vault = vaultWithNote();
  const from = server.requests.length;
  server.enqueue({ kind: "tool_use", tools: [{ id: "d", name: "delete_file", input: { path: "Notes/Old.md" } }] }, { kind: "text", text: "Kept." });
  const run = await once(vault, server.url, "delete the old note");
  assert.equal(run.result.success, true, run.stderr);
  assert.match(run.stderr, /\[approval: Delete Notes\/Old\.md \(to the trash\) → rejected/);
  assert.ok(existsSync(path.join(vault, "Notes/Old.md")));
  assert.match(toolResults(server, from).d.content, /rejected/);
  const approvals = readdirSync(path.join(vault, ".smarthole/approvals"));
  assert.equal(approvals.length, 1);
  assert.equal(JSON.parse(readFileSync(path.join(vault, ".smarthole/approvals", approvals[0]), "utf8")).status, "rejected");
});

test("--approvals approve: the note goes to the vault's .trash", async () => {
  const vault = vaultWithNote();
  server.enqueue(
    { kind: "tool_use", tools: [{ id: "d", name: "delete_file", input: { path: "Notes/Old.md" } }] },
    { kind: "text", text: "Deleted." },
  );
  const run = await once(vault, server.url, "delete the old note", ["--approvals", "approve"]);
  assert.equal(run.result.success, true, run.stderr);
  assert.ok(!existsSync(path.join(vault, "Notes/Old.md")));
  assert.equal(readFileSync(path.join(vault, ".trash/Old.md"), "utf8"), "old text\n");
});

test("a bad --approvals value is a usage error", async () => {
  const vault = tmpVault();
  const run = await once(vault, server.url, "hi", ["--approvals", "maybe"]);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /--approvals must be reject, approve or ask/);
});

test("Markdown copies in a real folder: the note is created, then each turn is added at its end", async () => {
  const vault = tmpVault();
  server.enqueue({ kind: "text", text: "First answer." }, { kind: "text", text: "Second answer." });
  const child = startHeadless(["--vault", vault, "--llm-base-url", server.url], { stdin: "pipe" });
  const copy = () => {
    const dir = path.join(vault, "Chats");
    const names = existsSync(dir) ? readdirSync(dir) : [];
    return names.length === 1 ? readFileSync(path.join(dir, names[0]), "utf8") : "";
  };
  try {
    child.stdin.write("/set markdownCopies true\nfirst question\n");
    await waitFor(() => copy().includes("First answer."), 10_000, "the copy");
    const first = copy();
    child.stdin.write("second question\n");
    await waitFor(() => copy().includes("Second answer."), 10_000, "the second turn in the copy");
    const second = copy();
    assert.ok(second.startsWith(first), "added at the end; what was there is unchanged");
    assert.match(second.slice(first.length), /^\n?### You · .*\n\nsecond question\n\n\^smh-[0-9a-f]{12}\n\n### Agent · .*\n\nSecond answer\.\n\n\^smh-[0-9a-f]{12}\n\n$/);
  } finally {
    child.stdin.end();
    await child.done;
  }
});
