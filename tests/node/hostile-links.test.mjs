// Real locations end to end (issue 14): the headless host on a real folder full of symbolic
// links (absolute and relative, to files and folders, out of the vault, into its protected
// folders, to itself, in chains), a dangling link, looping links and a FIFO named like a note.
// The scripted model calls each note tool through each form; after every case nothing outside
// the vault or in a protected folder changed, no history line was lost, no tool result shows the
// vault's absolute path, and the same host answers the next message.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { startScriptedServer } from "../peers/anthropic-server.mjs";
import { ROOT, startHeadless, waitFor, toolResults } from "./helpers.mjs";
import { hostileWorld } from "./hostile-world.mjs";

const { NodeVault } = await import(path.join(ROOT, "js-shim/dist/node.js"));

let server;
before(async () => {
  server = await startScriptedServer();
});
after(() => server.close());

/** A hostile world with every link form and a FIFO in its vault. */
function linkedWorld() {
  const world = hostileWorld();
  const v = (p) => path.join(world.vault, p);
  mkdirSync(v("notes"), { recursive: true });
  symlinkSync(path.join(world.outside, "secret.md"), v("notes/x.md")); // absolute, to a file outside
  symlinkSync("../outside/secret.md", v("rel.md")); // relative, to a file outside
  symlinkSync(path.join(world.outside, "folder"), v("link")); // a folder outside
  symlinkSync(".", v("self")); // the vault itself
  symlinkSync(".obsidian/app.json", v("a.md")); // into a protected folder
  symlinkSync(".git", v("gitlink"));
  symlinkSync("chain2.md", v("chain1.md")); // a chain out of the vault
  symlinkSync("../outside/secret.md", v("chain2.md"));
  symlinkSync("alias.md", v("chainin.md")); // a chain that stays inside
  symlinkSync("Notes/Plan.md", v("alias.md"));
  symlinkSync("nowhere.md", v("gone.md")); // dangling
  symlinkSync("loop.md", v("loop.md")); // loops on itself
  symlinkSync("loopdir", v("loopdir"));
  execFileSync("mkfifo", [v("fifo.md")]);
  return world;
}

const ok = (...words) => ({ error: false, words });
const refused = (...words) => ({ error: true, words });

/** One case: the tool call, the flags the host runs with, what the model must read. */
const CASES = [
  // Out of the vault: files never, absolute or relative, directly or through a chain.
  ["read_file", { path: "notes/x.md" }, [], refused("outside the vault")],
  ["read_file", { path: "rel.md" }, [], refused("outside the vault")],
  ["read_file", { path: "chain1.md" }, [], refused("outside the vault")],
  ["write_file", { path: "notes/x.md", content: "pwned" }, [], refused("outside the vault")],
  ["edit_file", { path: "rel.md", operation: "insert", line: 1, text: "pwned" }, [], refused("outside the vault")],
  ["move_file", { from: "notes/x.md", to: "notes/y.md" }, [], refused("outside the vault")],
  ["delete_file", { path: "rel.md" }, [], refused("outside the vault")],
  ["get_file_info", { path: "chain2.md" }, [], refused("outside the vault")],
  // A folder linked from outside: skipped unless followed, and then read-only.
  ["read_file", { path: "link/inner.md" }, [], refused("followLinkedFolders")],
  ["list_files", { folder: "link" }, [], refused("followLinkedFolders")],
  ["write_file", { path: "link/new.md", content: "pwned" }, [], refused("followLinkedFolders")],
  ["read_file", { path: "link/inner.md" }, ["--follow-linked-folders"], ok("also outside")],
  ["list_files", { folder: "link" }, ["--follow-linked-folders"], ok("link/inner.md")],
  ["search_files", { query: "also outside" }, ["--follow-linked-folders"], ok("link/inner.md")],
  ["write_file", { path: "link/new.md", content: "pwned" }, ["--follow-linked-folders"], refused("never change it")],
  ["write_file", { path: "link/inner.md", content: "pwned" }, ["--follow-linked-folders"], refused("never change it")],
  ["edit_file", { path: "link/inner.md", operation: "insert", line: 1, text: "x" }, ["--follow-linked-folders"], refused("never change it")],
  ["create_folder", { path: "link/sub" }, ["--follow-linked-folders"], refused("never change it")],
  ["move_file", { from: "Notes/Plan.md", to: "link/Plan.md" }, ["--follow-linked-folders"], refused("never change it")],
  ["delete_file", { path: "link/inner.md" }, ["--follow-linked-folders"], refused("never change it")],
  // The vault itself through `self`, and links into protected folders.
  ["read_file", { path: "self/Notes/Plan.md" }, [], ok("Notes/Plan.md", "water the plants")],
  ["read_file", { path: "self/self/self/Notes/Plan.md" }, [], ok("water the plants")],
  ["write_file", { path: "self/Notes/New.md", content: "new" }, [], ok("Created Notes/New.md")],
  ["create_folder", { path: "self/made" }, [], ok("Created the folder made")],
  ["write_file", { path: "self/.obsidian/evil.json", content: "{}" }, [], refused("leads into .obsidian")],
  ["read_file", { path: "self/.obsidian/app.json" }, [], refused("leads into .obsidian")],
  ["write_file", { path: "self/.git/hooks/post-commit", content: "rm -rf ~" }, [], refused("leads into .git")],
  ["create_folder", { path: "self/.trash/x" }, [], refused("leads into .trash")],
  ["move_file", { from: "Notes/Plan.md", to: "self/.trash/Plan.md" }, [], refused("leads into .trash")],
  ["write_file", { path: "gitlink/config", content: "pwned" }, [], refused("leads into .git")],
  ["read_file", { path: "a.md" }, [], refused("leads into .obsidian")],
  ["edit_file", { path: "a", operation: "replace", old_text: "{}", new_text: "[]" }, [], refused("leads into .obsidian")],
  ["list_files", { folder: "self/.obsidian" }, [], refused("protected folder")],
  ["read_file", { path: "chainin.md" }, [], ok("Notes/Plan.md", "water the plants")],
  ["delete_file", { path: "alias.md" }, [], refused("alias.md is a link")],
  // Dangling, looping, FIFO: refused at once, never opened, never hanging.
  ["read_file", { path: "gone.md" }, [], refused("dangling link")],
  ["write_file", { path: "gone.md", content: "x" }, [], refused("dangling link")],
  ["read_file", { path: "loop.md" }, [], refused("loops")],
  ["create_folder", { path: "loopdir/x" }, [], refused("loops")],
  ["read_file", { path: "fifo.md" }, [], refused("FIFO")],
  ["edit_file", { path: "fifo.md", operation: "insert", line: 1, text: "x" }, [], refused("FIFO")],
  ["get_file_info", { path: "fifo" }, [], refused("FIFO")],
  // Listing and searching skip and count what they must not open.
  ["list_files", {}, [], ok("Notes/Plan.md", "entries skipped", "1 FIFO", "1 dangling link", "2 looping links", "folder linked from outside")],
  ["search_files", { query: "outside" }, [], ok("No note matches", "entries skipped", "1 FIFO")],
  ["search_files", { query: "plants" }, [], ok("Notes/Plan.md", "entries skipped")],
];


test("every symlink form, FIFO, dangling and looping link, through every note tool", { timeout: 600_000 }, async () => {
  for (const [i, [tool, input, flags, expect]] of CASES.entries()) {
    const label = `#${i} ${tool} ${JSON.stringify(input)} ${flags.join(" ")}`;
    const world = linkedWorld();
    const before = world.snapshot();
    const from = server.requests.length;
    server.enqueue(
      { kind: "tool_use", tools: [{ id: "t", name: tool, input }] },
      { kind: "text", text: `Case ${i} done.` },
      { kind: "text", text: `Still here ${i}.` },
    );
    const child = startHeadless(["--vault", world.vault, "--llm-base-url", server.url, "--approvals", "approve", ...flags], { stdin: "pipe" });
    child.stdin.write(`case ${i}\n`);
    await waitFor(() => child.stdoutText.includes(`Case ${i} done.`), 15_000, `${label}: the case's answer`);
    child.stdin.write("hello again\n");
    await waitFor(() => child.stdoutText.includes(`Still here ${i}.`), 15_000, `${label}: the next answer`);
    child.stdin.end();
    const { code } = await child.done;
    assert.equal(code, 0, `${label}: ${child.stderrText}`);

    const result = toolResults(server, from).t;
    assert.ok(result, `${label}: no tool result`);
    const text = String(result.content);
    assert.equal(result.is_error === true, expect.error, `${label}: ${text}`);
    for (const word of expect.words) assert.ok(text.includes(word), `${label}: ${JSON.stringify(word)} missing from: ${text}`);
    assert.ok(!text.includes(world.root), `${label}: the result shows an absolute path: ${text}`);
    assert.ok(!text.includes("outside the vault\n") || !text.includes("secret"), `${label}: outside content leaked: ${text}`);
    world.assertIntact(before, label);
    assert.ok(!existsSync(path.join(world.root, "outside/new.md")) && !existsSync(path.join(world.root, "outside/folder/new.md")), label);
  }
});

test("the created note and folder went to their real place inside the vault", async () => {
  const world = linkedWorld();
  server.enqueue(
    { kind: "tool_use", tools: [{ id: "w", name: "write_file", input: { path: "self/self/Notes/Real.md", content: "real\n" } }] },
    { kind: "text", text: "Done." },
  );
  const child = startHeadless(["--vault", world.vault, "--llm-base-url", server.url], { stdin: "pipe" });
  child.stdin.write("write it\n");
  await waitFor(() => child.stdoutText.includes("Done."), 15_000, "the answer");
  child.stdin.end();
  await child.done;
  assert.equal(readFileSync(path.join(world.vault, "Notes/Real.md"), "utf8"), "real\n");
});

/** Defence in depth: the host refuses on its own, whatever path it is handed. */
test("NodeVault refuses real locations out of the vault or in hidden folders, and never opens a FIFO", async () => {
  const world = linkedWorld();
  const before = world.snapshot();
  const vault = new NodeVault(world.vault);
  const refusals = [
    () => vault.vaultRead("notes/x.md"),
    () => vault.vaultRead("link/inner.md"),
    () => vault.vaultRead("a.md"),
    () => vault.vaultRead("self/.git/config"),
    () => vault.vaultRead("fifo.md"),
    () => vault.vaultRead("gone.md"),
    () => vault.vaultRead("loop.md"),
    () => vault.vaultCreate("link/new.md", "x"),
    () => vault.vaultCreate("self/.obsidian/new.json", "x"),
    () => vault.vaultCreate("gone.md", "x"),
    () => vault.vaultProcess("rel.md", () => "pwned"),
    () => vault.vaultProcess("fifo.md", () => "x"),
    () => vault.vaultCreateFolder("link/sub"),
    () => vault.vaultCreateFolder("self/.git/hooks2"),
    () => vault.vaultRename("Notes/Plan.md", "link/Plan.md"),
    () => vault.vaultRename("link/inner.md", "Notes/inner.md"),
    () => vault.vaultTrash("link/inner.md"),
  ];
  for (const [i, run] of refusals.entries()) {
    await assert.rejects(run(), (error) => {
      assert.ok(!error.message.includes(world.root), `#${i}: ${error.message}`);
      return true;
    }, `#${i}`);
  }
  world.assertIntact(before, "NodeVault");
  // The listing reports links and special files as what they are, without walking through them.
  const entries = await vault.vaultList(false);
  const kind = (p) => entries.find((e) => e.path === p);
  assert.equal(kind("notes/x.md").kind, "outside");
  assert.equal(kind("link").kind, "outside");
  assert.equal(kind("link").isFolder, true);
  assert.equal(kind("link/inner.md"), undefined);
  assert.equal(kind("self").realPath, "");
  assert.equal(kind("a.md").realPath, ".obsidian/app.json");
  assert.equal(kind("chainin.md").realPath, "Notes/Plan.md");
  assert.equal(kind("gone.md").kind, "dangling");
  assert.equal(kind("loop.md").kind, "loop");
  assert.equal(kind("fifo.md").kind, "fifo");
  assert.ok(!entries.some((e) => e.path.startsWith("self/")), "self is not walked");
  const followed = await vault.vaultList(true);
  assert.equal(followed.find((e) => e.path === "link/inner.md")?.kind, "linked");
  assert.equal(await vault.vaultRead("link/inner.md"), "also outside\n");
  await assert.rejects(vault.vaultProcess("link/inner.md", () => "pwned"));
  world.assertIntact(before, "NodeVault followed");
  // Plain notes still work, through `self` too.
  assert.equal(await vault.vaultRead("self/Notes/Plan.md"), "# Plan\nwater the plants\n");
  writeFileSync(path.join(world.vault, "Notes/Plan.md"), "# Plan\nwater the plants\n");
});

test("NodeVault's many-notes read (a search's) gives each note what its own read gives: the same refusals, the same bytes", async () => {
  const world = linkedWorld();
  const before = world.snapshot();
  const vault = new NodeVault(world.vault);
  const paths = ["notes/x.md", "rel.md", "chain1.md", "chain2.md", "link/inner.md", "link", "a.md", "self/.git/config", "gitlink/config", "fifo.md", "gone.md", "loop.md", "loopdir/x.md", "chainin.md", "alias.md", "Notes/Plan.md", "self/Notes/Plan.md", "missing.md", "../outside/secret.md"];
  const one = (p) => vault.vaultReadBytes(p).then((bytes) => Buffer.from(bytes).toString("latin1"), (error) => `refused: ${error.message}`);
  const many = async () => (await vault.vaultReadManyBytes(paths)).map((r) => (typeof r === "string" ? `refused: ${r}` : Buffer.from(r).toString("latin1")));
  for (const follow of [false, true]) {
    await vault.vaultList(follow);
    const expected = [];
    for (const p of paths) expected.push(await one(p));
    assert.deepEqual(await many(), expected, `following linked folders: ${follow}`);
    for (const answer of expected) assert.ok(!answer.includes(world.root), answer);
  }
  assert.ok((await many())[paths.indexOf("Notes/Plan.md")].startsWith("# Plan"));
  assert.ok((await many())[paths.indexOf("fifo.md")].startsWith("refused"));
  world.assertIntact(before, "NodeVault many");
});
