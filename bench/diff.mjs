// Review-first edits (issue 15): the diff of a 1 MB note with scattered changes, through the wasm
// core on real files (nodeHost). A write_file over the note (auto-approved) is timed from the
// tool's start to its result, against the same call with unchanged content (read and compare,
// no diff): the difference is the diff, the apply inside the atomic write, and the undo record.
// The diff alone (its hunks and changed words, and the base's SHA-256) is the core's debug log line
// "diff of … in N ms" (Date.now(), so whole milliseconds).
// Reported, never asserted. `node bench/diff.mjs` after `make build`.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { startScriptedServer } from "../tests/peers/anthropic-server.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const round = (x) => Number(x.toFixed(1));

/** About 1 MB of Markdown, and the same with one line in every `every` changed. */
function texts(every = 400) {
  const lines = [];
  for (let i = 0; lines.join("\n").length < 1_000_000 && i < 1e6; i++) lines.push(`- item ${i}: some words about the garden, the bikes and the plan`);
  const old = lines.join("\n") + "\n";
  const changed = lines.map((l, i) => (i % every === 17 ? l.replace("garden", "orchard") : l)).join("\n") + "\n";
  return { old, changed, changes: lines.filter((_, i) => i % every === 17).length };
}

async function timedWrite(core, nodeHost, dir, content) {
  const server = await startScriptedServer({ fallback: { kind: "text", text: "ok" } });
  const marks = {};
  const host = nodeHost(path.join(dir, ".smarthole"), {
    onLog: (_level, message) => {
      const m = /^diff of .*: \d+ hunks in (\d+) ms$/.exec(message);
      if (m) marks.diff = Number(m[1]);
    },
    onEvent: (event) => {
      if (event.type === "tool_started") marks.started = performance.now();
      if (event.type === "tool_finished") [marks.finished, marks.output] = [performance.now(), event.output];
    },
  });
  const processor = new core.MessageProcessor(host, { baseUrl: server.url, model: "bench", apiKey: "k", autoApproveTools: ["write_file"] });
  await processor.initialize();
  server.enqueue({ kind: "tool_use", tools: [{ id: "t", name: "write_file", input: { path: "Big.md", content } }] }, { kind: "text", text: "done" });
  const result = await processor.process({ id: `b-${Date.now()}-${Math.random()}`, text: "go", source: "direct" });
  processor.free();
  await server.close();
  if (!result.success || marks.finished === undefined) throw new Error(`write_file did not run: ${result.error}`);
  return { ms: marks.finished - marks.started, output: marks.output, diff: marks.diff };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function diffBenchmark(runs = 5) {
  const { loadCore, nodeHost } = await import(path.join(ROOT, "js-shim/dist/node.js"));
  const core = await loadCore();
  const { old, changed, changes } = texts();
  const same = [];
  const diffed = [];
  const diffOnly = [];
  for (let i = 0; i < runs; i++) {
    const dir = mkdtempSync(path.join(tmpdir(), "smarthole-bench-diff-"));
    writeFileSync(path.join(dir, "Big.md"), old);
    same.push((await timedWrite(core, nodeHost, dir, old)).ms);
    const { ms, output, diff } = await timedWrite(core, nodeHost, dir, changed);
    if (!/^Replaced the content/.test(output)) throw new Error(output);
    diffed.push(ms);
    diffOnly.push(diff);
  }
  return { bytes: old.length, changes, unchanged_ms: round(median(same)), diffed_ms: round(median(diffed)), write_extra_ms: round(median(diffed) - median(same)), diff_ms: median(diffOnly) };
}

/** The results as `make bench` keeps them (target/bench/results.json). */
export async function diffBenchmarks() {
  const r = await diffBenchmark();
  return { diff_1mb_bytes: r.bytes, diff_1mb_changes: r.changes, diff_1mb_ms: r.diff_ms, diff_1mb_write_ms: r.diffed_ms, diff_1mb_unchanged_write_ms: r.unchanged_ms };
}

/** Its section of docs/BENCHMARKS.md. */
export function diffSection(r) {
  if (r?.diff_1mb_ms === undefined) return "";
  return `
## Review-first diff

\`node bench/diff.mjs\` (also run by \`make bench\`): a write_file over a ${(r.diff_1mb_bytes / 1e6).toFixed(2)} MB note with
${r.diff_1mb_changes} scattered one-word changes, auto-approved, through the wasm core on real files (nodeHost), median of 5.
The diff (line hunks, changed words, the base's SHA-256; the target is 50 ms): ${r.diff_1mb_ms} ms. The whole call
(read, diff, apply inside the atomic write, undo record): ${r.diff_1mb_write_ms} ms, against ${r.diff_1mb_unchanged_write_ms} ms
for the same call with unchanged content.
`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = await diffBenchmark();
  console.log(`diff of a ${(r.bytes / 1e6).toFixed(2)} MB note with ${r.changes} scattered changes (wasm, median of 5): the diff ${r.diff_ms} ms; the whole write_file ${r.diffed_ms} ms against ${r.unchanged_ms} ms with unchanged content (+${r.write_extra_ms} ms: diff, apply, undo record)`);
}
