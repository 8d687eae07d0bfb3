// The notes, through Obsidian's own API so that the editor, the file explorer and links stay in
// step: Vault.create/process, FileManager.trashFile (the user's trash setting) and renameFile
// (links updated). Paths arrive normalised and checked by the core.
import { TFile, TFolder, type App, type TAbstractFile } from "obsidian";
import type { VaultEntry } from "smarthole-core";
import type { VaultIO } from "../core/runtime.ts";

export class ObsidianVault implements VaultIO {
  constructor(private readonly app: App) {}

  private file(path: string): TFile {
    const file = this.app.vault.getFileByPath(path);
    if (!file) throw new Error(`${path} does not exist`);
    return file;
  }

  private entry(path: string): TAbstractFile {
    const entry = this.app.vault.getAbstractFileByPath(path);
    if (!entry) throw new Error(`${path} does not exist`);
    return entry;
  }

  private async ensureFolder(path: string): Promise<void> {
    if (path && !this.app.vault.getFolderByPath(path)) await this.app.vault.createFolder(path);
  }

  vaultList(): Promise<VaultEntry[]> {
    const out: VaultEntry[] = [];
    for (const f of this.app.vault.getAllLoadedFiles()) {
      if (f instanceof TFolder && f.isRoot()) continue;
      if (f instanceof TFile) out.push({ path: f.path, isFolder: false, size: f.stat.size, createdMs: f.stat.ctime, modifiedMs: f.stat.mtime });
      else out.push({ path: f.path, isFolder: true, size: 0, createdMs: 0, modifiedMs: 0 });
    }
    return Promise.resolve(out);
  }

  vaultRead(path: string): Promise<string> {
    return this.app.vault.cachedRead(this.file(path));
  }

  async vaultCreate(path: string, text: string): Promise<void> {
    await this.ensureFolder(path.slice(0, Math.max(0, path.lastIndexOf("/"))));
    await this.app.vault.create(path, text);
  }

  async vaultProcess(path: string, edit: (text: string) => string | undefined): Promise<boolean> {
    let written = false;
    await this.app.vault.process(this.file(path), (data) => {
      const next = edit(data);
      if (next === undefined) return data;
      written = true;
      return next;
    });
    return written;
  }

  async vaultCreateFolder(path: string): Promise<void> {
    await this.ensureFolder(path);
  }

  vaultTrash(path: string): Promise<void> {
    return this.app.fileManager.trashFile(this.entry(path));
  }

  async vaultRename(from: string, to: string): Promise<void> {
    await this.ensureFolder(to.slice(0, Math.max(0, to.lastIndexOf("/"))));
    await this.app.fileManager.renameFile(this.entry(from), to);
  }

  activeNote(): Promise<string | null> {
    return Promise.resolve(this.app.workspace.getActiveFile()?.path ?? null);
  }
}
