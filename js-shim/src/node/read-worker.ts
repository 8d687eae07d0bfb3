// The reader thread's own script (read-thread.ts): each message a batch of notes to read with
// their checks, answered with their bytes (one buffer, moved to the asking thread, not copied),
// or buffers coming back, kept to read into again.
import { parentPort } from "node:worker_threads";
import { ROOM_LEAST, readManyNow } from "./read-many.ts";
import { checkReal, fullIn, type VaultScope } from "./vault-scope.ts";

/** Most buffers kept to read into again. */
const KEPT = 16;
const kept: ArrayBuffer[] = [];

/** A buffer of at least `size` bytes: one that came back, or a new one. */
function room(size: number): Buffer {
  const at = kept.findIndex((b) => b.byteLength >= size);
  const buffer = at >= 0 ? kept.splice(at, 1)[0] : new ArrayBuffer(Math.max(size, ROOM_LEAST));
  return Buffer.from(buffer, 0, size);
}

type Asked = { id: number; relatives: string[]; scope: VaultScope } | { recycle: ArrayBuffer[] };

parentPort?.on("message", (asked: Asked) => {
  if ("recycle" in asked) {
    kept.push(...asked.recycle.slice(0, Math.max(0, KEPT - kept.length)));
    return;
  }
  const { id, relatives, scope } = asked;
  const read = readManyNow(relatives, (relative) => fullIn(scope.root, relative), (real, relative) => checkReal(scope, real, relative, "read"), room);
  const buffers = [...new Set(read.flatMap((one) => (typeof one === "string" ? [] : [one.buffer as ArrayBuffer])))];
  parentPort?.postMessage({ id, read, buffers }, buffers);
});
