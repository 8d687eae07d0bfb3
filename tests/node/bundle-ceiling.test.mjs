// dist/main.js's size check (scripts/bundle-ceiling.mjs): a file over the ceiling fails it with
// what to do, one under passes, so the check cannot pass by measuring nothing; then the real
// bundle (built by `make test` before this runs).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const SCRIPT = "scripts/bundle-ceiling.mjs";

/** Runs the check on a file holding `bytes` (or on dist/main.js without them). */
function check(bytes) {
  const dir = mkdtempSync(join(tmpdir(), "bundle-ceiling-"));
  try {
    const args = bytes ? [join(dir, "main.js")] : [];
    if (bytes) writeFileSync(args[0], bytes);
    const run = spawnSync(process.execPath, [SCRIPT, ...args], { encoding: "utf8" });
    return { status: run.status, out: run.stdout + run.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("a bundle that does not compress below the ceiling fails, saying what to do", () => {
  // Random bytes as base64 (the wasm is carried that way): gzip cannot take them below 3/4.
  const { status, out } = check(randomBytes(1024 * 1024).toString("base64"));
  assert.equal(status, 1, out);
  assert.match(out, /over its ceiling of 704\.0 KB: cut what grew .* or raise CEILING/);
});

test("a small bundle passes", () => {
  const { status, out } = check("x".repeat(100_000));
  assert.equal(status, 0, out);
  assert.match(out, /within its ceiling/);
});

test("the built dist/main.js is within its ceiling", () => {
  const { status, out } = check();
  assert.equal(status, 0, out);
});
