// The listing's lstat of a folder's entries, in slices: synchronous calls skip the thread pool's
// round trip (100,000 notes took about 2 s to list through fs.promises, 64 at a time; about 1 s
// so), and a turn of the event loop between slices keeps it answering.
import { lstatSync } from "node:fs";
import type { Stats } from "node:fs";

/** Entries of a folder whose lstat is asked in one go while listing, a turn of the event loop
 * between two slices (a few milliseconds each). */
const LSTAT_SLICE = 256;

/** What is at `full` itself (a link, not what it points to); undefined when it is gone. */
function ownStats(full: string): Stats | undefined {
  try {
    return lstatSync(full, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** What is at each of `names` in the folder `base` (ending with a separator) itself; undefined
 * for one gone meanwhile. */
export async function ownStatsOf(base: string, names: readonly { name: string }[]): Promise<(Stats | undefined)[]> {
  const owns: (Stats | undefined)[] = [];
  for (let i = 0; i < names.length; i += LSTAT_SLICE) {
    if (i > 0) await new Promise((resolve) => setImmediate(resolve));
    for (const d of names.slice(i, i + LSTAT_SLICE)) owns.push(ownStats(base + d.name));
  }
  return owns;
}
