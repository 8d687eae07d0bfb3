// The core's files and HTTP on a plain page served by panel-server: files go to the server
// (which keeps .smarthole/ on disk), model requests to its same-origin proxy, streamed.
import type { HttpHandle, HttpRequestSpec, VaultEntry } from "smarthole-core";
import type { HostIO, VaultIO } from "../core/compose-host.ts";
import { fetchHandle } from "../core/fetch-handle.ts";

async function ok(res: Response): Promise<Response> {
  if (!res.ok) throw new Error(`${res.status} ${await res.text()}`);
  return res;
}

const q = (params: Record<string, string>) => new URLSearchParams(params).toString();

export class PageIO implements HostIO {
  async readFile(path: string): Promise<string | null> {
    const res = await fetch(`/fs/file?${q({ path })}`);
    if (res.status === 404) return null;
    return (await ok(res)).text();
  }

  async fileSize(path: string): Promise<number | null> {
    const res = await fetch(`/fs/size?${q({ path })}`);
    if (res.status === 404) return null;
    return (await (await ok(res)).json()) as number;
  }

  async writeFileAtomic(path: string, text: string): Promise<void> {
    await ok(await fetch(`/fs/file?${q({ path })}`, { method: "PUT", body: text }));
  }

  async readFileBytes(path: string): Promise<Uint8Array | null> {
    const res = await fetch(`/fs/bytes?${q({ path })}`);
    if (res.status === 404) return null;
    return new Uint8Array(await (await ok(res)).arrayBuffer());
  }

  async writeFileAtomicBytes(path: string, bytes: Uint8Array): Promise<void> {
    await ok(await fetch(`/fs/bytes?${q({ path })}`, { method: "PUT", body: bytes.slice() }));
  }

  async appendFile(path: string, text: string): Promise<void> {
    await ok(await fetch(`/fs/append?${q({ path })}`, { method: "POST", body: text }));
  }

  async listDir(dir: string): Promise<string[]> {
    return (await (await ok(await fetch(`/fs/list?${q({ dir })}`))).json()) as string[];
  }

  async removeFile(path: string): Promise<void> {
    await ok(await fetch(`/fs/file?${q({ path })}`, { method: "DELETE" }));
  }

  async renameFile(from: string, to: string): Promise<void> {
    await ok(await fetch(`/fs/rename?${q({ from, to })}`, { method: "POST" }));
  }

  httpStart(request: HttpRequestSpec): HttpHandle {
    return fetchHandle(fetch, request);
  }
}

/** A note open in the page's editor: the core reads and edits the editor's text, not the file. */
export interface OpenNote {
  path: string;
  read(): string;
  /** Sets the editor's text (as one minimal change); resolves once the file on disk has it. */
  replace(next: string): Promise<void>;
  /** Resolves once every change so far is on disk. */
  saved(): Promise<void>;
}

/** The notes, kept by the server in the vault folder (its NodeVault); the one open in the page's
 * editor (`open`) through the editor. */
export class PageVault implements VaultIO {
  open: OpenNote | null = null;

  async vaultList(followLinkedFolders = false): Promise<VaultEntry[]> {
    return (await (await ok(await fetch(`/vault/list${followLinkedFolders ? "?follow=1" : ""}`))).json()) as VaultEntry[];
  }

  async vaultRead(path: string): Promise<string> {
    if (this.open?.path === path) return this.open.read();
    return (await ok(await fetch(`/vault/file?${q({ path })}`))).text();
  }

  async vaultReadBytes(path: string): Promise<Uint8Array> {
    return new Uint8Array(await (await ok(await fetch(`/vault/bytes?${q({ path })}`))).arrayBuffer());
  }

  /** Many notes' bytes, their requests overlapped. */
  vaultReadManyBytes(paths: string[]): Promise<(Uint8Array | string)[]> {
    return Promise.all(paths.map((p) => this.vaultReadBytes(p).catch((e: unknown) => (e instanceof Error ? e.message : String(e)))));
  }

  async vaultCreate(path: string, text: string): Promise<void> {
    await ok(await fetch(`/vault/file?${q({ path })}`, { method: "POST", body: text }));
  }

  /** Read, edit here, write back only if the note is unchanged meanwhile (the server checks). */
  async vaultProcess(path: string, edit: (text: string) => string | undefined): Promise<boolean> {
    const open = this.open?.path === path ? this.open : null;
    if (open) {
      const after = edit(open.read());
      if (after === undefined) return false;
      await open.replace(after);
      return true;
    }
    const before = await this.vaultRead(path);
    const after = edit(before);
    if (after === undefined) return false;
    await ok(await fetch(`/vault/process?${q({ path })}`, { method: "POST", body: JSON.stringify({ before, after }) }));
    return true;
  }

  async vaultAppend(path: string, text: string): Promise<void> {
    await ok(await fetch(`/vault/append?${q({ path })}`, { method: "POST", body: text }));
  }

  async vaultCreateFolder(path: string): Promise<void> {
    await ok(await fetch(`/vault/folder?${q({ path })}`, { method: "POST" }));
  }

  async vaultTrash(path: string): Promise<void> {
    await ok(await fetch(`/vault/trash?${q({ path })}`, { method: "POST" }));
  }

  async vaultRename(from: string, to: string): Promise<void> {
    await ok(await fetch(`/vault/rename?${q({ from, to })}`, { method: "POST" }));
  }

  activeNote(): Promise<string | null> {
    return Promise.resolve(this.open?.path ?? null);
  }
}
