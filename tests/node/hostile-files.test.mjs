// Damaged files never cost data (issue 14, DESIGN.md §4), through the headless host on a real
// folder: one table of damaged-file shapes, each applied to a vault with two conversations. After
// each: every history line that was good before is still in its file (hostile-world's
// assertIntact), what was set aside is where the docs say, and the host answers the next message.
// Then a wasm trap inside a host call, in the plugin: the core is rebuilt, as for any other trap.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdirSync, readFileSync, readdirSync, statSync, truncateSync, writeFileSync, appendFileSync } from "node:fs";
import { spawn } from "node:child_process";
import path from "node:path";
import { startScriptedServer } from "../peers/anthropic-server.mjs";
import { hostileWorld } from "./hostile-world.mjs";
import { ROOT, once, inbox, waitFor } from "./helpers.mjs";

let server;
before(async () => {
  server = await startScriptedServer({ fallback: { kind: "text", text: "ok" } });
});
after(() => server.close());

const MB = 1024 * 1024;

/** A vault with two conversations (the current one, and an archived copy) of two turns each. */
async function worldWithHistory() {
  const world = hostileWorld();
  for (const text of ["first message", "second message"]) {
    const run = await once(world.vault, server.url, text);
    assert.equal(run.code, 0, run.stderr);
  }
  const dir = path.join(world.vault, ".smarthole/conversations");
  const indexPath = path.join(dir, "index.json");
  const index = JSON.parse(readFileSync(indexPath, "utf8"));
  const current = index.current;
  const other = "c-archived-copy";
  cpSync(path.join(dir, `${current}.jsonl`), path.join(dir, `${other}.jsonl`));
  const entry = { ...index.conversations[0], id: other, status: "archived", endedAt: new Date().toISOString() };
  index.conversations.unshift(entry);
  writeFileSync(indexPath, JSON.stringify(index));
  return { world, dir, indexPath, current, other, log: path.join(dir, `${current}.jsonl`) };
}

const files = (dir) => readdirSync(dir);
const lines = (file) => readFileSync(file, "utf8").split("\n");

const CASES = [
  {
    name: "one index entry with a wrong-typed field",
    damage(w) {
      const index = JSON.parse(readFileSync(w.indexPath, "utf8"));
      index.conversations.find((c) => c.id === w.other).status = 42;
      writeFileSync(w.indexPath, JSON.stringify(index));
    },
    check(w, run) {
      const quarantine = readFileSync(path.join(w.dir, "index.quarantine"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
      assert.equal(quarantine.length, 1);
      assert.equal(quarantine[0].raw.id, w.other);
      assert.equal(quarantine[0].raw.status, 42, "kept as it was");
      assert.match(quarantine[0].reason, /unreadable conversation entry/);
      const index = JSON.parse(readFileSync(w.indexPath, "utf8"));
      assert.equal(index.current, w.current, "the other conversation is kept, still current");
      assert.match(run.stderr, /index\.quarantine/);
    },
  },
  {
    name: "lines of a newer version in the middle and at the end",
    damage(w) {
      const all = lines(w.log);
      const future = JSON.stringify({ id: "f#0", messageId: "f", role: "planner", content: [{ type: "plan" }], v: 3 });
      writeFileSync(w.log, [...all.slice(0, 2), future, ...all.slice(2, -1)].join("\n") + "\n" + future + "\n");
      w.future = future;
    },
    check(w) {
      assert.equal(lines(w.log).filter((l) => l === w.future).length, 2, "kept on disk, untouched");
      const sent = server.requests.at(-1).body.messages.map((m) => JSON.stringify(m.content)).join("\n");
      assert.match(sent, /second message/, "the readable turns still reach the model");
      assert.doesNotMatch(sent, /planner/);
    },
  },
  {
    name: "a torn tail",
    damage(w) {
      appendFileSync(w.log, '{"id":"t#0","messageId":"t","ro');
    },
    check(w) {
      const torn = files(w.dir).filter((f) => f.startsWith(`${w.current}.jsonl.torn-`));
      assert.equal(torn.length, 1, files(w.dir).join(", "));
      assert.equal(readFileSync(path.join(w.dir, torn[0]), "utf8"), '{"id":"t#0","messageId":"t","ro', "copied aside before the cut");
      for (const line of lines(w.log).filter(Boolean)) JSON.parse(line);
    },
  },
  {
    name: "a line cut short in the middle",
    damage(w) {
      const all = lines(w.log);
      w.damaged = all[1];
      all[1] = all[1].slice(0, all[1].length / 2);
      writeFileSync(w.log, all.join("\n"));
      w.cut = all[1];
    },
    check(w) {
      assert.ok(lines(w.log).includes(w.cut), "the damaged line stays");
    },
  },
  {
    name: "bytes that are not UTF-8, and a torn tail after them",
    damage(w) {
      const all = lines(w.log);
      w.damaged = all[1];
      const bytes = Buffer.concat([
        Buffer.from(all[0] + "\n"),
        Buffer.from([0xff, 0xfe, 0x80]),
        Buffer.from(all.slice(1, -1).join("\n") + "\n"),
        Buffer.from('{"id":"t'),
      ]);
      writeFileSync(w.log, bytes);
      w.bytes = bytes;
    },
    check(w) {
      const now = readFileSync(w.log);
      assert.ok(now.subarray(0, w.bytes.length).equals(w.bytes), "no byte already on disk was rewritten");
      assert.equal(files(w.dir).filter((f) => f.startsWith(`${w.current}.jsonl.torn-`)).length, 1);
    },
  },
  {
    name: "an empty index and an empty inbox file",
    damage(w) {
      writeFileSync(w.indexPath, "");
      mkdirSync(path.join(w.world.vault, ".smarthole/inbox"), { recursive: true });
      writeFileSync(path.join(w.world.vault, ".smarthole/inbox/empty.json"), "");
    },
    check(w) {
      assert.equal(files(w.dir).filter((f) => f.startsWith("index.json.unreadable-")).length, 1, files(w.dir).join(", "));
      assert.match(readFileSync(path.join(w.world.vault, ".smarthole/failed/empty.json"), "utf8"), /unreadable inbox file/);
    },
  },
  {
    name: "a 600 MB inbox file next to a good one",
    damage(w) {
      const dir = path.join(w.world.vault, ".smarthole/inbox");
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, "huge.json"), "{");
      truncateSync(path.join(dir, "huge.json"), 600 * MB);
      const message = { id: "left", text: "left by the last run", source: "direct", timestamp: new Date().toISOString() };
      writeFileSync(path.join(dir, "left.json"), JSON.stringify({ message, attempts: 1, receivedAt: Date.now() }));
    },
    check(w) {
      const failed = path.join(w.world.vault, ".smarthole/failed");
      assert.equal(statSync(path.join(failed, "huge.json")).size, 600 * MB, "moved whole to failed/");
      assert.match(JSON.parse(readFileSync(path.join(failed, "huge.json.reason.json"), "utf8")).error, /over the \d+-byte limit/);
      assert.deepEqual(inbox(w.world.vault), []);
      assert.ok(lines(w.log).some((l) => l.includes("left by the last run")), "the good entry was processed");
    },
  },
  {
    name: "a 600 MB index",
    damage(w) {
      w.indexSize = 600 * MB;
      truncateSync(w.indexPath, w.indexSize);
    },
    check(w) {
      const aside = files(w.dir).filter((f) => f.startsWith("index.json.oversized-"));
      assert.equal(aside.length, 1, files(w.dir).join(", "));
      assert.equal(statSync(path.join(w.dir, aside[0])).size, w.indexSize, "set aside unchanged");
    },
  },
];

for (const c of CASES) {
  test(`damaged: ${c.name} — the good data stays, the damage is set aside, the next message is answered`, async () => {
    const w = await worldWithHistory();
    const before = w.world.snapshot();
    c.damage(w);
    // The line a case damages on purpose is the damage, not a loss.
    for (const [file, kept] of before.history) before.history.set(file, kept.filter((l) => l !== w.damaged));
    const run = await once(w.world.vault, server.url, "the next message");
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.result.success, true, run.stdout);
    assert.equal(run.result.response, "ok");
    w.world.assertIntact(before, c.name);
    c.check(w, run);
    // A second start meets nothing left to set aside, and answers again.
    const listing = files(w.dir).join(",");
    const again = await once(w.world.vault, server.url, "and one more");
    assert.equal(again.result?.success, true, again.stderr);
    assert.deepEqual(files(w.dir).filter((f) => !f.endsWith(".jsonl")).join(","), listing.split(",").filter((f) => !f.endsWith(".jsonl")).join(","));
    w.world.assertIntact(before, `${c.name}, second start`);
  });
}

test("a wasm trap inside a host call rebuilds the core (plugin), instead of serving on as an I/O error", async () => {
  // In a process of its own: the trap surfaces as an uncaught exception (as on the window in
  // Obsidian), which the test runner would take as this test's failure.
  const child = spawn(process.execPath, [path.join(ROOT, "tests/node/trap-in-host-call.mjs"), server.url], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (err += d));
  const code = await new Promise((resolve) => child.on("close", resolve));
  assert.equal(code, 0, `${out}\n${err}`);
  const report = JSON.parse(out.trim().split("\n").pop());
  assert.equal(report.trapped, 1, "the host call failed once, as a trap");
  assert.equal(report.surfacedAsTrap, true, "the trap surfaced as a WebAssembly.RuntimeError");
  assert.equal(report.rebuilt, true, "the runtime rebuilt the core and told the user");
  assert.doesNotMatch(report.outcome, /file operation failed: unreachable/, "never reported as an I/O error");
  assert.equal(report.after, true, "the new core answers");
  assert.equal(report.historyReadsAgain, true);
});
