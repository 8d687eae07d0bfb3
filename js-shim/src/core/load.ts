// Loads the Rust core: the wasm travels inside the bundle (gzip + base64, so main.js stays small),
// is inflated with the platform's DecompressionStream and instantiated asynchronously (Chromium
// refuses synchronous compilation of large modules on the main thread).
import init, * as core from "smarthole-core";
import wasmGzBase64 from "smarthole-wasm-gz";

export type Core = typeof core;

let loading: Promise<Core> | null = null;

function base64ToBytes(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

async function gunzip(bytes: Uint8Array<ArrayBuffer>): Promise<ArrayBuffer> {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Response(stream).arrayBuffer();
}

/** The core module, initialised once. */
export function loadCore(): Promise<Core> {
  loading ??= (async () => {
    const wasm = await gunzip(base64ToBytes(wasmGzBase64));
    await init({ module_or_path: wasm });
    return core;
  })();
  return loading;
}
