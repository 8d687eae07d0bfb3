// The core's host on Node: `.smarthole/` on a real folder (write, fsync, rename; nothing opened
// that is not a regular file, core/data-file.ts), `fetch` with an
// AbortController, callbacks for events and logs, and the links (hub sockets on `ws`, MCP over
// stdio or HTTP, the agent API on node:http) wired as every host wires them (core/links.ts). It
// makes no decisions: the core tells it exactly what to do.
import * as fs from "node:fs/promises";
import { mkdir, readdir, rename, rm } from "node:fs/promises";
import path from "node:path";
import WebSocket from "ws";
import type { CoreEvent, CoreHost, HttpHandle, HttpRequestSpec, LogLevel, McpServerInfo, VaultEntry } from "smarthole-core";
import type { SocketLike } from "../core/hub-sockets.ts";
import { NodeVault } from "./node-vault.ts";
import { cronNext, localTimeZone } from "../core/clock.ts";
import { stdioTransport } from "../core/mcp-stdio.ts";
import { CoreLinks } from "../core/links.ts";
import { writeFileAtomic } from "./atomic-write.ts";
import { fetchHandle } from "../core/fetch-handle.ts";
import { appendRegular, readRegular, sizeOrKind } from "../core/data-file.ts";

/** Larger than the hub's 1 MB limit on purpose: an oversized frame reaches the core, which logs
 * and drops it, instead of the socket library closing the connection. */
const SOCKET_MAX_PAYLOAD = 8 * 1024 * 1024;

export interface NodeHostOptions {
  /** Every event of the core, synchronously. */
  onEvent?: (event: CoreEvent) => void;
  onLog?: (level: LogLevel, message: string) => void;
  /** Called with each model request as it goes out (benchmarks measure from here). */
  onHttpStart?: (request: HttpRequestSpec) => void;
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException)?.code === "ENOENT";
}

export class NodeHost implements CoreHost {
  private readonly madeDirs = new Set<string>();
  /** The notes: the folder that holds `dataDir`. */
  readonly vault: NodeVault;
  /** Hub sockets, MCP servers, agent API: `attach` them once the processor exists. */
  readonly links: CoreLinks;

  /** `dataDir` is the plugin's data folder (`<vault>/.smarthole`). */
  constructor(
    readonly dataDir: string,
    private readonly options: NodeHostOptions = {},
  ) {
    this.vault = new NodeVault(path.dirname(path.resolve(dataDir)));
    this.links = new CoreLinks({
      openSocket: (url): SocketLike => new WebSocket(url, { maxPayload: SOCKET_MAX_PAYLOAD }),
      mcpStdio: stdioTransport((line) => this.log("debug", line)),
      loadHttp: () => import("node:http"),
      log: (level, message) => this.log(level, message),
    });
  }

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

  async removeFile(relative: string): Promise<void> {
    await rm(this.resolve(relative), { force: true });
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

  /** The vault's changes, for the core's search index (`vaultChanged`). */
  watchVault(changed: (relative: string, kind: string) => void): () => void {
    return this.vault.watch(changed);
  }

  vaultList(followLinkedFolders = false): Promise<VaultEntry[]> {
    return this.vault.vaultList(followLinkedFolders);
  }

  vaultRead(relative: string): Promise<string> {
    return this.vault.vaultRead(relative);
  }

  vaultCreate(relative: string, text: string): Promise<void> {
    return this.vault.vaultCreate(relative, text);
  }

  vaultProcess(relative: string, edit: (text: string) => string | undefined): Promise<boolean> {
    return this.vault.vaultProcess(relative, edit);
  }

  vaultReadBytes(relative: string): Promise<Uint8Array> {
    return this.vault.vaultReadBytes(relative);
  }

  vaultAppend(relative: string, text: string): Promise<void> {
    return this.vault.vaultAppend(relative, text);
  }

  vaultCreateFolder(relative: string): Promise<void> {
    return this.vault.vaultCreateFolder(relative);
  }

  vaultTrash(relative: string): Promise<void> {
    return this.vault.vaultTrash(relative);
  }

  vaultRename(from: string, to: string): Promise<void> {
    return this.vault.vaultRename(from, to);
  }

  activeNote(): Promise<string | null> {
    return this.vault.activeNote();
  }

  /** Node decodes no images: a large one is checked as it is (the core refuses one over the
   * API's limits, saying so). */
  scaleImage(): Promise<Uint8Array | null> {
    return Promise.resolve(null);
  }

  cronNext(expression: string, timeZone: string, afterMs: number): number | null {
    return cronNext(expression, timeZone, afterMs);
  }

  timeZone(): string {
    return process.env.SMARTHOLE_TIME_ZONE ?? localTimeZone();
  }

  mcpServers(): Promise<McpServerInfo[]> {
    return this.links.mcpServers();
  }

  mcpCall(server: string, tool: string, input: unknown): { result: Promise<unknown>; abort(): void } {
    return this.links.mcpCall(server, tool, input);
  }

  httpStart(request: HttpRequestSpec): HttpHandle {
    this.options.onHttpStart?.(request);
    return fetchHandle(fetch, request);
  }

  hubConnect(socket: number, url: string): void {
    this.links.hubConnect(socket, url);
  }

  hubDisconnect(socket: number): void {
    this.links.hubDisconnect(socket);
  }

  hubSend(socket: number, frame: string): void {
    this.links.hubSend(socket, frame);
  }

  emit(event: CoreEvent): void {
    this.options.onEvent?.(event);
  }

  log(level: LogLevel, message: string): void {
    this.options.onLog?.(level, message);
  }

  randomU32(): number {
    return crypto.getRandomValues(new Uint32Array(1))[0];
  }
}
