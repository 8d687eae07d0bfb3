// Attachments end to end through the headless command and the scripted Anthropic server (issue
// 23): `--attach` sends a note's text, an image block and a document block, valid against the
// Messages API's schema; after a restart the next turn carries the same bytes though the note
// changed; the history's lines stay small; a path that cannot be attached stops the message
// before anything is sent; `/attach` in the chat attaches to the next message.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { startScriptedServer } from "../peers/anthropic-server.mjs";
import { once, startHeadless, tmpVault } from "./helpers.mjs";
import { ONE_PAGE_PDF, solidPng } from "./png.mjs";

let server;
before(async () => {
  server = await startScriptedServer({ fallback: { kind: "text", text: "ok" } });
});
after(() => server?.close());

function vaultWith(files) {
  const vault = tmpVault();
  for (const [p, data] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(vault, p)), { recursive: true });
    writeFileSync(path.join(vault, p), data);
  }
  return vault;
}

const userBlocks = (request) => request.body.messages.filter((m) => m.role === "user").flatMap((m) => m.content);

test("--attach sends a note, an image and a PDF as schema-valid blocks, and a restart sends the same bytes", async () => {
  const image = solidPng(800, 600, [10, 120, 240]);
  const vault = vaultWith({ "Plan.md": "version one\n", "Screens/shot.png": image, "paper.pdf": ONE_PAGE_PDF });
  const before = server.requests.length;
  const first = await once(vault, server.url, "What are these?", ["--attach", "Plan.md", "--attach", "Screens/shot.png", "--attach", "paper.pdf"]);
  assert.equal(first.code, 0, first.stderr);
  const request = server.requests[before];
  assert.deepEqual(request.schemaErrors, []);
  const blocks = userBlocks(request);
  assert.ok(blocks.some((b) => b.type === "text" && b.text === '<note path="Plan.md">\nversion one\n\n</note>'), JSON.stringify(blocks).slice(0, 500));
  const img = blocks.find((b) => b.type === "image");
  assert.deepEqual(Buffer.from(img.source.data, "base64"), image);
  const doc = blocks.find((b) => b.type === "document");
  assert.deepEqual([doc.source.media_type, doc.title], ["application/pdf", "paper.pdf"]);
  assert.deepEqual(Buffer.from(doc.source.data, "base64"), ONE_PAGE_PDF);

  // The note changes; a new process (a restart) answers the next message.
  writeFileSync(path.join(vault, "Plan.md"), "version two\n");
  const second = await once(vault, server.url, "And now?");
  assert.equal(second.code, 0, second.stderr);
  const again = userBlocks(server.requests.at(-1));
  assert.deepEqual(server.requests.at(-1).schemaErrors, []);
  assert.ok(again.some((b) => b.type === "text" && b.text.includes("version one")), "the bytes sent the first time");
  assert.ok(!again.some((b) => b.type === "text" && b.text.includes("version two")));
  assert.deepEqual(Buffer.from(again.find((b) => b.type === "image").source.data, "base64"), image);

  // The history holds references: its lines stay small however large the attachments.
  const dir = path.join(vault, ".smarthole/conversations");
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".jsonl"))) {
    for (const line of readFileSync(path.join(dir, file), "utf8").split("\n").filter(Boolean)) {
      assert.ok(line.length < 2_000, `a history line of ${line.length} bytes`);
    }
  }
  // One copy per distinct content, under its hash.
  assert.equal(readdirSync(path.join(vault, ".smarthole/attachments")).length, 3);
});

test("a path that cannot be attached stops the message before anything is sent", async () => {
  const vault = vaultWith({ "a.md": "a", "broken.png": "not an image" });
  const before = server.requests.length;
  for (const [p, reason] of [
    ["../outside.md", /leaves the vault/],
    [".obsidian/app.json", /protected folder/],
    ["broken.png", /damaged/],
  ]) {
    const run = await once(vault, server.url, "look", ["--attach", p]);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, reason);
    assert.match(run.stderr, /nothing was sent/);
  }
  assert.equal(server.requests.length, before);
});

test("/attach in the chat attaches to the next message only", async () => {
  const vault = vaultWith({ "Notes/Idea.md": "a bright idea\n" });
  const before = server.requests.length;
  const child = startHeadless(["--vault", vault, "--llm-base-url", server.url, "--model", "scripted"], { stdin: "pipe" });
  child.stdin.end("/attach Notes/Idea.md\nwhat do you think?\nand then?\n");
  const { code } = await child.done;
  assert.equal(code, 0, child.stderrText);
  const [first, second] = server.requests.slice(before);
  assert.ok(userBlocks(first).some((b) => b.type === "text" && b.text.startsWith('<note path="Notes/Idea.md">')));
  const secondNew = second.body.messages.at(-1).content;
  assert.ok(!secondNew.some((b) => b.type === "text" && b.text.startsWith("<note")), "the next message carries none of its own");
});
