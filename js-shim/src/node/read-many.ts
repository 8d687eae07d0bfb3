// Many notes' bytes read synchronously in one go, for NodeVault.vaultReadManyBytes: a search of
// 2,000 notes made one asynchronous read each (realpath, open, fstat, read, close through the
// thread pool), which cost it several times the reading (issue 37). The core keeps a call to a
// few dozen notes and about a megabyte, about 1-2 ms here. Each note has vaultReadBytes's
// checks: its real location (resolved, then checked by the caller: inside the vault, not in a
// protected folder), opened without blocking and not through a link, read only if it is a
// regular file. A note's folder is resolved once a call; a note that is a link itself, or any
// failure on that way, is read again the long way, which gives vaultReadBytes's own errors.
import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync, realpathSync } from "node:fs";
import path from "node:path";

/** How a note is opened: read only, never blocking (a FIFO), never through a link. */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0);

/** Refuses a real location the agent may not reach (throws). */
type Check = (real: string, relative: string) => void;

function code(error: unknown): string | undefined {
  return (error as { code?: string } | null)?.code;
}

/** Each note's bytes, or its error's message, in the order asked. `full`: a vault path's
 * location (throws if it climbs out). */
export function readManyNow(relatives: string[], full: (relative: string) => string, check: Check): (Uint8Array | string)[] {
  const folders = new Map<string, string>();
  return relatives.map((relative) => {
    try {
      const at = full(relative);
      return readNear(at, relative, check, folders) ?? readResolved(at, relative, check);
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  });
}

/** A note's bytes by its folder's real path (`folders`: those resolved this call): when the note
 * is not a link itself, that is its real path. `undefined` whenever that does not hold or
 * anything fails. */
function readNear(at: string, relative: string, check: Check, folders: Map<string, string>): Uint8Array | undefined {
  let fd: number;
  try {
    const folder = path.dirname(at);
    const realFolder = folders.get(folder) ?? realpathSync.native(folder);
    folders.set(folder, realFolder);
    const real = path.join(realFolder, path.basename(at));
    check(real, relative);
    // A note that is a link itself fails here (ELOOP).
    fd = openSync(real, OPEN_FLAGS);
  } catch {
    return undefined;
  }
  return readOpened(fd, relative);
}

/** A note's bytes by its own real path, with vaultReadBytes's errors. */
function readResolved(at: string, relative: string, check: Check): Uint8Array {
  let real: string;
  try {
    real = realpathSync.native(at);
  } catch (error) {
    if (code(error) === "ELOOP") throw new Error(`${relative} is a link that loops; refused`);
    if (code(error) === "ENOENT" && lstatSync(at, { throwIfNoEntry: false })) throw new Error(`${relative} is a dangling link; refused`);
    throw error;
  }
  check(real, relative);
  return readOpened(openSync(real, OPEN_FLAGS), relative);
}

/** An opened file read whole if it is a regular file, else refused; closed either way. */
function readOpened(fd: number, relative: string): Uint8Array {
  try {
    if (!fstatSync(fd).isFile()) throw new Error(`${relative} is not a regular file (a FIFO, socket or device); not opened`);
    const bytes = readFileSync(fd);
    return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  } finally {
    closeSync(fd);
  }
}
