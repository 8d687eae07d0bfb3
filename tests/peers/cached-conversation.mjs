// A scripted conversation through the real core (the built js-shim/dist/node.js, real files)
// against the scripted Anthropic server with its simulated prompt cache (issue 17): `turns`
// messages, answers of a few KB, every `toolEvery`-th turn with a tool call first. Used by
// tests/node/prompt-cache.test.mjs (the assertions) and bench/prompt-cache.mjs (the curve).
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startScriptedServer } from "./anthropic-server.mjs";
import { historyFileLines } from "./history-lines.mjs";
import { PromptCache, inputEquivalent, uncachedEquivalent } from "./prompt-cache.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** Deterministic filler text of about `bytes` bytes (a small LCG, no randomness). */
function prose(seed, bytes) {
  const words = ["note", "vault", "meeting", "garden", "project", "draft", "review", "budget", "idea", "list",
    "tomorrow", "weekly", "summary", "folder", "link", "tag", "task", "plan", "write", "read"];
  let x = seed * 2654435761 % 4294967296;
  const out = [];
  let size = 0;
  while (size < bytes) {
    x = (x * 1664525 + 1013904223) % 4294967296;
    const w = words[x % words.length];
    out.push(w);
    size += w.length + 1;
    if (x % 13 === 0) out.push("\n\n");
  }
  return out.join(" ");
}

/**
 * Runs the conversation; returns every request the server saw (body, usage it reported), the
 * ProcessResults, and the history lines recorded.
 */
export async function runCachedConversation({ turns = 30, toolEvery = 3, model = "claude-sonnet-4-5" } = {}) {
  const { loadCore, nodeHost } = await import(path.join(ROOT, "js-shim/dist/node.js"));
  const promptCache = new PromptCache();
  const server = await startScriptedServer({ promptCache, fallback: { kind: "text", text: "ok" } });
  const vault = mkdtempSync(path.join(tmpdir(), "smarthole-cache-"));
  const dataDir = path.join(vault, ".smarthole");
  const { MessageProcessor } = await loadCore();
  const host = nodeHost(dataDir, {});
  const processor = new MessageProcessor(host, { baseUrl: server.url, model, apiKey: "k", hubEnabled: false });
  await processor.initialize();
  const results = [];
  const requestsOfTurn = [];
  try {
    for (let i = 0; i < turns; i++) {
      const answer = prose(i + 1, 2000 + (i * 397) % 2500);
      if (i % toolEvery === toolEvery - 1) {
        server.enqueue(
          { kind: "tool_use", text: "Let me tell you where I am.", tools: [{ name: "send_message", input: { message: prose(100 + i, 300) } }] },
          { kind: "text", text: answer },
        );
      } else {
        server.enqueue({ kind: "text", text: answer });
      }
      const from = server.requests.length;
      const message = { id: `cache-${String(i).padStart(2, "0")}`, text: `Question ${i}: ${prose(200 + i, 150 + (i * 53) % 300)}`, source: "direct", timestamp: new Date().toISOString() };
      const result = await processor.process(message);
      if (!result.success) throw new Error(`turn ${i} failed: ${result.error}`);
      results.push(result);
      requestsOfTurn.push([from, server.requests.length]);
    }
    const totals = await processor.usageTotals();
    const logs = readdirSync(path.join(dataDir, "conversations")).filter((f) => f.endsWith(".jsonl"));
    const lines = logs.flatMap((f) => historyFileLines(readFileSync(path.join(dataDir, "conversations", f), "utf8")));
    return { requests: server.requests.slice(), results, requestsOfTurn, lines, totals };
  } finally {
    processor.dispose?.();
    await server.close();
    rmSync(vault, { recursive: true, force: true });
  }
}

/** Per request: tokens in, share read from the cache, and the costs with and without caching
 * in input-token equivalents (output at 5x input, as for every current Claude model). */
export function cacheCurve(requests) {
  return requests.map((r, i) => {
    const u = r.usage;
    const input = u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens;
    return {
      request: i + 1,
      input,
      read: u.cache_read_input_tokens,
      written: u.cache_creation_input_tokens,
      fresh: u.input_tokens,
      output: u.output_tokens,
      readShare: input ? u.cache_read_input_tokens / input : 0,
      cost: inputEquivalent(u),
      uncachedCost: uncachedEquivalent(u),
      inputCost: inputEquivalent(u, { outputRatio: 0 }),
      uncachedInputCost: uncachedEquivalent(u, { outputRatio: 0 }),
      marks: (r.rawBody.match(/"cache_control"/g) ?? []).length,
    };
  });
}

/** A lower bound on what any caching could make these requests cost, in input-token
 * equivalents: each request reads at 0.1x everything the one before it sent (at best the whole
 * previous request is its prefix), pays only 1x, not the 1.25x of a cache write, for what is new,
 * and pays its output as it is (5x, the same with and without a cache). No breakpoint placement
 * can beat it, so a budget below it cannot be met by caching. */
export function floorCost(curve) {
  return curve.reduce((a, r, i) => {
    const previous = i > 0 ? Math.min(curve[i - 1].input, r.input) : 0;
    return a + 0.1 * previous + (r.input - previous) + 5 * r.output;
  }, 0);
}

/** The conversation's totals: cost ratio (cached / uncached), with and without output. */
export function cacheSummary(curve) {
  const sum = (k) => curve.reduce((a, r) => a + r[k], 0);
  const fromThird = curve.slice(2);
  return {
    requests: curve.length,
    minReadShareFrom3rd: Math.min(...fromThird.map((r) => r.readShare)),
    readShareFrom3rd: fromThird.reduce((a, r) => a + r.read, 0) / fromThird.reduce((a, r) => a + r.input, 0),
    costRatio: sum("cost") / sum("uncachedCost"),
    inputCostRatio: sum("inputCost") / sum("uncachedInputCost"),
    floorCostRatio: floorCost(curve) / sum("uncachedCost"),
    maxMarks: Math.max(...curve.map((r) => r.marks)),
  };
}
