// Real locations inside Obsidian (issue 14). Obsidian's desktop app follows symbolic links, so a
// path the core checked as text may really be outside the vault or in the configuration folder. On
// desktop (FileSystemAdapter) this resolves where a vault path really is with Node's
// fs.realpath through the adapter's base path: the listing says what each link is (the core
// decides), and every note operation refuses, as defence in depth, a real location outside the
// vault or in one of the folders the core protects whatever the settings (its list, given by the
// caller: `alwaysProtectedFolders`) (files in folders linked from outside may be read when
// the core asked to follow them, never written). On mobile there are no symbolic links (the
// app's storage cannot hold them) and no Node: paths are what they say, and nothing is checked
// here.
import { FileSystemAdapter, Platform, type App } from "obsidian";
import type { VaultEntryKind } from "smarthole-core";

type NodeFs = typeof import("node:fs/promises");
type NodePath = typeof import("node:path");

/** Whether the vault path `lower` (lower-cased) is the folder `folder` or inside it. */
function isWithin(lower: string, folder: string): boolean {
  return lower === folder || lower.startsWith(folder + "/");
}

/** What a listed path really is. */
export interface RealInfo {
  kind?: VaultEntryKind;
  realPath?: string;
  /** Reached through a link inside the vault: the real entry is listed under its own path. */
  through?: boolean;
}

export class RealLocator {
  private realRoot: string | undefined;
  /** Real folders linked from outside that the last listing followed. */
  private followed = new Set<string>();

  private constructor(
    private readonly fs: NodeFs,
    private readonly path: NodePath,
    private readonly base: string,
  ) {}

  /** The locator on desktop; `null` on mobile (no symbolic links there). */
  static forApp(app: App): RealLocator | null {
    const adapter = app.vault.adapter;
    if (Platform.isDesktop && adapter instanceof FileSystemAdapter) {
      // eslint-disable-next-line @typescript-eslint/no-require-imports, no-undef -- Obsidian's plugins are CommonJS; fs on desktop only
      const fs = require("node:fs/promises") as NodeFs;
      // eslint-disable-next-line @typescript-eslint/no-require-imports, no-undef -- as above
      const path = require("node:path") as NodePath;
      return new RealLocator(fs, path, adapter.getBasePath());
    }
    return null;
  }

  private async root(): Promise<string> {
    this.realRoot ??= await this.fs.realpath(this.base);
    return this.realRoot;
  }

  private async inside(real: string): Promise<string | undefined> {
    const root = await this.root();
    if (real === root) return "";
    if (!real.startsWith(root + this.path.sep)) return undefined;
    return real.slice(root.length + 1).split(this.path.sep).join("/");
  }

  /** Starts a listing: which followed folders count for reads is decided by it. */
  startListing(): void {
    this.followed = new Set();
  }

  /** What a listed path is: a link (inside, with its real path; or outside), or special. */
  async describe(relative: string, follow: boolean): Promise<RealInfo> {
    const full = this.path.join(this.base, relative);
    let own;
    try {
      own = await this.fs.lstat(full);
    } catch {
      return { kind: "dangling" };
    }
    if (own.isFIFO()) return { kind: "fifo" };
    if (own.isSocket()) return { kind: "socket" };
    if (own.isBlockDevice() || own.isCharacterDevice()) return { kind: "device" };
    let real: string;
    try {
      real = await this.fs.realpath(full);
    } catch (error) {
      return { kind: (error as { code?: string }).code === "ELOOP" ? "loop" : "dangling" };
    }
    const inside = await this.inside(real);
    if (!own.isSymbolicLink()) {
      // Reached through a link on the way (Obsidian walked into a linked folder).
      if (inside === relative) return {};
      return inside === undefined ? { kind: "linked" } : { kind: "plain", realPath: inside, through: true };
    }
    if (inside !== undefined) return { kind: "plain", realPath: inside };
    if (follow && (await this.fs.stat(real)).isDirectory()) this.followed.add(real);
    return { kind: "outside" };
  }

  /** Refuses a path whose real location (of its nearest existing ancestor, for a new one) the
   * agent may not reach — outside the vault, or in one of the `hidden` folders (the core's list,
   * lower-cased) —; reading a regular file only. */
  async check(relative: string, access: "read" | "write", hidden: readonly string[]): Promise<void> {
    let probe = this.path.join(this.base, relative);
    const missing: string[] = [];
    let real: string | undefined;
    while (real === undefined) {
      try {
        real = this.path.join(await this.fs.realpath(probe), ...missing);
      } catch (error) {
        const parent = this.path.dirname(probe);
        if ((error as { code?: string }).code !== "ENOENT" || parent === probe) throw error;
        missing.unshift(this.path.basename(probe));
        probe = parent;
      }
    }
    const inside = await this.inside(real);
    if (inside === undefined) {
      const followed = [...this.followed].some((dir) => real === dir || real.startsWith(dir + this.path.sep));
      if (!(access === "read" && followed)) throw new Error(`${relative} is really outside the vault; refused`);
    } else if (hidden.some((folder) => isWithin(inside.toLowerCase(), folder))) {
      throw new Error(`${relative} is really in a hidden folder of the vault; refused`);
    }
    if (access === "read" && missing.length === 0 && !(await this.fs.stat(real)).isFile()) {
      throw new Error(`${relative} is not a regular file; not opened`);
    }
  }

  /** A data file's real folder must stay inside the real `.smarthole/` folder. */
  async checkData(full: string, dataDir: string): Promise<void> {
    const dir = await this.fs.realpath(this.path.dirname(full));
    const data = await this.fs.realpath(this.path.join(this.base, dataDir));
    if (dir !== data && !dir.startsWith(data + this.path.sep)) throw new Error(`a data file is linked out of ${dataDir}; refused`);
  }

  /** An error message without the vault's absolute location. */
  scrub(message: string): string {
    let out = message;
    for (const dir of [this.realRoot, this.base].filter((d): d is string => d !== undefined)) {
      out = out.split(dir + this.path.sep).join("").split(dir).join("<vault>");
    }
    return out;
  }
}
