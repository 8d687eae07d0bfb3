// The Node host's data-folder calls (js-shim/src/node/node-io.ts) where they decide nothing but
// must still do exactly what the core asked: removeFile unlinks one file in one trip to the
// thread pool, a file already gone counting as removed, anything else refused.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ROOT } from "./helpers.mjs";

const { NodeIO } = await import(path.join(ROOT, "js-shim/dist/node.js"));

test("removeFile removes a file, takes a missing one as removed, and refuses a folder or a path outside", async () => {
  const vault = mkdtempSync(path.join(tmpdir(), "node-io-"));
  const data = path.join(vault, ".smarthole");
  const io = new NodeIO(data);
  mkdirSync(path.join(data, "inbox"), { recursive: true });
  writeFileSync(path.join(data, "inbox/m.json"), "{}");
  await io.removeFile("inbox/m.json");
  assert.equal(existsSync(path.join(data, "inbox/m.json")), false);
  await io.removeFile("inbox/m.json");
  await io.removeFile("inbox/never-was.json");
  await assert.rejects(io.removeFile("inbox"), "a folder is not a file");
  assert.equal(existsSync(path.join(data, "inbox")), true);
  writeFileSync(path.join(vault, "outside.txt"), "kept");
  await assert.rejects(io.removeFile("../outside.txt"));
  assert.equal(existsSync(path.join(vault, "outside.txt")), true);
});
