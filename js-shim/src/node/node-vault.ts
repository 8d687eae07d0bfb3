// The vault on a real folder, for the headless command and the panel server: what Obsidian's
// Vault and FileManager do for the plugin, done with Node's fs. Paths arrive checked by the core
// (normalised, inside the vault, not protected, links on the way resolved from the listing).
//
// Real locations: the listing reports links and special files as what they are (lstat, never
// walking through a link: see VaultEntry.kind and realPath), so the core decides. As defence in
// depth every operation resolves where its path really is (realpath; for a new path, its nearest
// existing ancestor) and refuses anything whose real location leaves the vault or enters one of
// the folders the core protects whatever the settings (its list: `alwaysProtectedFolders`); files inside folders linked from outside (listed only when the core asks to
// follow them) may be read, never written. Nothing that is not a regular file is ever opened
// (O_NONBLOCK, then fstat), so a FIFO named `x.md` cannot hang a read; a note that is not valid
// UTF-8 is never rewritten (vaultProcess refuses it). Errors name paths relative to the vault,
// never its absolute location.
//
// Differences from Obsidian: moving a note does not rewrite links to it, and there is no editor,
// so no active note.
import { constants, watch } from "node:fs";
import { appendFile, lstat, mkdir, open, readdir, realpath, rename, stat, writeFile } from "node:fs/promises";
import type { Stats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import path from "node:path";
import type { VaultEntry, VaultEntryKind } from "smarthole-core";
import type { VaultIO } from "../core/compose-host.ts";
import { loadCore } from "../core/load.ts";
import { nodeInflate } from "./inflate.ts";
import { writeFileAtomic } from "./atomic-write.ts";
import { freshRoom, readManyNow, reusedRoom } from "./read-many.ts";
import { readElsewhere } from "./read-thread.ts";
import { type Access, type VaultScope, checkReal, fullIn, insideOf } from "./vault-scope.ts";
import { ownStatsOf } from "./own-stats.ts";

/** Obsidian's own trash folder ("Move to Obsidian trash"). */
const TRASH = ".trash";
/** The vault's configuration folder on Node: Obsidian's default name. */
export const CONFIG_FOLDER = ".obsidian";
/** Deepest folder nesting listed (a guard, not a limit anyone meets). */
const MAX_DEPTH = 64;
/** UTF-8 that refuses what is not (never U+FFFD) and keeps a byte order mark as text. */
const EXACT_UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function code(error: unknown): string | undefined {
  return (error as { code?: string } | null)?.code;
}

function specialKind(info: Stats): VaultEntryKind | undefined {
  if (info.isFIFO()) return "fifo";
  if (info.isSocket()) return "socket";
  if (info.isBlockDevice() || info.isCharacterDevice()) return "device";
  return undefined;
}

export class NodeVault implements VaultIO {
  private readonly root: string;
  private realRootCache: string | undefined;
  /** Real paths of the folders linked from outside that the last listing followed. */
  private followed = new Set<string>();
  /** The folders no operation may reach: the core's list, asked once; and once it came. */
  private hiddenList: Promise<readonly string[]> | undefined;
  private hiddenKnown: readonly string[] | undefined;
  /** The buffer the notes read together here are read into, reused from call to call. */
  private readonly lend = reusedRoom();

  constructor(root: string) {
    this.root = path.resolve(root);
  }

  private hidden(): Promise<readonly string[]> {
    this.hiddenList ??= loadCore(nodeInflate).then((core) => (this.hiddenKnown = core.alwaysProtectedFolders(CONFIG_FOLDER)));
    return this.hiddenList;
  }

  /** The path as text, refused if it climbs out (the core already refused that). */
  private full(relative: string): string {
    return fullIn(this.root, relative);
  }

  private async realRoot(): Promise<string> {
    this.realRootCache ??= await realpath(this.root);
    return this.realRootCache;
  }

  /** The vault-relative form of a real path inside the vault, or undefined when it is outside. */
  private async insideVault(real: string): Promise<string | undefined> {
    return insideOf(await this.realRoot(), real);
  }

  /** What a check needs, as plain data (the reader thread checks with it too). */
  private async scope(): Promise<VaultScope> {
    return this.scopeWith(await this.realRoot(), await this.hidden());
  }

  private scopeWith(realRoot: string, hidden: readonly string[]): VaultScope {
    return { root: this.root, realRoot, hidden, followed: [...this.followed] };
  }

  /** Refuses a real location the agent may not reach. */
  private async check(real: string, relative: string, access: Access): Promise<void> {
    checkReal(await this.scope(), real, relative, access);
  }

  /** Where an existing path really is, checked. */
  private async existing(relative: string, access: Access): Promise<string> {
    let real: string;
    try {
      real = await realpath(this.full(relative));
    } catch (error) {
      if (code(error) === "ELOOP") throw new Error(`${relative} is a link that loops; refused`);
      if (code(error) === "ENOENT" && (await lstat(this.full(relative)).catch(() => undefined))) {
        throw new Error(`${relative} is a dangling link; refused`);
      }
      throw error;
    }
    await this.check(real, relative, access);
    return real;
  }

  /** Where a path to create really goes: its nearest existing ancestor, resolved and checked. */
  private async fresh(relative: string): Promise<string> {
    const missing: string[] = [];
    let probe = this.full(relative);
    for (;;) {
      try {
        const real = await realpath(probe);
        const target = path.join(real, ...missing);
        await this.check(target, relative, "write");
        return target;
      } catch (error) {
        if (code(error) !== "ENOENT" || probe === this.root) {
          if (code(error) === "ELOOP") throw new Error(`${relative} goes through a link that loops; refused`);
          throw error;
        }
        // Present but unresolvable: a dangling link on the way.
        if (await lstat(probe).catch(() => undefined)) throw new Error(`${relative} goes through a dangling link; refused`);
        missing.unshift(path.basename(probe));
        probe = path.dirname(probe);
      }
    }
  }

  /** An entry itself (to move or trash): its folder resolved, its name as it is. */
  private async entry(relative: string): Promise<string> {
    const full = this.full(relative);
    const real = path.join(await realpath(path.dirname(full)), path.basename(full));
    await this.check(real, relative, "write");
    return real;
  }

  /** Reads a regular file; anything else is refused without blocking on it. */
  private async readRegular(real: string, relative: string): Promise<string> {
    return this.withRegular(real, relative, (handle) => handle.readFile("utf8"));
  }

  /** A regular file's exact text for a rewrite: one that is not valid UTF-8 is refused (decoded,
   * each bad byte would become U+FFFD, and the write would replace bytes no edit touched). */
  private async readExact(real: string, relative: string): Promise<string> {
    const bytes = await this.withRegular(real, relative, (handle) => handle.readFile());
    try {
      return EXACT_UTF8.decode(bytes);
    } catch {
      throw new Error(`${relative} is not valid UTF-8 text; it was not changed`);
    }
  }

  /** Opens a regular file only (never a FIFO, socket or device, never through a link) to read it. */
  private async withRegular<T>(real: string, relative: string, read: (handle: FileHandle) => Promise<T>): Promise<T> {
    const handle = await open(real, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0));
    try {
      const info = await handle.stat();
      if (!info.isFile()) throw new Error(`${relative} is not a regular file (a FIFO, socket or device); not opened`);
      return await read(handle);
    } finally {
      await handle.close();
    }
  }

  /** Runs an operation with its errors told in vault-relative terms. */
  private async scrubbed<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw new Error(this.scrub(error instanceof Error ? error.message : String(error)));
    }
  }

  /** An error message without the vault's (or a linked folder's) absolute location. */
  scrub(message: string): string {
    let out = message;
    for (const dir of [this.realRootCache, this.root].filter((d): d is string => d !== undefined)) {
      out = out.split(dir + path.sep).join("").split(dir).join("<vault>");
    }
    for (const dir of this.followed) out = out.split(dir).join("<linked folder>");
    return out;
  }

  /** Reports each change under the vault (hidden folders left out) to the core's search index:
   * a recursive fs.watch where the platform has one, else a tick every 5 s that makes the core
   * list the vault again before its next search. Returns what stops it. */
  watch(changed: (relative: string, kind: string) => void): () => void {
    try {
      const watcher = watch(this.root, { recursive: true }, (kind, name) => {
        const relative = name ? String(name).split(path.sep).join("/") : "";
        if (!relative.split("/").some((part) => part.startsWith("."))) changed(relative, kind);
      });
      watcher.on("error", () => watcher.close());
      watcher.unref();
      return () => watcher.close();
    } catch {
      const timer = setInterval(() => changed("", "poll"), 5_000);
      timer.unref();
      return () => clearInterval(timer);
    }
  }

  vaultList(followLinkedFolders = false): Promise<VaultEntry[]> {
    return this.scrubbed(() => this.list(followLinkedFolders));
  }

  private async list(follow: boolean): Promise<VaultEntry[]> {
    const out: VaultEntry[] = [];
    const followed = new Set<string>();
    const push = (relative: string, info: Stats | undefined, isFolder: boolean, kind?: VaultEntryKind, realPath?: string): void => {
      const entry: VaultEntry = {
        path: relative,
        isFolder,
        size: isFolder || !info ? 0 : info.size,
        createdMs: info ? Math.round(info.birthtimeMs) : 0,
        modifiedMs: info ? Math.round(info.mtimeMs) : 0,
      };
      if (kind && kind !== "plain") entry.kind = kind;
      if (realPath !== undefined) entry.realPath = realPath;
      out.push(entry);
    };
    // `linked`: the real folder linked from outside this walk is inside, if any.
    const walk = async (dir: string, prefix: string, linked: string | undefined, depth: number): Promise<void> => {
      if (depth > MAX_DEPTH) return;
      const inLinked = linked ? "linked" : undefined;
      // Hidden files and folders (.obsidian, .smarthole, .git, .trash) are not part of the vault.
      const dirents = (await readdir(dir, { withFileTypes: true })).filter((d) => !d.name.startsWith("."));
      // Joined by hand: `dir` is already a resolved path, and path.join's normalising cost a
      // 100,000-note listing about 300 ms.
      const base = dir.endsWith(path.sep) ? dir : dir + path.sep;
      const owns = await ownStatsOf(base, dirents);
      for (const [k, dirent] of dirents.entries()) {
        const relative = prefix ? `${prefix}/${dirent.name}` : dirent.name;
        const full = base + dirent.name;
        const own = owns[k];
        if (!own) continue;
        if (own.isSymbolicLink()) {
          let real: string;
          let target: Stats;
          try {
            real = await realpath(full);
            target = await stat(real);
          } catch (error) {
            push(relative, own, false, code(error) === "ELOOP" ? "loop" : "dangling");
            continue;
          }
          const special = specialKind(target);
          if (special) {
            push(relative, own, false, special);
            continue;
          }
          const isFolder = target.isDirectory();
          const inside = await this.insideVault(real);
          if (linked && (real === linked || real.startsWith(linked + path.sep))) {
            // A link within a followed folder, to that same folder: listed, not walked again.
            push(relative, target, isFolder, "linked");
          } else if (inside !== undefined && !linked) {
            // A link inside the vault: one entry with its real location; never walked through.
            push(relative, target, isFolder, "plain", inside);
          } else {
            push(relative, target, isFolder, "outside");
            if (isFolder && follow && !linked && !followed.has(real)) {
              followed.add(real);
              await walk(real, relative, real, depth + 1);
            }
          }
          continue;
        }
        const special = specialKind(own);
        if (special) push(relative, own, false, special);
        else if (own.isDirectory()) {
          push(relative, own, true, inLinked);
          await walk(full, relative, linked, depth + 1);
        } else push(relative, own, false, inLinked);
      }
    };
    await walk(this.root, "", undefined, 0);
    this.followed = followed;
    return out;
  }

  vaultRead(relative: string): Promise<string> {
    return this.scrubbed(async () => this.readRegular(await this.existing(relative, "read"), relative));
  }

  vaultReadBytes(relative: string): Promise<Uint8Array> {
    return this.scrubbed(async () => {
      const bytes = await this.withRegular(await this.existing(relative, "read"), relative, (handle) => handle.readFile());
      return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    });
  }

  /** Many notes' bytes, each with vaultReadBytes's checks, read in one go (read-many.ts); an
   * error's message, scrubbed, in place of a note that cannot be read. On the reader thread
   * (read-thread.ts) while the core searches the notes before them, their bytes lent until the
   * next turn of the event loop; where there is none, here and answered at once (not as a
   * promise), into a buffer reused at the next call: the core copies an answer as soon as it
   * comes (host.d.ts). A fresh megabyte a call cost a search about a third of its reading in
   * page faults (issue 37). */
  vaultReadManyBytes(relatives: string[]): (Uint8Array | string)[] | Promise<(Uint8Array | string)[]> {
    const [realRoot, hidden] = [this.realRootCache, this.hiddenKnown];
    if (realRoot === undefined || hidden === undefined) return this.scope().then((scope) => this.readHere(relatives, scope, freshRoom));
    const scope = this.scopeWith(realRoot, hidden);
    const elsewhere = readElsewhere(relatives, scope);
    if (!elsewhere) return this.readHere(relatives, scope, this.lend);
    return elsewhere.then((read) => (read === undefined ? this.readHere(relatives, scope, freshRoom) : this.scrubbedAll(read)));
  }

  /** The notes read on this thread, into the buffer `room` gives. */
  private readHere(relatives: string[], scope: VaultScope, room: (size: number) => Buffer): (Uint8Array | string)[] {
    return this.scrubbedAll(readManyNow(relatives, (relative) => fullIn(scope.root, relative), (real, relative) => checkReal(scope, real, relative, "read"), room));
  }

  /** A read of many notes with each error's message scrubbed. */
  private scrubbedAll(read: (Uint8Array | string)[]): (Uint8Array | string)[] {
    return read.map((one) => (typeof one === "string" ? this.scrub(one) : one));
  }

  vaultCreate(relative: string, text: string): Promise<void> {
    return this.scrubbed(async () => {
      const full = await this.fresh(relative);
      await mkdir(path.dirname(full), { recursive: true });
      // "wx": fails if the note (or a link by its name) appeared since the core looked.
      await writeFile(full, text, { encoding: "utf8", flag: "wx" });
    });
  }

  vaultProcess(relative: string, edit: (text: string) => string | undefined): Promise<boolean> {
    return this.scrubbed(async () => {
      const full = await this.existing(relative, "write");
      const next = edit(await this.readExact(full, relative));
      if (next === undefined) return false;
      await writeFileAtomic(full, next);
      return true;
    });
  }

  vaultAppend(relative: string, text: string): Promise<void> {
    return this.scrubbed(async () => {
      await appendFile(await this.existing(relative, "write"), text, "utf8");
    });
  }

  vaultCreateFolder(relative: string): Promise<void> {
    return this.scrubbed(async () => {
      await mkdir(await this.fresh(relative), { recursive: true });
    });
  }

  vaultTrash(relative: string): Promise<void> {
    return this.scrubbed(async () => {
      const from = await this.entry(relative);
      const root = await this.realRoot();
      const trash = path.join(root, TRASH);
      await mkdir(trash, { recursive: true });
      // The trash itself must be the vault's own folder, not a link out of it.
      if ((await realpath(trash)) !== trash) throw new Error(`${TRASH} is a link; nothing was moved to it`);
      const parsed = path.parse(path.basename(relative));
      let target = path.join(trash, parsed.base);
      for (let n = 1; await exists(target); n++) target = path.join(trash, `${parsed.name} ${n}${parsed.ext}`);
      await rename(from, target);
    });
  }

  vaultRename(from: string, to: string): Promise<void> {
    return this.scrubbed(async () => {
      const source = await this.entry(from);
      const target = await this.fresh(to);
      if (await exists(target)) throw new Error(`${to} already exists`);
      await mkdir(path.dirname(target), { recursive: true });
      await rename(source, target);
    });
  }

  activeNote(): Promise<string | null> {
    return Promise.resolve(null);
  }
}

async function exists(full: string): Promise<boolean> {
  try {
    await lstat(full);
    return true;
  } catch {
    return false;
  }
}
