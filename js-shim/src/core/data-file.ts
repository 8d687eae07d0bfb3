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

/** Appends and flushes (the file created if missing); what is not a regular file is refused: a
 * FIFO nobody reads fails to open (ENXIO), one being read is refused after fstat. */
export async function appendRegular(fs: NodeFs, full: string, text: string, name: string): Promise<void> {
  const { O_WRONLY, O_APPEND, O_CREAT, O_NONBLOCK } = fs.constants;
  const handle = await fs.open(full, O_WRONLY | O_APPEND | O_CREAT | (O_NONBLOCK ?? 0), 0o666);
  await withRegular(handle, name, async (h) => {
    await h.writeFile(text, "utf8");
    await h.sync();
  });
}
