// The notes, through Obsidian's own API so that the editor, the file explorer and links stay in
// step: Vault.create/process, FileManager.trashFile (the user's trash setting) and renameFile
// (links updated). Paths arrive normalised and checked by the core; a note that is not valid UTF-8
// is never rewritten (vaultProcess refuses it). A note open in an editor is read and changed
// there (open-editor.ts), so unsaved typing is seen and the cursor survives. On desktop, the listing says
// what each symbolic link really is and every operation checks the real location first
// (real-location.ts); on mobile there are no symbolic links.
import { TFile, TFolder, type App, type TAbstractFile } from "obsidian";
import type { VaultEntry } from "smarthole-core";
import type { VaultIO } from "../core/compose-host.ts";
import { RealLocator } from "./real-location.ts";
import { applyInEditor, editorBytes, noteEditor } from "./open-editor.ts";

/** Most notes read at once for vaultReadManyBytes: what one of the core's calls asks, as it asks
 * several calls ahead (a desktop's open-files limit can be 256). */
const READS_AT_ONCE = 64;

/** UTF-8 that refuses what is not (never U+FFFD) and keeps a byte order mark as text. */
const EXACT_UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

export class ObsidianVault implements VaultIO {
  private readonly locator: RealLocator | null;
  /** vaultReadManyBytes' reads under way, and those waiting for one of them to end. */
  private reading = 0;
  private readonly toRead: (() => void)[] = [];

  /** `hidden`: the folders the core protects whatever the settings (`alwaysProtectedFolders`),
   * asked when an operation is checked (the core is loaded by then). */
  constructor(
    private readonly app: App,
    private readonly hidden: () => readonly string[],
  ) {
    this.locator = RealLocator.forApp(app);
  }

  /** Checks the real location (desktop), then runs the operation; errors name vault paths only. */
  private async guarded<T>(paths: string[], access: "read" | "write", run: () => Promise<T>): Promise<T> {
    try {
      const locator = this.locator;
      if (locator) {
        const hidden = this.hidden();
        for (const p of paths) await locator.check(p, access, hidden);
      }
      return await run();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new Error(this.locator ? this.locator.scrub(message) : message);
    }
  }

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

  async vaultList(followLinkedFolders = false): Promise<VaultEntry[]> {
    const out: VaultEntry[] = [];
    this.locator?.startListing();
    const files = this.app.vault.getAllLoadedFiles().filter((f) => !(f instanceof TFolder && f.isRoot()));
    // Obsidian walks into linked folders itself: each entry is asked what it really is.
    const locator = this.locator;
    const infos = locator ? await Promise.all(files.map((f) => locator.describe(f.path, followLinkedFolders))) : [];
    files.forEach((f, i) => {
      const info = infos[i] ?? {};
      // Reached through a link inside the vault: the real entry is listed under its own path.
      if (info.through) return;
      if (info.kind === "linked" && !followLinkedFolders) return;
      const entry: VaultEntry =
        f instanceof TFile
          ? { path: f.path, isFolder: false, size: f.stat.size, createdMs: f.stat.ctime, modifiedMs: f.stat.mtime }
          : { path: f.path, isFolder: true, size: 0, createdMs: 0, modifiedMs: 0 };
      if (info.kind && info.kind !== "plain") entry.kind = info.kind;
      if (info.realPath !== undefined) entry.realPath = info.realPath;
      out.push(entry);
    });
    return out;
  }

  vaultRead(path: string): Promise<string> {
    return this.guarded([path], "read", async () => noteEditor(this.app, path)?.getValue() ?? (await this.app.vault.cachedRead(this.file(path))));
  }

  vaultReadBytes(path: string): Promise<Uint8Array> {
    return this.guarded([path], "read", async () => {
      const saved = new Uint8Array(await this.app.vault.readBinary(this.file(path)));
      // Open in an editor: the bytes of the text it holds, as vaultRead gives that text.
      const text = noteEditor(this.app, path)?.getValue();
      return text === undefined ? saved : editorBytes(saved, text);
    });
  }

  /** Many notes' bytes, their reads overlapped (Obsidian's adapter reads asynchronously), at
   * most READS_AT_ONCE under way across calls. */
  vaultReadManyBytes(paths: string[]): Promise<(Uint8Array | string)[]> {
    return Promise.all(paths.map((p) => this.inTurn(() => this.vaultReadBytes(p)).catch((e: unknown) => (e instanceof Error ? e.message : String(e)))));
  }

  /** Runs a read once fewer than READS_AT_ONCE are under way. */
  private async inTurn<T>(read: () => Promise<T>): Promise<T> {
    while (this.reading >= READS_AT_ONCE) await new Promise<void>((go) => this.toRead.push(go));
    this.reading++;
    try {
      return await read();
    } finally {
      this.reading--;
      this.toRead.shift()?.();
    }
  }

  vaultCreate(path: string, text: string): Promise<void> {
    return this.guarded([path], "write", async () => {
      await this.ensureFolder(path.slice(0, Math.max(0, path.lastIndexOf("/"))));
      await this.app.vault.create(path, text);
    });
  }

  vaultProcess(path: string, edit: (text: string) => string | undefined): Promise<boolean> {
    return this.guarded([path], "write", async () => {
      // Vault.process decodes the note itself, each byte that is not UTF-8 as U+FFFD: writing
      // that back would rewrite bytes no edit touched, so such a note is refused first.
      const bytes = await this.app.vault.readBinary(this.file(path));
      try {
        EXACT_UTF8.decode(bytes);
      } catch {
        throw new Error(`${path} is not valid UTF-8 text; it was not changed`);
      }
      // Open in an editor: its text is the newest, and the change goes there.
      const editor = noteEditor(this.app, path);
      if (editor) {
        const text = editor.getValue();
        const next = edit(text);
        if (next === undefined) return false;
        applyInEditor(editor, text, next);
        return true;
      }
      let written = false;
      await this.app.vault.process(this.file(path), (data) => {
        const next = edit(data);
        if (next === undefined) return data;
        written = true;
        return next;
      });
      return written;
    });
  }

  vaultAppend(path: string, text: string): Promise<void> {
    return this.guarded([path], "write", () => this.app.vault.append(this.file(path), text));
  }

  vaultCreateFolder(path: string): Promise<void> {
    return this.guarded([path], "write", () => this.ensureFolder(path));
  }

  vaultTrash(path: string): Promise<void> {
    return this.guarded([path], "write", () => this.app.fileManager.trashFile(this.entry(path)));
  }

  vaultRename(from: string, to: string): Promise<void> {
    return this.guarded([from, to], "write", async () => {
      await this.ensureFolder(to.slice(0, Math.max(0, to.lastIndexOf("/"))));
      await this.app.fileManager.renameFile(this.entry(from), to);
    });
  }

  activeNote(): Promise<string | null> {
    return Promise.resolve(this.app.workspace.getActiveFile()?.path ?? null);
  }
}
