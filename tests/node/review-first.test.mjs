// Review-first edits through the headless host (issue 15): with --approvals ask an edit prints
// as a unified diff, "/approve ID 1" applies exactly hunk 1 of 2, and /undo gives the note back
// byte for byte; with --approvals reject no note changes, whatever the model calls.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync, mkdirSync, existsSync } from "node:fs";
import path from "node:path";
import { startScriptedServer } from "../peers/anthropic-server.mjs";
import { tmpVault, once, startHeadless, waitFor, toolResults } from "./helpers.mjs";

let server;
before(async () => {
  server = await startScriptedServer();
});
after(() => server.close());

const BEFORE = "# Plan\nalpha\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nalpha omega";

function vault() {
  const dir = tmpVault();
  mkdirSync(path.join(dir, "Notes"));
  writeFileSync(path.join(dir, "Notes/Plan.md"), BEFORE);
  writeFileSync(path.join(dir, "Notes/Other.md"), "other\n");
  return dir;
}

test("ask: an edit prints as a diff, one hunk of two is accepted, /undo restores the note byte for byte", async () => {
  const dir = vault();
  const from = server.requests.length;
  const input = { path: "Notes/Plan.md", operation: "replace", old_text: "alpha", new_text: "ALPHA", replace_all: true };
  server.enqueue(
    { kind: "tool_use", tools: [{ id: "w", name: "edit_file", input }] },
    { kind: "text", text: "Rewritten." },
  );
  const child = startHeadless(["--vault", dir, "--llm-base-url", server.url, "--approvals", "ask"], { stdin: "pipe" });
  child.stdin.write("shout the ends\n");
  await waitFor(() => /\[approval (apr-\S+)\]/.test(child.stderrText), 10_000, "the approval request");
  const id = /\[approval (apr-\S+)\]/.exec(child.stderrText)[1];
  assert.match(child.stderrText, /--- Notes\/Plan\.md\n\+\+\+ Notes\/Plan\.md\n@@ -1,5 \+1,5 @@ hunk 1\n # Plan\n-alpha\n\+ALPHA\n/);
  assert.match(child.stderrText, /@@ .* @@ hunk 2\n/);
  assert.match(child.stderrText, /-alpha omega\n\\ No newline at end of file\n\+ALPHA omega\n\\ No newline at end of file/);
  // /undo typed at once, while the turn is still being answered and saved: it waits for it.
  child.stdin.write(`/approve ${id} 1\n/undo\n`);
  await waitFor(() => child.stdoutText.includes("Rewritten."), 10_000, "the answer");
  assert.equal(
    toolResults(server, from).w.content,
    `Edited Notes/Plan.md (replace) in part: hunk 1 applied, 2 rejected. The note now reads:\n${BEFORE.replace("alpha", "ALPHA")}`,
  );
  await waitFor(() => child.stderrText.includes("[undo: restored Notes/Plan.md]"), 10_000, "the undo");
  child.stdin.end();
  const { code } = await child.done;
  assert.equal(code, 0, child.stderrText);
  assert.equal(readFileSync(path.join(dir, "Notes/Plan.md"), "utf8"), BEFORE);
  assert.doesNotMatch(child.stderrText, /no change to a note is left to undo/);
});

test("reject: no edit, overwrite, move or delete changes a note", async () => {
  const dir = vault();
  const from = server.requests.length;
  server.enqueue(
    {
      kind: "tool_use",
      tools: [
        { id: "e", name: "edit_file", input: { path: "Notes/Plan.md", operation: "delete_lines", start_line: 1, end_line: 13 } },
        { id: "w", name: "write_file", input: { path: "Notes/Plan.md", content: "" } },
        { id: "m", name: "move_file", input: { from: "Notes/Other.md", to: "Moved.md" } },
        { id: "d", name: "delete_file", input: { path: "Notes/Plan.md" } },
      ],
    },
    { kind: "text", text: "Nothing done." },
  );
  const run = await once(dir, server.url, "wreck it", ["--approvals", "reject"]);
  assert.equal(run.result.success, true, run.stderr);
  assert.equal(readFileSync(path.join(dir, "Notes/Plan.md"), "utf8"), BEFORE);
  assert.equal(readFileSync(path.join(dir, "Notes/Other.md"), "utf8"), "other\n");
  assert.equal(existsSync(path.join(dir, "Moved.md")), false);
  const results = toolResults(server, from);
  for (const id of ["e", "w", "m", "d"]) assert.equal(results[id].is_error, true, `${id}: ${results[id].content}`);
});

test("/undo after a restart reverts the newest turn whose changes still stand, then the one before", async () => {
  const dir = vault();
  const edit = (from, to) => ({ kind: "tool_use", tools: [{ name: "edit_file", input: { path: "Notes/Plan.md", operation: "replace", old_text: from, new_text: to } }] });
  server.enqueue(edit("# Plan", "# Plan A"), { kind: "text", text: "One." }, edit("alpha omega", "the end"), { kind: "text", text: "Two." });
  for (const text of ["first", "second"]) {
    const run = await once(dir, server.url, text, ["--approvals", "approve"]);
    assert.equal(run.result.success, true, run.stderr);
  }
  const both = BEFORE.replace("# Plan", "# Plan A").replace("alpha omega", "the end");
  assert.equal(readFileSync(path.join(dir, "Notes/Plan.md"), "utf8"), both);
  // A new session: it knows nothing of those turns but what is on disk.
  const child = startHeadless(["--vault", dir, "--llm-base-url", server.url], { stdin: "pipe" });
  child.stdin.write("/undo\n");
  await waitFor(() => child.stderrText.includes("[undo: restored Notes/Plan.md]"), 10_000, "the first undo");
  assert.equal(readFileSync(path.join(dir, "Notes/Plan.md"), "utf8"), BEFORE.replace("# Plan", "# Plan A"));
  child.stdin.write("/undo\n");
  await waitFor(() => child.stderrText.split("[undo: restored Notes/Plan.md]").length === 3, 10_000, "the second undo");
  child.stdin.write("/undo\n");
  await waitFor(() => child.stderrText.includes("[undo: no change to a note is left to undo]"), 10_000, "nothing left");
  child.stdin.end();
  const { code } = await child.done;
  assert.equal(code, 0, child.stderrText);
  assert.equal(readFileSync(path.join(dir, "Notes/Plan.md"), "utf8"), BEFORE);
});
