// Anthropic's prompt cache, simulated on request bodies, for the scripted server, tests and
// benchmarks (issue 17). The rules, as the Messages API documents them:
//
// - The prompt is a sequence of blocks in cache order: tools, then system blocks, then each
//   message's content blocks. A prefix is identified by everything up to and including a block
//   (the model too); `cache_control` itself is not part of it, so a breakpoint can move.
// - A request writes an entry for the prefix ending at each block marked `cache_control`
//   (at most 4), when that prefix holds at least `minTokens` (1024 for Sonnet and Opus).
// - It reads the longest prefix that an earlier request wrote and that is still alive, looking
//   from each breakpoint back over at most 20 block boundaries (the lookback).
// - Entries live 5 minutes (or 1 hour with `ttl: "1h"`), renewed by every read.
// - usage: cache_read_input_tokens = the prefix read; cache_creation_input_tokens = from there
//   to the last breakpoint; input_tokens = what follows the last breakpoint.
//
// Tokens are estimated as 4 characters of a block's JSON each (the same estimate everywhere, so
// shares and cost ratios are meaningful; absolute counts are not the tokenizer's).
import { createHash } from "node:crypto";

const TTL_MS = { "5m": 5 * 60_000, "1h": 60 * 60_000 };
export const LOOKBACK_BLOCKS = 20;

export const tokensOf = (text) => Math.max(1, Math.ceil(String(text).length / 4));

/** The body's blocks in cache order: `{ key, tokens, ttl }` with `ttl` set on breakpoints. */
export function cacheBlocks(body) {
  const out = [];
  let key = createHash("sha256").update(String(body?.model ?? "")).digest("hex");
  const add = (where, block) => {
    const { cache_control: mark, ...bare } = typeof block === "string" ? { type: "text", text: block } : block;
    const json = JSON.stringify(bare);
    key = createHash("sha256").update(key).update(where).update(json).digest("hex");
    out.push({ key, tokens: tokensOf(json), ttl: mark ? (mark.ttl ?? "5m") : null });
  };
  for (const tool of body?.tools ?? []) add("tool", tool);
  const system = typeof body?.system === "string" ? [body.system] : (body?.system ?? []);
  for (const block of system) add("system", block);
  (body?.messages ?? []).forEach((message, i) => {
    const content = typeof message.content === "string" ? [message.content] : (message.content ?? []);
    content.forEach((block, j) => add(`${i}:${message.role}:${j === 0 ? "start" : "next"}`, block));
  });
  return out;
}

/** The cache of one simulated account: entries by prefix key, with their expiry. */
export class PromptCache {
  #entries = new Map();

  constructor({ minTokens = 1024, lookback = LOOKBACK_BLOCKS } = {}) {
    this.minTokens = minTokens;
    this.lookback = lookback;
  }

  /** Applies one request at `now` (ms); returns its `usage` as the API would report it. */
  apply(body, now = Date.now()) {
    const blocks = cacheBlocks(body);
    const before = [0];
    for (const b of blocks) before.push(before[before.length - 1] + b.tokens);
    const total = before[blocks.length];
    const breakpoints = blocks.map((b, i) => (b.ttl ? i : -1)).filter((i) => i >= 0);
    const alive = (i) => (this.#entries.get(blocks[i].key)?.expires ?? -1) > now;
    // The longest prefix read: from each breakpoint back over the lookback window.
    let hit = -1;
    for (const bp of breakpoints) {
      for (let i = bp; i >= 0 && i > bp - this.lookback; i--) {
        if (alive(i)) {
          hit = Math.max(hit, i);
          break;
        }
      }
    }
    const read = hit >= 0 ? before[hit + 1] : 0;
    if (hit >= 0) {
      const entry = this.#entries.get(blocks[hit].key);
      entry.expires = Math.max(entry.expires, now + entry.ttlMs);
    }
    let created5m = 0;
    let created1h = 0;
    let from = hit + 1;
    for (const bp of breakpoints) {
      const ttlMs = TTL_MS[blocks[bp].ttl] ?? TTL_MS["5m"];
      if (bp >= from) {
        const tokens = before[bp + 1] - before[from];
        if (blocks[bp].ttl === "1h") created1h += tokens;
        else created5m += tokens;
        from = bp + 1;
      }
      if (before[bp + 1] >= this.minTokens) {
        const entry = this.#entries.get(blocks[bp].key);
        this.#entries.set(blocks[bp].key, { expires: Math.max(entry?.expires ?? 0, now + ttlMs), ttlMs });
      }
    }
    const last = breakpoints.length ? breakpoints[breakpoints.length - 1] : -1;
    // A prefix under the minimum is neither written nor billed as written.
    const written = before[last + 1] >= this.minTokens ? created5m + created1h : 0;
    const usage = {
      input_tokens: total - read - written,
      cache_creation_input_tokens: written,
      cache_read_input_tokens: read,
      cache_creation: {
        ephemeral_5m_input_tokens: written ? created5m : 0,
        ephemeral_1h_input_tokens: written ? created1h : 0,
      },
    };
    return usage;
  }
}

/** Cost in input-token equivalents: fresh input 1, writes 1.25 (1 h: 2), reads 0.1; output at
 * `outputRatio` (5 for every current Claude model: output costs five times input). */
export function inputEquivalent(usage, { outputRatio = 5 } = {}) {
  const w1h = usage.cache_creation?.ephemeral_1h_input_tokens ?? 0;
  const w5m = (usage.cache_creation_input_tokens ?? 0) - w1h;
  return (usage.input_tokens ?? 0) + 1.25 * w5m + 2 * w1h + 0.1 * (usage.cache_read_input_tokens ?? 0)
    + outputRatio * (usage.output_tokens ?? 0);
}

/** The same request without any cache: every input token fresh. */
export function uncachedEquivalent(usage, { outputRatio = 5 } = {}) {
  const input = (usage.input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0);
  return input + outputRatio * (usage.output_tokens ?? 0);
}
