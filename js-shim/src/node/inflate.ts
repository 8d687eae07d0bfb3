// Node's base64 and gunzip for the core's wasm (core/load.ts: faster than the streams' in Node).
import * as zlib from "node:zlib";
import { zlibInflate } from "../core/load.ts";

export const nodeInflate = zlibInflate(zlib, Buffer);
