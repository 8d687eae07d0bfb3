// The short crash torture (`make soak` runs the long one): the headless host SIGKILLed at
// random moments while hub and direct messages stream in; see tests/torture/crash-torture.mjs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { crashTorture } from "../torture/crash-torture.mjs";

const KILLS = Number(process.env.TORTURE_KILLS ?? 30);

test(`${KILLS} random SIGKILLs: every message that reached the inbox is recorded once or in failed/`, { timeout: 600_000 }, async () => {
  const result = await crashTorture({ kills: KILLS, seed: Number(process.env.TORTURE_SEED ?? 7) });
  assert.equal(result.kills, KILLS);
  assert.ok(result.reachedInbox > 0 && result.hubRouted > 0, JSON.stringify(result));
});
