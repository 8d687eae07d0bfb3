// Loads the Rust core: the wasm travels inside the bundle (gzip + base64, so main.js stays small),
// is inflated — by Node's zlib where the platform gives it (Obsidian's desktop app, the Node
// host), else by DecompressionStream (Obsidian mobile, a page) — and compiled once,
// asynchronously (Chromium refuses synchronous compilation of large modules on the main thread).
// Each call of `newCore()` instantiates it afresh with its own copy of the JS glue, so a core that
// trapped can be replaced.
import { createCore } from "smarthole-core-factory";
import wasmGzBase64 from "smarthole-wasm-gz";

export type Core = ReturnType<typeof createCore>;

let compiled: Promise<WebAssembly.Module> | null = null;

function base64ToBytes(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Base64 of gzip to bytes, synchronously: Node's, where there is Node (Obsidian's desktop app,
 * the Node host), about three times faster there than atob and DecompressionStream (in Node the
 * stream is JavaScript over zlib: ~60 ms for the core). */
export type Inflate = (base64: string) => Uint8Array<ArrayBuffer>;

/** Node's zlib and Buffer as an [`Inflate`]: the Node host's, and the desktop app's. The output
 * is inflated into one buffer of the size the gzip trailer gives (ISIZE, the last four bytes),
 * and handed on as it is: with zlib's default 16 KB chunks it was a hundred chunks joined, then
 * copied once more (~2.5 ms of the ~8 at the plugin's start, issue 37). */
export function zlibInflate(zlib: Pick<typeof import("node:zlib"), "gunzipSync">, buffer: typeof import("node:buffer").Buffer): Inflate {
  return (base64) => {
    const gz = buffer.from(base64, "base64");
    // One chunk larger than the output: zlib then needs no second one (a wrong trailer only
    // costs the chunks and the join again; the bound keeps it from asking for gigabytes).
    const size = gz.length >= 4 ? gz.readUInt32LE(gz.length - 4) : 0;
    const out = zlib.gunzipSync(gz, { chunkSize: Math.min(Math.max(64 * 1024, size + 1), 64 * 1024 * 1024) });
    return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
  };
}

/** The compiled module, once. Without `inflate`, inflated and compiled as one stream, so
 * compiling starts with the first inflated bytes instead of after the last. */
function wasmModule(inflate?: Inflate | null): Promise<WebAssembly.Module> {
  compiled ??= (() => {
    if (inflate) return WebAssembly.compile(inflate(wasmGzBase64));
    const inflated = new Blob([base64ToBytes(wasmGzBase64)]).stream().pipeThrough(new DecompressionStream("gzip"));
    return WebAssembly.compileStreaming(new Response(inflated, { headers: { "content-type": "application/wasm" } }));
  })();
  return compiled;
}

const memories = new WeakMap<Core, WebAssembly.Memory>();

/** A fresh, initialised instance of the core. */
export async function newCore(inflate?: Inflate | null): Promise<Core> {
  const core = createCore();
  const exports = await core.default({ module_or_path: await wasmModule(inflate) });
  memories.set(core, exports.memory);
  return core;
}

/** Bytes of the core's linear memory (it only grows; the soak watches it). */
export function wasmMemoryBytes(core: Core): number {
  return memories.get(core)?.buffer.byteLength ?? 0;
}

let shared: Promise<Core> | null = null;

/** One shared instance (the headless host and the benchmarks, which never rebuild). */
export function loadCore(inflate?: Inflate | null): Promise<Core> {
  shared ??= newCore(inflate);
  return shared;
}
