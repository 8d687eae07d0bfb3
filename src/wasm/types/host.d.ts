// The host the shim implements for the core (`CoreHost`), and the values it speaks: files, the
// vault, HTTP, MCP servers, the agent API's requests.
// One of the declaration files of the values crossing the JS boundary (src/wasm/types/), each
// emitted into pkg/smarthole_agent.d.ts by src/wasm/mod.rs, where they see each other; checked
// against the core's JSON by scripts/contract.mjs.

/** An agent API request as the shim's HTTP server received it. */
export interface ApiRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  bodyTooLarge: boolean;
  localPort: number;
}

/** What the shim writes back: a JSON body, a status, extra headers. */
export interface ApiResponse {
  status: number;
  body: string;
  headers?: [string, string][];
}

/** An MCP server as the core sees it. */
export interface McpServerInfo {
  name: string;
  state: "connected" | "connecting" | "failed" | "unauthorized" | "unsupported";
  error?: string;
  tools: { name: string; description?: string; inputSchema?: unknown }[];
}

/** A file or folder of the vault. */
export interface VaultEntry {
  path: string;
  isFolder: boolean;
  size: number;
  createdMs: number;
  modifiedMs: number;
  /** What it really is (absent: a plain file or folder, or a link to one inside the vault). */
  kind?: VaultEntryKind;
  /** A link whose real location is inside the vault: that location, vault-relative. */
  realPath?: string;
}

/** outside: a link out of the vault; linked: inside a folder linked from outside (listed only
 * when following them); the rest are never opened. */
export type VaultEntryKind = "plain" | "outside" | "linked" | "dangling" | "loop" | "fifo" | "socket" | "device";

export interface HttpRequestSpec {
  method: string;
  url: string;
  headers: [string, string][];
  /** The body as UTF-8 bytes (absent when empty): the host sends them as they are, so a long
   * conversation's request is not turned into a JavaScript string and back (issue 37). */
  body?: Uint8Array<ArrayBuffer>;
  stream: boolean;
}

/** A request in flight: its head, its body chunk by chunk, and a way to stop it. */
export interface HttpHandle {
  readonly response: Promise<{ status: number; headers: [string, string][] }>;
  /** The next body chunk, null at the end. */
  read(): Promise<Uint8Array | null>;
  abort(): void;
}

/** What the shim provides to the core. Paths are relative to the `.smarthole/` folder. */
export interface CoreHost {
  readFile(path: string): Promise<string | null>;
  writeFileAtomic(path: string, text: string): Promise<void>;
  /** A data file's bytes, null when it does not exist (never opened when it is not a regular
   *  file, as readFile): for what is not text (the search index's pieces), so no base64 and no
   *  string crosses. */
  readFileBytes(path: string): Promise<Uint8Array | null>;
  /** Writes the whole file from bytes, as writeFileAtomic does from text. */
  writeFileAtomicBytes(path: string, bytes: Uint8Array): Promise<void>;
  appendFile(path: string, text: string): Promise<void>;
  listDir(dir: string): Promise<string[]>;
  removeFile(path: string): Promise<void>;
  renameFile(from: string, to: string): Promise<void>;
  /** The file's size in bytes, null when it does not exist (asked before every read); what it
   *  is when it is not a regular file ("fifo", "socket", "device", "folder"; never opened, the
   *  core sets it aside). readFile and appendFile never open such a file either. */
  fileSize(path: string): Promise<number | string | null>;
  /** Every file and folder of the vault, paths relative to its root (hidden folders left out).
   * Links are reported with their kind and real path, not walked through; the content of
   * folders linked from outside only when followLinkedFolders. */
  vaultList(followLinkedFolders: boolean): Promise<VaultEntry[]>;
  vaultRead(path: string): Promise<string>;
  /** A file's bytes (an attached image or PDF; its size was checked first). */
  vaultReadBytes(path: string): Promise<Uint8Array>;
  /** Several notes' bytes, in the order asked, each read with vaultReadBytes's checks; a note
   *  that cannot be read has its error's message in its place. The core keeps a call to a few
   *  dozen notes and about a megabyte, so a host may read them synchronously in one go. The core
   *  copies an answer as soon as it comes: a list given at once (not a promise) before anything
   *  else runs, so its bytes may be views of one buffer the host reuses at its next call; a
   *  promise's in the promise's own reaction, so its bytes may be lent until the host's next turn
   *  of the event loop. When a host answers with promises, the core asks several calls ahead. */
  vaultReadManyBytes(paths: string[]): (Uint8Array | string)[] | Promise<(Uint8Array | string)[]>;
  /** An image scaled down to at most maxSide pixels on its longest side and maxBytes (PNG kept
   *  PNG where that fits, others JPEG); null where the platform cannot decode images (Node). */
  scaleImage(bytes: Uint8Array, mediaType: string, maxSide: number, maxBytes: number): Promise<Uint8Array | null>;
  /** Creates a note that does not exist yet, and its folders. */
  vaultCreate(path: string, text: string): Promise<void>;
  /** Atomic read-modify-write (Vault.process); edit returns the new text, or undefined for no
   *  change. Resolves with whether the note was written. */
  vaultProcess(path: string, edit: (text: string) => string | undefined): Promise<boolean>;
  /** Adds text at the end of an existing note (Vault.append). */
  vaultAppend(path: string, text: string): Promise<void>;
  vaultCreateFolder(path: string): Promise<void>;
  /** To the trash, as the user's settings say (fileManager.trashFile). */
  vaultTrash(path: string): Promise<void>;
  /** Renames or moves, updating links (fileManager.renameFile). */
  vaultRename(from: string, to: string): Promise<void>;
  /** The path of the note open in the editor, or null. */
  activeNote(): Promise<string | null>;
  /** The next time (ms) a 5-field cron expression fires strictly after afterMs, in IANA zone
   *  timeZone (croner); null when never again; throws with the reason when invalid. */
  cronNext(expression: string, timeZone: string, afterMs: number): number | null;
  /** The user's IANA time zone. */
  timeZone(): string;
  /** The vault's configuration folder (Obsidian's `Vault#configDir`; `.obsidian` elsewhere):
   *  the core protects it with its fixed folders (`alwaysProtectedFolders`). */
  configFolder(): string;
  /** The configured MCP servers, their state and tools. */
  mcpServers(waitMs: number): Promise<McpServerInfo[]>;
  /** Calls an MCP tool; the result is the raw tools/call result. Errors carry a kind. */
  mcpCall(server: string, tool: string, input: unknown): { result: Promise<unknown>; abort(): void };
  httpStart(request: HttpRequestSpec): HttpHandle;
  /** Opens WebSocket `socket` to the hub; report its events with hubOpened/hubFrame/hubClosed. */
  hubConnect(socket: number, url: string): void;
  /** Closes WebSocket `socket` (a no-op if it is closed already). */
  hubDisconnect(socket: number): void;
  /** Sends a text frame on WebSocket `socket`. */
  hubSend(socket: number, frame: string): void;
  // The user's own agent (ACP): where programs cannot be started (a phone, the page),
  // agentFolder answers null and the core answers with the built-in agent.
  /** Spawns agent process `process`: `command` run directly (no shell) with `args`, with
   *  EXACTLY `env` (nothing inherited), in `cwd`, in its own process group; stdin/stdout piped,
   *  the last 8 KB of stderr kept. Report its output with agentOutput and its end — or a failure
   *  to start (ENOENT, EACCES), never thrown — with agentExited. */
  agentStart(process: number, command: string, args: string[], env: Record<string, string>, cwd: string): void;
  /** Writes whole lines (each ends with "\n") to the process's stdin. */
  agentWrite(process: number, text: string): void;
  /** Ends the process group: SIGTERM, SIGKILL after 2 s if still alive; a no-op once ended. */
  agentStop(process: number): void;
  /** The host's environment variables (the core picks what an agent gets); {} on a phone. */
  environment(): Record<string, string>;
  /** The folder an agent works in (the vault's absolute path); null where this host cannot
   *  start programs (a phone): the core then uses the built-in agent and says why. */
  agentFolder(): string | null;
  /** Called synchronously; must not call back into the processor. */
  emit(event: CoreEvent): void;
  log(level: LogLevel, message: string): void;
  randomU32(): number;
}
