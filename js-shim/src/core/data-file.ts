// Files of `.smarthole/` through Node's fs, opened only when they are regular files (issue 32): a
// FIFO, socket, device or folder where the core expects a file would block a read or an append
// for good. Sized, such a path answers its kind (the core sets it aside); read or appended to, it
// is opened without blocking (O_NONBLOCK), checked with fstat, and refused. Used by the Node host
// and by the Obsidian host on desktop; `fs` is `node:fs/promises`, passed in (the plugin only
// requires it on desktop).
type NodeFs = typeof import("node:fs/promises");
type FileHandle = import("node:fs/promises").FileHandle;

/** What a path is when it is not a regular file (the core's words), or null for a regular file. */
function kindOf(info: import("node:fs").Stats): string | null {
  if (info.isFile()) return null;
  if (info.isFIFO()) return "fifo";
  if (info.isSocket()) return "socket";
  if (info.isDirectory()) return "folder";
  if (info.isBlockDevice() || info.isCharacterDevice()) return "device";
  return "special";
}

function missing(error: unknown): boolean {
  return (error as { code?: string } | null)?.code === "ENOENT";
}

/** The file's size, its kind when it is not a regular file, null when there is nothing there. */
export async function sizeOrKind(fs: NodeFs, full: string): Promise<number | string | null> {
  try {
    const info = await fs.stat(full);
    return kindOf(info) ?? info.size;
  } catch (error) {
    if (missing(error)) return null;
    throw error;
  }
}

/** Runs `use` on the opened file once fstat says it is a regular one; `name` is for the error. */
async function withRegular<T>(handle: FileHandle, name: string, use: (h: FileHandle) => Promise<T>): Promise<T> {
  try {
    const kind = kindOf(await handle.stat());
    if (kind) throw new Error(`${name} is not a regular file (${kind}); it was not opened`);
    return await use(handle);
  } finally {
    await handle.close();
  }
}

/** The file opened for reading, null when it does not exist. */
async function openToRead(fs: NodeFs, full: string): Promise<FileHandle | null> {
  try {
    return await fs.open(full, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  } catch (error) {
    if (missing(error)) return null;
    throw error;
  }
}

/** The file's text, null when it does not exist; what is not a regular file is refused. */
export async function readRegular(fs: NodeFs, full: string, name: string): Promise<string | null> {
  const handle = await openToRead(fs, full);
  return handle && withRegular(handle, name, (h) => h.readFile("utf8"));
}

/** The file's bytes, null when it does not exist; what is not a regular file is refused. */
export async function readRegularBytes(fs: NodeFs, full: string, name: string): Promise<Uint8Array | null> {
  const handle = await openToRead(fs, full);
  return handle && withRegular(handle, name, (h) => h.readFile());
}

/** Appends and flushes (the file created if missing; O_DSYNC where there is one: the write
 * returns once it is on disk, a round trip fewer than a flush after it); what is not a regular
 * file is refused: a FIFO nobody reads fails to open (ENXIO), one being read is refused after
 * fstat. */
export async function appendRegular(fs: NodeFs, full: string, text: string, name: string): Promise<void> {
  const { O_WRONLY, O_APPEND, O_CREAT, O_NONBLOCK, O_DSYNC } = fs.constants;
  const handle = await fs.open(full, O_WRONLY | O_APPEND | O_CREAT | (O_NONBLOCK ?? 0) | (O_DSYNC ?? 0), 0o666);
  await withRegular(handle, name, async (h) => {
    await h.writeFile(text, "utf8");
    if (O_DSYNC === undefined) await h.sync();
  });
}

/** Whether folders can be opened to be flushed (not on Windows, where opening one fails). */
let foldersFlush = true;

/** The folder part of a full path (either separator: the desktop app runs on Windows too). */
function folderOf(full: string): string {
  return full.slice(0, Math.max(full.lastIndexOf("/"), full.lastIndexOf("\\"))) || "/";
}

/** The folder opened to be flushed after a rename, null where folders cannot be opened. */
async function openFolder(fs: NodeFs, folder: string): Promise<FileHandle | null> {
  if (!foldersFlush) return null;
  try {
    return await fs.open(folder, "r");
  } catch (error) {
    const code = (error as { code?: string } | null)?.code;
    if (code === "EISDIR" || code === "EPERM" || code === "EACCES") foldersFlush = false;
    else throw error;
    return null;
  }
}

/** Replaces a file whole so that a crash leaves the old content or the new one, never a mix or
 * neither: written to `temp` beside it and flushed (O_DSYNC: the write returns once it is on
 * disk), renamed over it, and the folder flushed so the rename survives power loss. Each step is
 * a round trip through Node's thread pool, so the folder is opened while the file is, the file
 * closed while it is renamed, and the folder closed after: 4 round trips in a row, not 8 (issue
 * 37: the inbox entry's write was most of a message's overhead). */
export async function replaceDurably(fs: NodeFs, full: string, temp: string, content: string | Uint8Array): Promise<void> {
  const { O_WRONLY, O_CREAT, O_TRUNC, O_DSYNC } = fs.constants;
  // Both opens settle before either is used: a failed one never leaves the other open.
  const [file, folder] = await Promise.allSettled([fs.open(temp, O_WRONLY | O_CREAT | O_TRUNC | (O_DSYNC ?? 0), 0o666), openFolder(fs, folderOf(full))]);
  const closeFolder = () => void (folder.status === "fulfilled" && folder.value?.close().catch(() => undefined));
  try {
    if (file.status === "rejected") throw file.reason;
    if (folder.status === "rejected") {
      await file.value.close();
      throw folder.reason;
    }
    const handle = file.value;
    try {
      await (typeof content === "string" ? handle.writeFile(content, "utf8") : handle.writeFile(content));
      if (O_DSYNC === undefined) await handle.sync();
    } catch (error) {
      await handle.close();
      throw error;
    }
    await Promise.all([handle.close(), fs.rename(temp, full)]);
    await folder.value?.sync();
  } finally {
    closeFolder();
  }
}
