// The vault on a real folder, for the headless command and the panel server: what Obsidian's
// Vault and FileManager do for the plugin, done with Node's fs. Paths arrive checked by the core
// (normalised, inside the vault, not protected); this class only refuses what would escape the
// root. Differences from Obsidian: moving a note does not rewrite links to it, and there is no
// editor, so no active note.
import { mkdir, readFile, readdir, rename, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import type { VaultEntry } from "smarthole-core";
import type { VaultIO } from "../core/runtime.ts";
import { writeFileAtomic } from "./atomic-write.ts";

/** Obsidian's own trash folder ("Move to Obsidian trash"). */
const TRASH = ".trash";

export class NodeVault implements VaultIO {
  private readonly root: string;

  constructor(root: string) {
    this.root = path.resolve(root);
  }

  private full(relative: string): string {
    const full = path.resolve(this.root, relative);
    if (full !== this.root && !full.startsWith(this.root + path.sep)) throw new Error(`path escapes the vault: ${relative}`);
    return full;
  }

  async vaultList(): Promise<VaultEntry[]> {
    const out: VaultEntry[] = [];
    const walk = async (dir: string, prefix: string): Promise<void> => {
      for (const entry of await readdir(dir, { withFileTypes: true })) {
        // Hidden files and folders (.obsidian, .smarthole, .git, .trash) are not part of the vault.
        if (entry.name.startsWith(".")) continue;
        const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
        const full = path.join(dir, entry.name);
        const info = await stat(full);
        out.push({ path: relative, isFolder: entry.isDirectory(), size: entry.isDirectory() ? 0 : info.size, createdMs: Math.round(info.birthtimeMs), modifiedMs: Math.round(info.mtimeMs) });
        if (entry.isDirectory()) await walk(full, relative);
      }
    };
    await walk(this.root, "");
    return out;
  }

  vaultRead(relative: string): Promise<string> {
    return readFile(this.full(relative), "utf8");
  }

  async vaultCreate(relative: string, text: string): Promise<void> {
    const full = this.full(relative);
    await mkdir(path.dirname(full), { recursive: true });
    // "wx": fails if the note appeared since the core looked.
    await writeFile(full, text, { encoding: "utf8", flag: "wx" });
  }

  async vaultProcess(relative: string, edit: (text: string) => string | undefined): Promise<boolean> {
    const full = this.full(relative);
    const next = edit(await readFile(full, "utf8"));
    if (next === undefined) return false;
    await writeFileAtomic(full, next);
    return true;
  }

  async vaultCreateFolder(relative: string): Promise<void> {
    await mkdir(this.full(relative), { recursive: true });
  }

  async vaultTrash(relative: string): Promise<void> {
    const from = this.full(relative);
    const trash = path.join(this.root, TRASH);
    const parsed = path.parse(path.basename(relative));
    let target = path.join(trash, parsed.base);
    for (let n = 1; await exists(target); n++) target = path.join(trash, `${parsed.name} ${n}${parsed.ext}`);
    await mkdir(trash, { recursive: true });
    await rename(from, target);
  }

  async vaultRename(from: string, to: string): Promise<void> {
    const target = this.full(to);
    if (await exists(target)) throw new Error(`${to} already exists`);
    await mkdir(path.dirname(target), { recursive: true });
    await rename(this.full(from), target);
  }

  activeNote(): Promise<string | null> {
    return Promise.resolve(null);
  }
}

async function exists(full: string): Promise<boolean> {
  try {
    await stat(full);
    return true;
  } catch {
    return false;
  }
}
