// The reader thread: a worker that reads notes for NodeVault.vaultReadManyBytes (read-many.ts,
// with the same checks: vault-scope.ts), so that the next notes are opened and read on another
// core while the core searches these (issue 37: a search's opens and reads were a third of its
// time, on the one thread that also searches; the core asks for several batches ahead when a
// host answers with promises). Its buffers come back to it at the next turn of the event loop,
// once the core has copied what they held (it copies an answer in the answer's own reaction), so
// it does not fault in fresh memory for every batch. Started at the first read, holding the
// process open only while it has a read to answer. Where it cannot start or fails, reads happen
// on the calling thread as before.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { VaultScope } from "./vault-scope.ts";

/** A read's answer: each note's bytes or its error's message. */
type Read = (Uint8Array | string)[];

/** The worker's script, built beside this bundle (js-shim/build.mjs). */
const SCRIPT = fileURLToPath(new URL("./read-worker.js", import.meta.url));

let worker: Worker | undefined;
let failed = false;
let nextId = 0;
const waiting = new Map<number, (read: Read | undefined) => void>();
/** Buffers answered since the last turn of the event loop, to go back to the thread. */
let answered: ArrayBuffer[] = [];

/** Every read waiting gets no answer (its caller reads itself); no read goes to the thread again. */
function fail(): void {
  failed = true;
  worker = undefined;
  for (const answer of waiting.values()) answer(undefined);
  waiting.clear();
}

/** Hands the buffers answered back to the thread, after the reactions to those answers ran. */
function giveBack(): void {
  const buffers = answered;
  answered = [];
  if (worker && buffers.length > 0) worker.postMessage({ recycle: buffers }, buffers);
}

function thread(): Worker | undefined {
  if (worker || failed) return worker;
  if (!existsSync(SCRIPT)) {
    failed = true;
    return undefined;
  }
  try {
    worker = new Worker(SCRIPT);
  } catch {
    failed = true;
    return undefined;
  }
  worker.unref();
  worker.on("message", ({ id, read, buffers }: { id: number; read: Read; buffers: ArrayBuffer[] }) => {
    if (answered.length === 0 && buffers.length > 0) setImmediate(giveBack);
    answered.push(...buffers);
    waiting.get(id)?.(read);
    waiting.delete(id);
    if (waiting.size === 0) worker?.unref();
  });
  worker.on("error", fail);
  worker.on("exit", fail);
  return worker;
}

/** The notes read on the reader thread (their bytes lent until the next turn of the event loop);
 * undefined when there is none (the caller reads them), and a promise of undefined when it
 * failed on the way. */
export function readElsewhere(relatives: string[], scope: VaultScope): Promise<Read | undefined> | undefined {
  const reader = thread();
  if (!reader) return undefined;
  const id = nextId++;
  return new Promise((resolve) => {
    waiting.set(id, resolve);
    reader.ref();
    reader.postMessage({ id, relatives, scope });
  });
}
