// The reader thread's own script (read-thread.ts): each message a batch of notes to read with
// their checks, answered with their bytes (one buffer, moved to the asking thread, not copied).
import { parentPort } from "node:worker_threads";
import { readManyNow } from "./read-many.ts";
import { checkReal, fullIn, type VaultScope } from "./vault-scope.ts";

parentPort?.on("message", ({ id, relatives, scope }: { id: number; relatives: string[]; scope: VaultScope }) => {
  const read = readManyNow(relatives, (relative) => fullIn(scope.root, relative), (real, relative) => checkReal(scope, real, relative, "read"));
  const buffers = [...new Set(read.flatMap((one) => (typeof one === "string" ? [] : [one.buffer as ArrayBuffer])))];
  parentPort?.postMessage({ id, read }, buffers);
});
