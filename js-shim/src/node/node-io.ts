// `.smarthole/` on a real folder and HTTP with fetch, as the core's host does them on Node (the
// headless command, benchmarks): written to a temporary file, fsynced and renamed; nothing
// opened that is not a regular file (core/data-file.ts); a path that would leave the folder
// refused. It makes no decisions: the core tells it exactly what to do.
import * as fs from "node:fs/promises";
import { mkdir, readdir, rename, unlink } from "node:fs/promises";
import path from "node:path";
import type { HttpHandle, HttpRequestSpec } from "smarthole-core";
import type { HostIO } from "../core/compose-host.ts";
import { writeFileAtomic } from "./atomic-write.ts";
import { fetchHandle } from "../core/fetch-handle.ts";
import { appendRegular, readRegular, readRegularBytes, sizeOrKind } from "../core/data-file.ts";

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException)?.code === "ENOENT";
}

export class NodeIO implements HostIO {
  private readonly madeDirs = new Set<string>();

  /** `dataDir` is the plugin's data folder (`<vault>/.smarthole`); `onHttpStart` sees each
   * model request as it goes out (benchmarks measure from there). */
  constructor(
    readonly dataDir: string,
    private readonly onHttpStart?: (request: HttpRequestSpec) => void,
  ) {}

  private resolve(relative: string): string {
    const full = path.resolve(this.dataDir, relative);
    if (!full.startsWith(path.resolve(this.dataDir) + path.sep)) {
      throw new Error(`path escapes the data folder: ${relative}`);
    }
    return full;
  }

  private async ensureDir(dir: string): Promise<void> {
    if (this.madeDirs.has(dir)) return;
    await mkdir(dir, { recursive: true });
    this.madeDirs.add(dir);
  }

  async readFile(relative: string): Promise<string | null> {
    return readRegular(fs, this.resolve(relative), relative);
  }

  async writeFileAtomic(relative: string, text: string): Promise<void> {
    const full = this.resolve(relative);
    await this.ensureDir(path.dirname(full));
    await writeFileAtomic(full, text);
  }

  async readFileBytes(relative: string): Promise<Uint8Array | null> {
    return readRegularBytes(fs, this.resolve(relative), relative);
  }

  async writeFileAtomicBytes(relative: string, bytes: Uint8Array): Promise<void> {
    const full = this.resolve(relative);
    await this.ensureDir(path.dirname(full));
    await writeFileAtomic(full, bytes);
  }

  async appendFile(relative: string, text: string): Promise<void> {
    const full = this.resolve(relative);
    await this.ensureDir(path.dirname(full));
    await appendRegular(fs, full, text, relative);
  }

  async listDir(relative: string): Promise<string[]> {
    try {
      const entries = await readdir(this.resolve(relative), { withFileTypes: true });
      return entries.filter((e) => e.isFile()).map((e) => e.name);
    } catch (error) {
      if (isMissing(error)) return [];
      throw error;
    }
  }

  /** One unlink, a missing file already removed: `rm` with `force` looks the path up twice
   * first, three trips to the thread pool, each waiting its turn of a busy event loop (a
   * stopped message's two removals took 20-35 ms beside an index build, issue 37). */
  async removeFile(relative: string): Promise<void> {
    try {
      await unlink(this.resolve(relative));
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
  }

  async renameFile(from: string, to: string): Promise<void> {
    const target = this.resolve(to);
    await this.ensureDir(path.dirname(target));
    await rename(this.resolve(from), target);
  }

  /** The size, or what the path is when it is not a regular file (never opened then). */
  fileSize(relative: string): Promise<number | string | null> {
    return sizeOrKind(fs, this.resolve(relative));
  }

  httpStart(request: HttpRequestSpec): HttpHandle {
    this.onHttpStart?.(request);
    return fetchHandle(fetch, request);
  }
}
