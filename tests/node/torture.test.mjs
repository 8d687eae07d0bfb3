// The short crash torture and soak (`make soak` runs the long ones): the headless host SIGKILLed
// at random moments while hub and direct messages stream in (tests/torture/crash-torture.mjs);
// messages through the API and the hub with injected faults, and answered by an ACP agent that
// searches the vault (tests/torture/soak.mjs).
import { test } from "node:test";
import assert from "node:assert/strict";
import { crashTorture } from "../torture/crash-torture.mjs";

const KILLS = Number(process.env.TORTURE_KILLS ?? 30);

test(`${KILLS} random SIGKILLs: every message that reached the inbox is recorded once or in failed/`, { timeout: 600_000 }, async () => {
  const result = await crashTorture({ kills: KILLS, seed: Number(process.env.TORTURE_SEED ?? 7) });
  assert.equal(result.kills, KILLS);
  assert.ok(result.reachedInbox > 0 && result.hubRouted > 0, JSON.stringify(result));
});

const SOAK_MESSAGES = Number(process.env.SOAK_MESSAGES ?? 300);

test(`soak: ${SOAK_MESSAGES} messages over the API and the hub with injected faults and a hub restart; none lost or doubled`, { timeout: 600_000 }, async () => {
  const { soak } = await import("../torture/soak.mjs");
  const result = await soak({ messages: SOAK_MESSAGES, hubRestartEvery: Math.ceil(SOAK_MESSAGES / 2), hubEvery: 50, endEvery: 100 });
  assert.equal(result.api + result.hub, SOAK_MESSAGES);
  assert.ok(result.faults > 0 && result.hubRestarts > 0 && result.hub > 0, JSON.stringify({ ...result, samples: undefined }));
  assert.ok(result.samples.length > 0 && result.samples.every((s) => s.wasm > 0 && s.rss > 0), "memory was sampled");
});

test(`soak: ${SOAK_MESSAGES / 3} messages answered by an ACP agent that searches in words and by meaning; none lost or doubled`, { timeout: 600_000 }, async () => {
  const { soak } = await import("../torture/soak.mjs");
  const messages = SOAK_MESSAGES / 3;
  const result = await soak({ messages, agent: "acp", notes: 200, hubRestartEvery: Math.ceil(messages / 2), hubEvery: 25, endEvery: 40 });
  assert.equal(result.api + result.hub, messages);
  assert.ok(result.searches > 0 && result.hubRestarts > 0 && result.hub > 0 && result.conversationsEnded > 0, JSON.stringify({ ...result, samples: undefined }));
});
