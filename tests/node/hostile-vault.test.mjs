// Notes, undo and files that must not be trusted (issue 32, points 5–9), through the headless host
// on a real folder: a note that is not UTF-8, a note the user put where the agent moved one, a
// forged undo journal, FIFOs under .smarthole/, and a Markdown copy replaced by a link. Each case
// runs in hostile-world's vault and ends with its checks (outside and protected bytes unchanged,
// history lines kept).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { startScriptedServer } from "../peers/anthropic-server.mjs";
import { hostileWorld } from "./hostile-world.mjs";
import { history, once, startHeadless, toolResults, waitFor } from "./helpers.mjs";

let server;
before(async () => {
  server = await startScriptedServer();
});
after(() => server.close());

const sha256 = (text) => createHash("sha256").update(text).digest("hex");
const APPROVE = ["--approvals", "approve"];

/** Runs an interactive headless session: writes `lines`, waits until `done(stderr)` holds. */
async function session(vault, lines, done, what) {
  const child = startHeadless(["--vault", vault, "--llm-base-url", server.url, "--model", "scripted"], { stdin: "pipe" });
  try {
    child.stdin.write(lines.join("\n") + "\n");
    await waitFor(() => done(child.stderrText), 15_000, what);
  } finally {
    child.stdin.end();
    await child.done;
  }
  return child.stderrText;
}

test("a note that is not UTF-8: edit_file and write_file are refused, every byte stays", async () => {
  const world = hostileWorld();
  const note = path.join(world.vault, "Notes/Latin.md");
  const latin = Buffer.concat([Buffer.from("# Caf"), Buffer.from([0xe9]), Buffer.from("\nalpha\nbeta "), Buffer.from([0xff]), Buffer.from(" end\n")]);
  writeFileSync(note, latin);
  const before = world.snapshot();
  const from = server.requests.length;
  server.enqueue(
    {
      kind: "tool_use",
      tools: [
        { id: "e", name: "edit_file", input: { path: "Notes/Latin.md", operation: "replace", old_text: "alpha", new_text: "ALPHA" } },
        { id: "w", name: "write_file", input: { path: "Notes/Latin.md", content: "all new\n" } },
      ],
    },
    { kind: "text", text: "Done." },
  );
  const run = await once(world.vault, server.url, "shout alpha", APPROVE);
  assert.equal(run.result?.success, true, run.stderr);
  assert.ok(readFileSync(note).equals(latin), `rewritten: ${readFileSync(note).toString("hex")}`);
  const results = toolResults(server, from);
  for (const id of ["e", "w"]) {
    assert.equal(results[id].is_error, true, results[id].content);
    assert.match(results[id].content, /Notes\/Latin\.md is not valid UTF-8 text \(byte 5 is not/);
  }
  world.assertIntact(before, "not UTF-8");
});

test("undo of a move refuses a note the user put at the target, and leaves it there", async () => {
  const world = hostileWorld();
  const notes = path.join(world.vault, "Notes");
  writeFileSync(path.join(notes, "A.md"), "the agent moved me\n");
  server.enqueue({ kind: "tool_use", tools: [{ name: "move_file", input: { from: "Notes/A.md", to: "Notes/B.md" } }] }, { kind: "text", text: "Moved." });
  const run = await once(world.vault, server.url, "rename A to B", APPROVE);
  assert.equal(run.result?.success, true, run.stderr);
  assert.ok(existsSync(path.join(notes, "B.md")));
  // The user moves it on, and makes a note of their own under the name the agent chose.
  renameSync(path.join(notes, "B.md"), path.join(notes, "C.md"));
  writeFileSync(path.join(notes, "B.md"), "the user's own new note\n");
  const before = world.snapshot();
  const err = await session(world.vault, ["/undo"], (err) => /\[undo: (refused|restored)/.test(err), "the undo");
  assert.match(err, /\[undo: refused Notes\/A\.md: Notes\/B\.md is not the note the agent moved/);
  assert.equal(readFileSync(path.join(notes, "B.md"), "utf8"), "the user's own new note\n");
  assert.equal(existsSync(path.join(notes, "A.md")), false);
  assert.equal(readFileSync(path.join(notes, "C.md"), "utf8"), "the agent moved me\n");
  world.assertIntact(before, "move undo");
});

test("a forged undo journal cannot rewrite a note in a protected folder", async () => {
  const world = hostileWorld();
  mkdirSync(path.join(world.vault, "Private"));
  const diary = path.join(world.vault, "Private/diary.md");
  writeFileSync(diary, "dear diary\n");
  const run = await once(world.vault, server.url, "hello", APPROVE);
  assert.equal(run.result?.success, true, run.stderr);
  const id = history(world.vault).at(-1).messageId;
  const record = { change: { kind: "overwrite", path: "Private/diary.md", baseHash: "", hunks: [] }, before: "rewritten by a forged journal\n", afterHash: sha256("dear diary\n") };
  mkdirSync(path.join(world.vault, ".smarthole/undo"), { recursive: true });
  writeFileSync(path.join(world.vault, `.smarthole/undo/${id}.jsonl`), JSON.stringify(record) + "\n");
  const before = world.snapshot();
  const err = await session(world.vault, ['/set protectedFolders ["Private"]', "/undo"], (err) => /\[undo: (refused|restored)/.test(err), "the undo");
  assert.match(err, /\[undo: refused Private\/diary\.md: undo may not touch it: private is a protected folder/);
  assert.equal(readFileSync(diary, "utf8"), "dear diary\n");
  world.assertIntact(before, "forged journal");
});

test("FIFOs at .smarthole/search-index.txt and at an undo journal: set aside, never opened; --once exits", { timeout: 60_000 }, async () => {
  const world = hostileWorld();
  const data = path.join(world.vault, ".smarthole");
  mkdirSync(path.join(data, "undo"), { recursive: true });
  execFileSync("mkfifo", [path.join(data, "search-index.txt"), path.join(data, "undo/m-fifo.jsonl")]);
  const before = world.snapshot();
  server.enqueue(
    { kind: "tool_use", tools: [{ name: "edit_file", input: { path: "Notes/Plan.md", operation: "replace", old_text: "water", new_text: "feed" } }] },
    { kind: "text", text: "Edited." },
  );
  const message = { id: "m-fifo", text: "feed the plants", source: "direct", timestamp: new Date().toISOString() };
  const child = startHeadless(["--vault", world.vault, "--llm-base-url", server.url, "--model", "scripted", "--once-json", JSON.stringify(message), ...APPROVE]);
  const killer = setTimeout(() => child.kill("SIGKILL"), 30_000);
  const { code, signal } = await child.done;
  clearTimeout(killer);
  assert.equal(signal, null, `the host hung on a FIFO and was killed:\n${child.stderrText}`);
  assert.equal(code, 0, child.stderrText);
  assert.equal(readFileSync(path.join(world.vault, "Notes/Plan.md"), "utf8"), "# Plan\nfeed the plants\n");
  for (const [dir, name] of [[data, "search-index.txt"], [path.join(data, "undo"), "m-fifo.jsonl"]]) {
    const aside = readdirSync(dir).filter((f) => f.startsWith(`${name}.not-a-file-`));
    assert.equal(aside.length, 1, readdirSync(dir).join(", "));
    assert.ok(lstatSync(path.join(dir, aside[0])).isFIFO(), "kept as it was, under a name that says why");
    assert.match(child.stderrText, new RegExp(`${name.replace(".", "\\.")} set aside as .*${name.replace(".", "\\.")}\\.not-a-file-\\d+: .* is a FIFO \\(named pipe\\), not a regular file`));
  }
  // The undo record went to a new, regular journal: the edit is undoable.
  const journal = readFileSync(path.join(data, "undo/m-fifo.jsonl"), "utf8");
  assert.match(journal, /"path":"Notes\/Plan\.md"/);
  world.assertIntact(before, "FIFOs");
});

test("a Markdown copy replaced by a link to another note: a warning, nothing written through it", async () => {
  const world = hostileWorld();
  const plan = path.join(world.vault, "Notes/Plan.md");
  const planBefore = readFileSync(plan);
  const chats = path.join(world.vault, "Chats");
  const copies = () => (existsSync(chats) ? readdirSync(chats) : []);
  const written = () => copies().length === 1 && readFileSync(path.join(chats, copies()[0]), "utf8").includes("first question");
  await session(world.vault, ["/set markdownCopies true", "first question"], written, "the copy");
  const copy = path.join(chats, copies()[0]);
  rmSync(copy);
  symlinkSync(plan, copy);
  const before = world.snapshot();
  const err = await session(world.vault, ["/set markdownCopies true", "second question"], (e) => /could not write the Markdown copy/.test(e), "the warning");
  assert.match(err, /\[warning\] could not write the Markdown copy Chats\/.*\.md: Chats\/.*\.md is a link \(to Notes\/Plan\.md\)/);
  assert.ok(readFileSync(plan).equals(planBefore), `the transcript went into the note:\n${readFileSync(plan, "utf8")}`);
  assert.ok(lstatSync(copy).isSymbolicLink(), "the link is left to the user");
  world.assertIntact(before, "copy through a link");
});

