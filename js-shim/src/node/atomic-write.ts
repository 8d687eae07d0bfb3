// Writes a whole file so that a crash leaves the old content or the new one, never a mix: a
// temporary file beside it, flushed, renamed over it, and the folder flushed so the rename
// survives power loss (core/data-file.ts's replaceDurably, shared with the desktop app). Used
// for `.smarthole/` and for notes edited on a real folder.
import * as fs from "node:fs/promises";
import path from "node:path";
import { replaceDurably } from "../core/data-file.ts";

let counter = 0;

export function writeFileAtomic(full: string, text: string | Uint8Array): Promise<void> {
  const tmp = path.join(path.dirname(full), `.${path.basename(full)}.tmp-${process.pid}-${counter++}`);
  return replaceDurably(fs, full, tmp, text);
}
