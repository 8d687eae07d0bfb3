// Node's base64 and gunzip for the core's wasm (core/load.ts: faster than the streams' in Node).
import { gunzipSync } from "node:zlib";
import type { Inflate } from "../core/load.ts";

export const nodeInflate: Inflate = (base64) => new Uint8Array(gunzipSync(Buffer.from(base64, "base64")));
