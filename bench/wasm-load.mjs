// What the core costs at plugin load, phase by phase, each in a fresh Node process (cold, as at
// Obsidian's start), median of `runs`: `dist/main.js` required (parsed and run, the base64 string
// included), the base64 decoded, the gzip inflated (the platform's DecompressionStream, as
// js-shim/src/core/load.ts does), `WebAssembly.compile` of the inflated bytes, both as one stream
// (`compileStreaming`, what the plugin does), and the instance made. For the choice of a stronger
// compressor: Node's own brotli and gzip inflate of the same wasm (Electron has them on the
// desktop; a phone has no \`zlib\`). Node's DecompressionStream runs on its JavaScript web streams,
// slower than Chromium's. The whole load → ready is bench/plugin-load.mjs.
//
//   node bench/wasm-load.mjs [runs]     (after `make build`)
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const WASM = path.join(ROOT, "pkg/smarthole_agent_bg.wasm");

/** One cold process: the phases' times in ms, as JSON on stdout. */
const CHILD = `
const { readFileSync } = require("node:fs");
const zlib = require("node:zlib");
const [wasmPath, mainPath, phase] = process.argv.slice(1);
const ms = (t) => Number((performance.now() - t).toFixed(2));
const wasm = readFileSync(wasmPath);
const out = {};
(async () => {
  if (phase === "require") {
    // The plugin's file run as Obsidian runs it (CommonJS; \`obsidian\` is the tests' stub).
    const t = performance.now();
    require(mainPath);
    out.require_main_js = ms(t);
  } else if (phase === "gzip") {
    const base64 = zlib.gzipSync(wasm, { level: 9 }).toString("base64");
    let t = performance.now();
    const binary = atob(base64);
    const gz = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) gz[i] = binary.charCodeAt(i);
    out.base64_decode = ms(t);
    t = performance.now();
    const inflated = new Uint8Array(await new Response(new Blob([gz]).stream().pipeThrough(new DecompressionStream("gzip"))).arrayBuffer());
    out.gzip_inflate = ms(t);
    t = performance.now();
    const module = await WebAssembly.compile(inflated);
    out.compile = ms(t);
    t = performance.now();
    await WebAssembly.instantiate(module, new Proxy({}, { get: () => new Proxy({}, { get: () => () => {} }) }));
    out.instantiate = ms(t);
  } else if (phase === "stream") {
    const gz = zlib.gzipSync(wasm, { level: 9 });
    const t = performance.now();
    const inflated = new Blob([gz]).stream().pipeThrough(new DecompressionStream("gzip"));
    await WebAssembly.compileStreaming(new Response(inflated, { headers: { "content-type": "application/wasm" } }));
    out.gzip_inflate_and_compile_streaming = ms(t);
  } else if (phase === "brotli") {
    const br = zlib.brotliCompressSync(wasm, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_LGWIN]: 24 } });
    const gz = zlib.gzipSync(wasm, { level: 9 });
    let t = performance.now();
    zlib.brotliDecompressSync(br);
    out.brotli_inflate_node = ms(t);
    t = performance.now();
    zlib.gunzipSync(gz);
    out.gzip_inflate_node = ms(t);
  }
  process.stdout.write(JSON.stringify(out));
})();
`;

/** Median of each phase over `runs` cold processes. */
export function wasmLoadPhases(runs = 7) {
  // main.js beside the modules Obsidian supplies (as bench/plugin-load.mjs lays them).
  const dir = mkdtempSync(path.join(tmpdir(), "smarthole-wasm-load-"));
  mkdirSync(path.join(dir, "node_modules"));
  cpSync(path.join(ROOT, "tests/node/obsidian-stub"), path.join(dir, "node_modules/obsidian"), { recursive: true });
  symlinkSync(path.join(ROOT, "node_modules/@codemirror"), path.join(dir, "node_modules/@codemirror"), "dir");
  const MAIN = path.join(dir, "main.js");
  cpSync(path.join(ROOT, "dist/main.js"), MAIN);
  const samples = {};
  for (let i = 0; i < runs; i++) {
    for (const phase of ["require", "gzip", "stream", "brotli"]) {
      const run = spawnSync(process.execPath, ["-e", CHILD, WASM, MAIN, phase], { cwd: dir, encoding: "utf8" });
      if (run.status !== 0) throw new Error(`${phase} failed: ${run.stderr}`);
      for (const [name, value] of Object.entries(JSON.parse(run.stdout))) (samples[name] ??= []).push(value);
    }
  }
  rmSync(dir, { recursive: true, force: true });
  const median = (list) => list.sort((a, b) => a - b)[Math.floor(list.length / 2)];
  return Object.fromEntries(Object.entries(samples).map(([name, list]) => [name, median(list)]));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const runs = Number(process.argv[2] ?? 7);
  console.log(`wasm ${readFileSync(WASM).length} B; median of ${runs} cold processes (ms):`);
  console.log(wasmLoadPhases(runs));
}
