// Issue 17: what a conversation costs. A scripted 30-turn conversation (answers of a few KB,
// every third turn with a tool call) through the built core, against the scripted server whose
// simulated prompt cache applies the API's rules to every request (tests/peers/prompt-cache.mjs).
// Run: node --test tests/node/prompt-cache.test.mjs (after `make build`).
import { test } from "node:test";
import assert from "node:assert/strict";
import { PromptCache, cacheBlocks } from "../peers/prompt-cache.mjs";
import { runCachedConversation, cacheCurve, cacheSummary } from "../peers/cached-conversation.mjs";

const big = (n) => "x".repeat(n);

test("the simulated cache follows the API's rules: breakpoints, lookback, minimum, TTL", () => {
  const cache = new PromptCache({ minTokens: 1024 });
  const system = [{ type: "text", text: big(8000), cache_control: { type: "ephemeral" } }];
  const user = (n) => ({ role: "user", content: Array.from({ length: n }, (_, i) => ({ type: "text", text: `block ${i} ${big(400)}` })) });
  const first = { model: "m", system, messages: [user(1)] };
  first.messages[0].content[0].cache_control = { type: "ephemeral" };
  const u1 = cache.apply(first, 0);
  assert.equal(u1.cache_read_input_tokens, 0);
  assert.ok(u1.cache_creation_input_tokens > 2000 && u1.input_tokens === 0, JSON.stringify(u1));
  // The same prefix again: read; cache_control does not change what a prefix is.
  const again = { model: "m", system: [{ type: "text", text: big(8000) }], messages: [user(1)] };
  again.messages[0].content[0].cache_control = { type: "ephemeral" };
  const u2 = cache.apply(again, 1000);
  assert.equal(u2.cache_creation_input_tokens, 0);
  assert.ok(u2.cache_read_input_tokens > 2000 && u2.input_tokens === 0, JSON.stringify(u2));
  // 25 blocks later, one breakpoint at the end: beyond the 20-block lookback, only the system is
  // read (it is itself a breakpoint of this request).
  const long = { model: "m", system, messages: [{ role: "user", content: [...user(1).content, ...user(25).content] }] };
  long.messages[0].content.at(-1).cache_control = { type: "ephemeral" };
  const u3 = cache.apply(long, 2000);
  assert.equal(u3.cache_read_input_tokens, cacheBlocks(long)[0].tokens, "the system prefix only");
  // After 5 minutes without a read, nothing is left.
  const u4 = cache.apply(again, 2000 + 5 * 60_000 + 1);
  assert.equal(u4.cache_read_input_tokens, 0);
  // Under the minimum, nothing is written.
  const small = new PromptCache({ minTokens: 1024 }).apply({ model: "m", system: [{ type: "text", text: "s", cache_control: { type: "ephemeral" } }], messages: [user(1)] }, 0);
  assert.equal(small.cache_creation_input_tokens, 0);
});

test("a 30-turn conversation reads >= 90 % of its input from the cache from the 3rd request on; the cache takes its input cost to <= 25 %", async () => {
  const run = await runCachedConversation({ turns: 30, toolEvery: 3 });
  const curve = cacheCurve(run.requests);
  const summary = cacheSummary(curve);
  assert.equal(curve.length, 40, "30 turns, 10 of them with a tool call: 40 model requests");
  for (const r of run.requests) {
    assert.deepEqual(r.schemaErrors, [], `request ${r.index} is a valid Messages request`);
  }
  assert.ok(summary.maxMarks <= 4, `at most 4 cache_control markers (got ${summary.maxMarks})`);
  // Every request reads all the previous one sent: tool loops, and each new turn.
  for (const r of curve.slice(1)) {
    assert.equal(r.read, curve[r.request - 2].input, `request ${r.request} reads the whole previous request`);
    assert.equal(r.fresh, 0, `request ${r.request}: nothing after the last breakpoint`);
  }
  assert.ok(summary.readShareFrom3rd >= 0.9, `from the 3rd request on ${(100 * summary.readShareFrom3rd).toFixed(1)} % read from the cache`);
  assert.ok(summary.inputCostRatio <= 0.25, `input cost with the cache: ${(100 * summary.inputCostRatio).toFixed(1)} % of without`);
  // With output counted (5x input, the same with and without a cache) the ratio is higher, and
  // DESIGN.md's 25 % is below what any caching could reach for answers this long (floorCost: every
  // request reading all of the previous one at 0.1x, what is new at 1x). The cache must come
  // within 5 % of that floor; both are reported in docs/BENCHMARKS.md.
  const pct = (x) => `${(100 * x).toFixed(1)} %`;
  assert.ok(summary.costRatio <= 1.05 * summary.floorCostRatio, `cost with output ${pct(summary.costRatio)} of without; the floor is ${pct(summary.floorCostRatio)}`);

  // The same requests, had they carried the tools' and system's marks only (issue 17's starting
  // point): the check above would fail.
  const cache = new PromptCache();
  const old = run.requests.map((r) => {
    const body = structuredClone(r.body);
    for (const m of body.messages) for (const b of m.content) delete b.cache_control;
    return cache.apply(body);
  });
  const oldShare = old.slice(2).reduce((a, u) => a + u.cache_read_input_tokens, 0)
    / old.slice(2).reduce((a, u) => a + u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens, 0);
  assert.ok(oldShare < 0.5, `without rolling breakpoints only ${(100 * oldShare).toFixed(1)} % would be read`);
});

test("the usage in ProcessResult, in history and in the day's totals is what the server returned", async () => {
  const run = await runCachedConversation({ turns: 6, toolEvery: 2 });
  const fields = [
    ["inputTokens", "input_tokens"],
    ["cacheCreationInputTokens", "cache_creation_input_tokens"],
    ["cacheReadInputTokens", "cache_read_input_tokens"],
    ["outputTokens", "output_tokens"],
  ];
  const ends = run.lines.filter((l) => l.turn && l.role !== "system");
  assert.equal(ends.length, run.results.length);
  const all = Object.fromEntries(fields.map(([k]) => [k, 0]));
  run.results.forEach((result, i) => {
    const [from, to] = run.requestsOfTurn[i];
    const served = run.requests.slice(from, to).map((r) => r.usage);
    const usage = result.usage;
    assert.ok(usage, `turn ${i} has usage`);
    for (const [ours, theirs] of fields) {
      assert.equal(usage[ours], served.reduce((a, u) => a + u[theirs], 0), `turn ${i}: ${ours}`);
      all[ours] += usage[ours];
    }
    assert.equal(usage.modelCalls, to - from);
    const last = served.at(-1);
    assert.equal(usage.contextTokens, last.input_tokens + last.cache_creation_input_tokens + last.cache_read_input_tokens + last.output_tokens);
    assert.equal(usage.model, "claude-sonnet-4-5");
    assert.equal(usage.contextWindow, 200_000);
    const expectedCost = (3 * (usage.inputTokens + 1.25 * usage.cacheCreationInputTokens + 0.1 * usage.cacheReadInputTokens) + 15 * usage.outputTokens) / 1e6;
    assert.ok(Math.abs(usage.costUsd - expectedCost) < 1e-12, `turn ${i}: cost ${usage.costUsd} vs ${expectedCost}`);
    assert.deepEqual(ends[i].turn.usage, usage, `turn ${i}: history holds what the result says`);
  });
  for (const [ours] of fields) {
    assert.equal(run.totals.today[ours], all[ours], `today's ${ours}`);
    assert.equal(run.totals.month[ours], all[ours], `this month's ${ours}`);
  }
});
