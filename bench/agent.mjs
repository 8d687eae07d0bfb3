// Issue 34: the user's own agent (ACP). start → ready (the agent's process spawned, `initialize`
// and `session/new` answered: from the "Starting …" line to the prompt going out), and the
// overhead the plugin adds to an agent's turn — in Node, the agent's first token arriving on the
// host's pipe → the core's text_delta event; in Chromium, the token as the page's scripted agent
// wrote it → the text on screen — with the built-in agent's figures beside them. Agents: the
// scripted one (tests/node/fake-acp-agent.mjs, a Node process) and, when installed, Claude Code's
// pinned ACP adapter against the scripted Anthropic server.
// Reported, never asserted. `node bench/agent.mjs` after `make build` (about a minute).
import { existsSync, mkdtempSync, mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { startScriptedServer } from "../tests/peers/anthropic-server.mjs";
import { openChat, type } from "../tests/browser/harness.mjs";

// Each processor's host hooks process exit once (to end its agents): more than Node's default 10.
process.setMaxListeners(50);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const FAKE = path.join(ROOT, "tests/node/fake-acp-agent.mjs");
const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const round = (x, digits = 2) => Number(x.toFixed(digits));
const stats = (samples) => {
  const s = [...samples].sort((a, b) => a - b);
  return { p50: round(quantile(s, 0.5)), p99: round(quantile(s, 0.99)), n: s.length };
};

/** A processor on real files whose agent is `settings`'; its events timed as they come. */
async function agentProcessor(settings) {
  const { loadCore, nodeHost } = await import(path.join(ROOT, "js-shim/dist/node.js"));
  const core = await loadCore();
  const { MessageProcessor } = core;
  const vault = mkdtempSync(path.join(tmpdir(), "smarthole-bench-agent-"));
  const seen = { events: [], firstChunkAt: null };
  const host = nodeHost(path.join(vault, ".smarthole"), { onEvent: (event) => seen.events.push({ at: performance.now(), event }) });
  const processor = new MessageProcessor(host, { model: "bench", apiKey: "k", hubEnabled: false, ...settings });
  // The host's links as the plugin wires them: the `smarthole` tools' own listener among them.
  host.links.attach(processor, {
    bodyLimit: core.agentApiBodyLimit(),
    internalError: core.agentApiFallbacks().internalError,
    handle: (request) => processor.handleApiRequest(request),
    handleTools: (request) => processor.handleAgentToolsRequest(request),
    log: () => {},
  }, (recorded, commandLine) => core.agentLeftovers(recorded, commandLine));
  // The host's pipe → the processor, with the moment the first answer chunk of a turn arrives.
  host.links.agents.events = {
    agentOutput: (id, chunk) => {
      if (seen.firstChunkAt === null && chunk.includes("agent_message_chunk")) seen.firstChunkAt = performance.now();
      processor.agentOutput(id, chunk);
    },
    agentExited: (...args) => processor.agentExited(...args),
  };
  await processor.initialize();
  const tools = await host.links.listenTools(processor.agentToolsListener());
  processor.agentToolsListening(tools.port ?? undefined, tools.error ?? undefined);
  const at = (type, pick = () => true) => seen.events.find((e) => e.event.type === type && pick(e.event))?.at;
  return {
    seen,
    /** One message: its start → ready (when the agent started for it) and first-token overhead. */
    async turn(id) {
      seen.events.length = 0;
      seen.firstChunkAt = null;
      const result = await processor.process({ id, text: `message ${id}`, source: "direct" });
      if (!result.success) throw new Error(`${id} failed: ${result.error}`);
      const starting = at("waiting", (e) => e.text.startsWith("Starting"));
      const prompted = at("stage", (e) => e.stage === "model_request");
      const token = at("text_delta");
      return { ready: starting === undefined ? null : prompted - starting, overhead: token - seen.firstChunkAt };
    },
    async close() {
      host.links.agents.stopAll();
      for (let i = 0; host.links.agents.ids.length > 0 && i < 100; i++) await new Promise((r) => setTimeout(r, 50));
      host.links.close();
      processor.free();
      rmSync(vault, { recursive: true, force: true });
    },
  };
}

/** start → ready over `starts` fresh processes, first-token overhead over `turns` turns. */
async function measure(settings, { starts, turns }) {
  const ready = [];
  const overhead = [];
  for (let s = 0; s < starts; s++) {
    const p = await agentProcessor(settings);
    try {
      const first = await p.turn(`start-${s}`);
      ready.push(first.ready);
      if (s === 0) for (let t = 0; t < turns; t++) overhead.push((await p.turn(`turn-${t}`)).overhead);
    } finally {
      await p.close();
    }
  }
  return { ready: stats(ready), overhead: stats(overhead) };
}

/** Claude Code's pinned adapter, if installed, pointed at a scripted server (scratch HOME). */
async function claude() {
  const { RECIPES } = await import("../tests/node/acp-recipes.mjs");
  let recipe;
  const server = await startScriptedServer({ fallback: { kind: "text", text: "ok" } });
  const home = mkdtempSync(path.join(tmpdir(), "smarthole-bench-home-"));
  try {
    recipe = RECIPES.claude({ modelUrl: server.url, home });
    if (!existsSync(recipe.command)) return null;
  } catch {
    await server.close();
    return null;
  }
  // The agent's clean environment takes PATH, HOME and its own prefixes from this process's.
  const saved = { ...process.env };
  Object.assign(process.env, recipe.env, { HOME: home });
  mkdirSync(home, { recursive: true });
  try {
    return await measure({ agent: "claude-code", agentCommand: [recipe.command, ...recipe.args].join(" ") }, { starts: 3, turns: 10 });
  } finally {
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
    await server.close();
    rmSync(home, { recursive: true, force: true });
  }
}

/** In Chromium: the page's scripted agent writes a token → the text is on screen. */
async function onScreen(turns = 30) {
  const chat = await openChat({ query: "?model=scripted&agent=claude-code" });
  try {
    const { page } = chat;
    await page.waitForSelector(".smarthole-send:not([disabled])");
    await page.evaluate(() => {
      window.__shown = [];
      new MutationObserver(() => {
        const body = document.querySelector(".smarthole-msg-assistant:last-child .smarthole-body");
        if (body?.textContent && window.__shown.at(-1)?.text !== body.textContent) window.__shown.push({ at: performance.now(), text: body.textContent });
      }).observe(document, { subtree: true, childList: true, characterData: true });
    });
    const samples = [];
    for (let i = 0; i < turns; i++) {
      const token = `token-${i}`;
      await page.evaluate((token) => (window.__acpScript = { turns: Array.from({ length: 200 }, () => ({ steps: [{ chunk: token }] })) }), token);
      await type(page, `message ${i}`);
      await page.waitForFunction((token) => window.__shown.some((s) => s.text.includes(token)), token);
      await page.waitForSelector(".smarthole-send:not([disabled])");
      const [written, shown] = await page.evaluate((token) => [
        window.__acp.written.find((w) => JSON.stringify(w.msg).includes(token)).at,
        window.__shown.find((s) => s.text.includes(token)).at,
      ], token);
      if (i >= 3) samples.push(shown - written);
    }
    return stats(samples);
  } finally {
    await chat.close();
  }
}

export async function agentBenchmarks() {
  const fake = await measure({ agent: "acp", agentCommand: `${process.execPath} ${FAKE}` }, { starts: 10, turns: 200 });
  const claudeCode = await claude();
  const screen = await onScreen();
  return {
    agent_fake_ready_p50_ms: fake.ready.p50,
    agent_fake_ready_p99_ms: fake.ready.p99,
    agent_fake_overhead_p50_ms: fake.overhead.p50,
    agent_fake_overhead_p99_ms: fake.overhead.p99,
    agent_claude_ready_p50_ms: claudeCode?.ready.p50 ?? null,
    agent_claude_ready_max_ms: claudeCode?.ready.p99 ?? null,
    agent_claude_overhead_p50_ms: claudeCode?.overhead.p50 ?? null,
    agent_claude_overhead_p99_ms: claudeCode?.overhead.p99 ?? null,
    agent_token_on_screen_p50_ms: screen.p50,
    agent_token_on_screen_p99_ms: screen.p99,
  };
}

const ms = (x) => (x === null || x === undefined ? "not measured" : `${x} ms`);

/** The section of docs/BENCHMARKS.md; the built-in agent's figures from the same run. */
export function agentSection(r) {
  return `
## Your own agent (ACP, issue 34)

\`node bench/agent.mjs\` after \`make build\` (also part of \`make bench\`). start → ready: from the answer's "Starting …" line
(the core about to spawn the agent) to the prompt going out — the process spawned, \`initialize\` and \`session/new\` answered;
10 fresh starts of the scripted agent (\`tests/node/fake-acp-agent.mjs\`, a Node process), 3 of Claude Code's pinned adapter
against the scripted Anthropic server. Overhead: the agent's first token of a turn arriving on the host's pipe → the core's
\`text_delta\` event (Node, 200 turns of the scripted agent, 10 of Claude Code); and in Chromium the token as the page's
scripted agent wrote it → the text on screen (27 turns). The built-in agent has no process to start: its counterpart is the
core's own overhead, message → first byte of the model request.

| | your own agent | the built-in agent |
|---|---|---|
| start → ready, scripted agent | p50 ${ms(r.agent_fake_ready_p50_ms)}, p99 ${ms(r.agent_fake_ready_p99_ms)} | none (no process); message → model request p50 ${ms(r.overhead_p50_ms)} |
| start → ready, Claude Code 0.23.1 adapter | p50 ${ms(r.agent_claude_ready_p50_ms)}, max ${ms(r.agent_claude_ready_max_ms)} | — |
| first token on the pipe → text_delta, scripted agent | p50 ${ms(r.agent_fake_overhead_p50_ms)}, p99 ${ms(r.agent_fake_overhead_p99_ms)} | — |
| first token on the pipe → text_delta, Claude Code | p50 ${ms(r.agent_claude_overhead_p50_ms)}, p99 ${ms(r.agent_claude_overhead_p99_ms)} | — |
| token written → on screen (Chromium) | p50 ${ms(r.agent_token_on_screen_p50_ms)}, p99 ${ms(r.agent_token_on_screen_p99_ms)} | server sent → on screen p50 ${ms(r.token_visible_p50_ms)}, p99 ${ms(r.token_visible_p99_ms)} |
`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const results = await agentBenchmarks();
  console.log(JSON.stringify(results, null, 2));
  console.log(agentSection(results));
}
