// Bounded tools (issue 14) through the headless host on a real folder: the scripted model calls
// list_files with hostile globs, search_files with heavy regexes over a 1 MB note, edit_file with
// a replacement whose result would be huge; each call is answered or refused, nothing outside the
// vault or in a protected folder changes, no history line is lost, and the host answers the next
// message. Then Stop (Ctrl-C) during a long search: acknowledged, the search ends before it
// completes, and the next message is answered.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { startScriptedServer } from "../peers/anthropic-server.mjs";
import { hostileWorld } from "./hostile-world.mjs";
import { once, startHeadless, waitFor, toolResults } from "./helpers.mjs";

let server;
before(async () => {
  server = await startScriptedServer();
});
after(() => server.close());


const MB_LINE = "a".repeat(1_000_000);
const MB_OF_LINES = `${"a".repeat(1_000)}\n`.repeat(1_000);

const CASES = [
  {
    name: "ten brace groups",
    setup: (vault) => writeFileSync(path.join(vault, "Notes/abcdabcdab.md"), "x\n"),
    tool: "list_files",
    input: { glob: `**/${"{a,b,c,d}".repeat(10)}*.md` },
    error: false,
    says: [/^1 files, newest first:\nNotes\/abcdabcdab\.md/],
  },
  {
    name: "**/ fifty times",
    setup: (vault) => {
      mkdirSync(path.join(vault, "d/".repeat(30)), { recursive: true });
      writeFileSync(path.join(vault, "d/".repeat(30), "deep.md"), "x\n");
    },
    tool: "list_files",
    input: { glob: `${"**/".repeat(50)}*.md` },
    error: false,
    says: [/^2 files, newest first:/, /deep\.md/],
  },
  {
    name: "a 5,000-character glob",
    tool: "list_files",
    input: { glob: "*".repeat(5_000) },
    error: true,
    says: [/5000 characters long; at most 1000/],
  },
  {
    name: "forty brace groups",
    tool: "list_files",
    input: { glob: "{a,b}".repeat(40) },
    error: true,
    says: [/40 brace groups; at most 32/],
  },
  {
    name: "a{0,1000}b over a 1 MB one-line note",
    setup: (vault) => writeFileSync(path.join(vault, "Notes/Big.md"), MB_LINE),
    tool: "search_files",
    input: { query: "a{0,1000}b", regex: true, case_sensitive: true },
    error: false,
    says: [/No note matches/, /long lines were searched in their first [\d,]+ characters only/],
  },
  {
    name: "a{0,1000}b over 1 MB of lines",
    setup: (vault) => writeFileSync(path.join(vault, "Notes/Big.md"), MB_OF_LINES),
    tool: "search_files",
    input: { query: "a{0,1000}b", regex: true, case_sensitive: true },
    error: false,
    // Done within the budget, or stopped at it: either way an answer.
    says: [/No note matches|search stopped after/],
  },
  {
    name: "nested counted repetitions",
    setup: (vault) => writeFileSync(path.join(vault, "Notes/Big.md"), MB_LINE),
    tool: "search_files",
    input: { query: "(a{0,100}){0,100}b", regex: true },
    error: true,
    says: [/too large once compiled/],
  },
  {
    name: "nested stars over 1 MB of lines",
    setup: (vault) => writeFileSync(path.join(vault, "Notes/Big.md"), MB_OF_LINES),
    tool: "search_files",
    input: { query: "(a*)*b|(a|aa)*c", regex: true, case_sensitive: true },
    error: false,
    says: [/No note matches|search stopped after/],
  },
  {
    name: "replace-all of a with 1 MB in a 1 MB note",
    setup: (vault) => writeFileSync(path.join(vault, "Notes/Big.md"), MB_LINE),
    tool: "edit_file",
    input: { path: "Notes/Big.md", operation: "replace", old_text: "a", new_text: MB_LINE, replace_all: true },
    error: true,
    says: [/would make Notes\/Big\.md 1000000000000 bytes long/, /The note was not changed/],
    after: (vault) => assert.equal(readFileSync(path.join(vault, "Notes/Big.md"), "utf8"), MB_LINE),
  },
];

for (const c of CASES) {
  test(`hostile tool call: ${c.name}`, async () => {
    const world = hostileWorld();
    c.setup?.(world.vault);
    // A conversation on disk first, whose lines must survive.
    server.enqueue({ kind: "text", text: "Earlier answer." });
    assert.equal((await once(world.vault, server.url, "earlier")).result.success, true);
    const before = world.snapshot();
    const from = server.requests.length;
    server.enqueue({ kind: "tool_use", tools: [{ id: "h", name: c.tool, input: c.input }] }, { kind: "text", text: "Handled." });
    const started = Date.now();
    const run = await once(world.vault, server.url, "do the hostile thing");
    const took = Date.now() - started;
    assert.equal(run.result?.success, true, run.stderr);
    const result = toolResults(server, from).h;
    assert.ok(result, "the tool answered the model");
    assert.equal(result.is_error === true, c.error, result.content.slice(0, 400));
    for (const pattern of c.says) assert.match(result.content, pattern);
    c.after?.(world.vault);
    world.assertIntact(before, c.name);
    server.enqueue({ kind: "text", text: "Still here." });
    const next = await once(world.vault, server.url, "are you there?");
    assert.equal(next.result?.response, "Still here.", next.stderr);
    process.stderr.write(`# ${c.name}: answered in ${took} ms (whole --once run)\n`);
  });
}

test("Stop (Ctrl-C) during a long search: acknowledged, the search ends early, the next message is answered", async () => {
  const world = hostileWorld();
  mkdirSync(path.join(world.vault, "Archive"));
  // Every line holds the pattern's literal, so no note is passed over by the literal prefilter
  // and the expensive regex runs on every line (without "zebra" the notes are settled from
  // their bytes at once and the search ends before Stop).
  const body = "lorem ipsum dolor sit amet, consectetur adipiscing elit zebra\n".repeat(2_000);
  for (let i = 0; i < 120; i++) writeFileSync(path.join(world.vault, `Archive/n${i}.md`), body);
  const before = world.snapshot();
  const from = server.requests.length;
  server.enqueue(
    // Heavy enough to run for seconds over 13 MB, well past the moment Stop is pressed.
    { kind: "tool_use", tools: [{ id: "s", name: "search_files", input: { query: "(\\w+\\s){0,30}zebra", regex: true } }] },
    { kind: "text", text: "Answer after the stop." },
  );
  const child = startHeadless(["--vault", world.vault, "--llm-base-url", server.url, "--model", "scripted"], { stdin: "pipe" });
  child.stdin.write("search everything\n");
  await waitFor(() => child.stderrText.includes("[tool search_files]"), 15_000, "the search to start");
  await new Promise((r) => setTimeout(r, 100));
  const stoppedAt = Date.now();
  child.kill("SIGINT");
  await waitFor(() => child.stdoutText.includes("[stopped]"), 5_000, "the stop");
  const stopMs = Date.now() - stoppedAt;
  assert.equal(toolResults(server, from).s, undefined, "the search never reached the model: it ended before it completed");
  child.stdin.write("and now?\n");
  await waitFor(() => child.stdoutText.includes("Answer after the stop."), 15_000, "the next answer");
  child.stdin.end();
  const { code } = await child.done;
  assert.equal(code, 0, child.stderrText);
  world.assertIntact(before, "stop during search");
  process.stderr.write(`# Stop during a long search: [stopped] printed ${stopMs} ms after SIGINT\n`);
});
