// Writes a whole file so that a crash leaves the old content or the new one, never a mix: a
// temporary file beside it, flushed, renamed over it, and the folder flushed so the rename
// survives power loss. Used for `.smarthole/` and for notes edited on a real folder.
import { open, rename } from "node:fs/promises";
import path from "node:path";

let counter = 0;

export async function writeFileAtomic(full: string, text: string | Uint8Array): Promise<void> {
  const dir = path.dirname(full);
  const tmp = path.join(dir, `.${path.basename(full)}.tmp-${process.pid}-${counter++}`);
  const handle = await open(tmp, "w");
  try {
    await (typeof text === "string" ? handle.writeFile(text, "utf8") : handle.writeFile(text));
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(tmp, full);
  const folder = await open(dir, "r");
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}
