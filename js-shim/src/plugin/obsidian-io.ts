// Files and HTTP for the core inside Obsidian. `.smarthole/` is a hidden folder, reached through
// the vault adapter. On desktop, reads, sizes and writes go through Node's fs: a real atomic write
// (temp file flushed, renamed, its folder flushed), and nothing opened that is not a regular file (core/data-file.ts: a
// FIFO would block); elsewhere (the mobile app) the adapter's steps, which a crash can split: see
// writeFileAtomic and recover. Model requests stream with fetch (the browser-access header comes from the
// core) and fall back to requestUrl when streaming is off or the request is blocked.
import { FileSystemAdapter, Platform, normalizePath, requestUrl, type App, type DataAdapter } from "obsidian";
import type { HttpHandle, HttpRequestSpec } from "smarthole-core";
import type { HostIO } from "../core/compose-host.ts";
import { fetchHandle } from "../core/fetch-handle.ts";
import { RealLocator } from "./real-location.ts";
import { appendRegular, readRegular, readRegularBytes, replaceDurably, sizeOrKind } from "../core/data-file.ts";

/** The plugin's data folder, at the vault's root. */
export const DATA_DIR = ".smarthole";

type NodeFs = typeof import("node:fs/promises");

/** Node's fs on the desktop app, where Obsidian runs with Node available. */
function desktopFs(adapter: DataAdapter): { fs: NodeFs; full: (p: string) => string } | null {
  if (Platform.isDesktop && adapter instanceof FileSystemAdapter) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports, no-undef -- Obsidian's plugins are CommonJS; fs on desktop only
    const fs = require("node:fs/promises") as NodeFs;
    return { fs, full: (p) => adapter.getFullPath(p) };
  }
  return null;
}

export class ObsidianIO implements HostIO {
  private readonly adapter: DataAdapter;
  private readonly node: ReturnType<typeof desktopFs>;
  /** Base URLs where fetch was refused (CORS): requestUrl from then on. */
  private readonly fetchBlocked = new Set<string>();
  private tmp = 0;

  /** Desktop: the real-location check (a file of `.smarthole/` linked out of it is refused). */
  private readonly locator: RealLocator | null;

  constructor(app: App) {
    this.adapter = app.vault.adapter;
    this.node = desktopFs(this.adapter);
    this.locator = RealLocator.forApp(app);
  }

  private path(relative: string): string {
    return normalizePath(`${DATA_DIR}/${relative}`);
  }

  private async ensureParent(path: string): Promise<void> {
    const parent = path.slice(0, path.lastIndexOf("/"));
    if (parent && !(await this.adapter.exists(parent))) await this.adapter.mkdir(parent);
  }

  async readFile(relative: string): Promise<string | null> {
    const path = this.path(relative);
    // Desktop: through Node's fs, opened only if it is a regular file (a FIFO would block).
    if (this.node) return readRegular(this.node.fs, this.node.full(path), relative);
    if ((await this.adapter.exists(path)) || (await this.recover(path))) return this.adapter.read(path);
    return null;
  }

  async readFileBytes(relative: string): Promise<Uint8Array | null> {
    const path = this.path(relative);
    if (this.node) return readRegularBytes(this.node.fs, this.node.full(path), relative);
    if ((await this.adapter.exists(path)) || (await this.recover(path))) return new Uint8Array(await this.adapter.readBinary(path));
    return null;
  }

  /** The size; on desktop, what the path is when it is not a regular file (never opened then). */
  async fileSize(relative: string): Promise<number | string | null> {
    const path = this.path(relative);
    if (this.node) return sizeOrKind(this.node.fs, this.node.full(path));
    const stat = (await this.adapter.stat(path)) ?? ((await this.recover(path)) ? await this.adapter.stat(path) : null);
    return stat?.size ?? null;
  }

  /**
   * Mobile path: puts back a file whose replacement a crash interrupted (see writeFileAtomic).
   * `X.bak` without `X` means the old content was moved aside, which happens only once `X.tmp`
   * is whole: the new content is `X.tmp` (or, were it gone, the old one `X.bak`). A `X.tmp`
   * alone, read as `X`, is taken as before (an older version's replacement, or a write that never
   * returned: whole JSON or a damaged file the core sets aside, never silently nothing). True
   * when `X` is there again.
   */
  private async recover(path: string): Promise<boolean> {
    if (this.node) return false;
    const aside = await this.adapter.exists(`${path}.bak`);
    if (await this.adapter.exists(`${path}.tmp`)) {
      await this.adapter.rename(`${path}.tmp`, path);
      if (aside) await this.adapter.remove(`${path}.bak`);
      return true;
    }
    if (aside) await this.adapter.rename(`${path}.bak`, path);
    return aside;
  }

  writeFileAtomic(relative: string, text: string): Promise<void> {
    return this.replace(relative, text);
  }

  writeFileAtomicBytes(relative: string, bytes: Uint8Array): Promise<void> {
    return this.replace(relative, bytes);
  }

  /** Replaces a file whole, with text or bytes. */
  private async replace(relative: string, content: string | Uint8Array): Promise<void> {
    const path = this.path(relative);
    await this.ensureParent(path);
    if (this.node) {
      const { fs, full } = this.node;
      const target = full(path);
      await this.locator?.checkData(target, DATA_DIR);
      await replaceDurably(fs, target, `${target}.${this.tmp++}.tmp`, content);
      return;
    }
    // No fsync here, and each step is its own call: write the new content aside, move the old
    // aside (only now, with the new one whole), put the new one in place, drop the old. A crash
    // between any two leaves a state recover() reads back as the old or the new content, never
    // neither (removing the old first, then renaming, lost the file in between).
    const temp = `${path}.tmp`;
    const old = `${path}.bak`;
    if (typeof content === "string") await this.adapter.write(temp, content);
    else await this.adapter.writeBinary(temp, content.slice().buffer);
    const replacing = await this.adapter.exists(path);
    if (replacing) {
      if (await this.adapter.exists(old)) await this.adapter.remove(old);
      await this.adapter.rename(path, old);
    }
    await this.adapter.rename(temp, path);
    if (replacing) await this.adapter.remove(old);
  }

  async appendFile(relative: string, text: string): Promise<void> {
    const path = this.path(relative);
    await this.ensureParent(path);
    if (this.node) {
      await this.locator?.checkData(this.node.full(path), DATA_DIR);
      await appendRegular(this.node.fs, this.node.full(path), text, relative);
      return;
    }
    if (await this.adapter.exists(path)) await this.adapter.append(path, text);
    else await this.adapter.write(path, text);
  }

  async listDir(relative: string): Promise<string[]> {
    const path = this.path(relative);
    if (!(await this.adapter.exists(path))) return [];
    let files = (await this.adapter.list(path)).files;
    // Mobile path only (desktop writes never leave a .bak): a replacement a crash interrupted is
    // finished before the folder is read (the core finds an inbox entry by listing), and an old
    // content set aside next to its new one is dropped (kept, it would bring the file back once
    // the core removes it).
    const aside = this.node ? [] : files.filter((f) => f.endsWith(".bak"));
    for (const f of aside) {
      if (files.includes(f.slice(0, -4))) await this.adapter.remove(f);
      else await this.recover(f.slice(0, -4));
    }
    if (aside.length > 0) files = (await this.adapter.list(path)).files.filter((f) => !f.endsWith(".bak"));
    return files.map((f) => f.slice(f.lastIndexOf("/") + 1));
  }

  async removeFile(relative: string): Promise<void> {
    const path = this.path(relative);
    if (await this.adapter.exists(path)) await this.adapter.remove(path);
  }

  async renameFile(from: string, to: string): Promise<void> {
    const target = this.path(to);
    await this.ensureParent(target);
    if (await this.adapter.exists(target)) await this.adapter.remove(target);
    await this.adapter.rename(this.path(from), target);
  }

  httpStart(request: HttpRequestSpec): HttpHandle {
    const origin = new URL(request.url).origin;
    if (!request.stream || this.fetchBlocked.has(origin)) return bufferedRequest(request);
    // fetch, not requestUrl: only fetch streams the answer token by token and can be aborted by
    // Stop. (activeWindow: the window the app runs in, popouts included.) Refused before any
    // answer (CORS, or fetch unavailable): requestUrl ignores CORS.
    return fetchHandle((url, init) => activeWindow.fetch(url, init), request, () => {
      this.fetchBlocked.add(origin);
      return bufferedRequest(request);
    });
  }
}

/** A whole-body request through Obsidian's requestUrl (no streaming, no abort: a stopped request
 * is simply not read). */
function bufferedRequest(request: HttpRequestSpec): HttpHandle {
  let aborted = false;
  const done = requestUrl({
    url: request.url,
    method: request.method,
    headers: Object.fromEntries(request.headers),
    body: request.body && new TextDecoder().decode(request.body),
    throw: false,
  }).then((res) => ({ res, body: new Uint8Array(res.arrayBuffer) }));
  let sent = false;
  return {
    response: done.then(({ res }) => ({ status: res.status, headers: Object.entries(res.headers) })),
    async read() {
      const { body } = await done;
      if (aborted) throw new DOMException("aborted", "AbortError");
      if (sent) return null;
      sent = true;
      return body;
    },
    abort() {
      aborted = true;
    },
  };
}
