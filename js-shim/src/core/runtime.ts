// The core as the plugin and the browser page use it: a host composed from the platform's I/O,
// events fanned out to the views, and recovery when the core traps — a fresh instance is built,
// the user is told, and the inbox (on disk) is finished by the new one. The shim decides
// nothing else: the core does.
import type {
  AgentMessage,
  ApprovalDecision,
  ApprovalRequest,
  Attachment,
  CoreEvent,
  CoreHost,
  CoreSettings,
  Conversation,
  ConversationPage,
  HistoryLine,
  HubStatus,
  LogLevel,
  Mention,
  MessageProcessor,
  ProcessResult,
  RoutedMessage,
  ScheduleChange,
  TurnReview,
  UndoReport,
  Usage,
  UsageTotals,
  ConnectionCheck,
  ProviderPreset,
} from "smarthole-core";
import type { SocketLike } from "./hub-sockets.ts";
import { cronNext, localTimeZone } from "./clock.ts";
import type { McpConnections, StdioFactory } from "./mcp.ts";
import { newCore, type Core } from "./load.ts";
import { NOT_READY, type ApiListenerState } from "./agent-api-server.ts";
import { CoreLinks } from "./links.ts";
import { scaleImage } from "./scale-image.ts";

/** The platform's files (paths relative to `.smarthole/`) and HTTP. */
export type HostIO = Pick<CoreHost, "readFile" | "writeFileAtomic" | "appendFile" | "listDir" | "removeFile" | "renameFile" | "fileSize" | "httpStart">;

/** The platform's notes (paths relative to the vault, checked by the core). */
export type VaultIO = Pick<
  CoreHost,
  "vaultList" | "vaultRead" | "vaultReadBytes" | "vaultCreate" | "vaultProcess" | "vaultAppend" | "vaultCreateFolder" | "vaultTrash" | "vaultRename" | "activeNote"
>;

export interface RuntimeOptions {
  io: HostIO;
  vault: VaultIO;
  /** Starts command-line MCP servers; null where processes cannot be started (mobile, a page). */
  mcpStdio?: StdioFactory | null;
  openSocket: (url: string) => SocketLike;
  /** Imports Node's http module for the agent API; null where no server can listen (mobile, a page). */
  loadHttp?: (() => Promise<typeof import("node:http")>) | null;
  /** Settings as the core takes them (the API key included, never persisted by the core). */
  settings: () => CoreSettings;
  log?: (level: LogLevel, message: string) => void;
  /** The user must be told something (a Notice in Obsidian). */
  notify?: (text: string) => void;
}

/** What views hear: the core's events, plus the runtime's own. */
export type RuntimeEvent =
  | CoreEvent
  | { type: "ready" }
  | { type: "core_restarted" }
  | { type: "api_status"; listeners: ApiListenerState[] };

/** The result given to a message whose core trapped before it finished. */
export const CORE_RESTARTED = "core_restarted";
const RESTARTED_TEXT =
  "The agent's core stopped unexpectedly and was restarted. Your message is safe and will be answered shortly.";
/** Rebuilds allowed in ten minutes before the runtime gives up and asks for a reload. */
const MAX_REBUILDS = 3;
const REBUILD_WINDOW_MS = 10 * 60_000;

/** Whether an error means the wasm instance can no longer be trusted. */
export function isTrap(error: unknown): boolean {
  if (error instanceof WebAssembly.RuntimeError) return true;
  const message = error instanceof Error ? error.message : "";
  return /recursive use of an object|attempted to take ownership of Rust value|null pointer passed to rust/.test(message);
}

export class CoreRuntime {
  /** Hub sockets, MCP servers, agent API listeners. */
  private readonly links: CoreLinks;
  private core: Core | null = null;
  private processor: MessageProcessor | null = null;
  private readonly listeners = new Set<(event: RuntimeEvent) => void>();
  private readonly waiting = new Map<string, (result: ProcessResult) => void>();
  private readyFlag = false;
  private rebuilding = false;
  private rebuilds: number[] = [];
  private disposed = false;
  private readonly host: CoreHost;
  /** The core has loaded what the agent API answers about (pending verifications). */
  private apiReady = false;
  /** The core's default settings, once it is loaded. */
  defaults: Required<CoreSettings> | null = null;
  presets: ProviderPreset[] = [];

  constructor(private readonly options: RuntimeOptions) {
    const links = new CoreLinks({
      openSocket: options.openSocket,
      mcpStdio: options.mcpStdio ?? null,
      loadHttp: options.loadHttp ?? null,
      log: (level, message) => this.log(level, message),
    });
    this.links = links;
    const io = options.io;
    const vault = options.vault;
    this.host = {
      readFile: (p) => io.readFile(p),
      writeFileAtomic: (p, t) => io.writeFileAtomic(p, t),
      appendFile: (p, t) => io.appendFile(p, t),
      listDir: (d) => io.listDir(d),
      removeFile: (p) => io.removeFile(p),
      renameFile: (a, b) => io.renameFile(a, b),
      fileSize: (p) => io.fileSize(p),
      vaultList: (follow) => vault.vaultList(follow),
      vaultRead: (p) => vault.vaultRead(p),
      vaultReadBytes: (p) => vault.vaultReadBytes(p),
      vaultCreate: (p, t) => vault.vaultCreate(p, t),
      vaultProcess: (p, edit) => vault.vaultProcess(p, edit),
      vaultAppend: (p, t) => vault.vaultAppend(p, t),
      vaultCreateFolder: (p) => vault.vaultCreateFolder(p),
      vaultTrash: (p) => vault.vaultTrash(p),
      vaultRename: (a, b) => vault.vaultRename(a, b),
      activeNote: () => vault.activeNote(),
      scaleImage,
      cronNext: (e, z, after) => cronNext(e, z, after),
      timeZone: () => localTimeZone(),
      mcpServers: () => links.mcpServers(),
      mcpCall: (server, tool, input) => links.mcpCall(server, tool, input),
      httpStart: (r) => io.httpStart(r),
      hubConnect: (socket, url) => links.hubConnect(socket, url),
      hubDisconnect: (socket) => links.hubDisconnect(socket),
      hubSend: (socket, frame) => links.hubSend(socket, frame),
      emit: (event) => this.dispatch(event),
      log: (level, message) => this.log(level, message),
      randomU32: () => crypto.getRandomValues(new Uint32Array(1))[0],
    };
  }

  /** The user's MCP servers. */
  get mcp(): McpConnections {
    return this.links.mcp;
  }

  /** Whether the core has initialised and finished the inbox. */
  get ready(): boolean {
    return this.readyFlag;
  }

  subscribe(listener: (event: RuntimeEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private dispatch(event: RuntimeEvent): void {
    if (event.type === "response") {
      const resolve = this.waiting.get(event.result.messageId);
      this.waiting.delete(event.result.messageId);
      resolve?.(event.result);
    }
    // Listeners run after the core's call returns (the host's emit must not re-enter it).
    queueMicrotask(() => {
      for (const listener of this.listeners) {
        try {
          listener(event);
        } catch (error) {
          this.log("error", `a view failed on ${event.type}: ${String(error)}`);
        }
      }
    });
  }

  private log(level: LogLevel, message: string): void {
    this.options.log?.(level, message);
  }

  /** The fields of a settings document the core's reader would ignore (none before it loads). */
  unknownSettingsFields(value: unknown, document: "settings" | "pluginData", source: string): { field: string; message: string }[] {
    return this.core?.unknownSettingsFields(value, document, source) ?? [];
  }

  /** Builds the core, initialises it and finishes the inbox; then the views may send. */
  async start(): Promise<void> {
    performance.mark("smarthole:start");
    this.core = await newCore();
    if (this.disposed) return;
    performance.mark("smarthole:core-loaded");
    this.defaults = this.core.defaultSettings();
    this.presets = this.core.providerPresets();
    const settings = this.options.settings();
    this.processor = new this.core.MessageProcessor(this.host, settings);
    this.links.attach((fn) => this.call(fn), {
      bodyLimit: this.core.agentApiBodyLimit(),
      handle: (request) => (this.apiReady ? this.call((p) => p.handleApiRequest(request)) : Promise.resolve(NOT_READY)),
    });
    // Checked by the core just now: connect the integrations it accepted.
    this.links.configureMcp(settings);
    await this.processor.initialize();
    this.processor.startSearchIndex();
    this.apiReady = true;
    void this.configureApi();
    performance.mark("smarthole:initialized");
    const pending = await this.processor.reprocessPending();
    performance.mark("smarthole:ready");
    if (pending.results.length > 0) this.log("info", `finished ${pending.results.length} message(s) left by an earlier run`);
    this.readyFlag = true;
    this.dispatch({ type: "ready" });
  }

  /** A vault event, for the core's search index. */
  vaultChanged(path: string, kind: string): void {
    if (this.processor) this.call((p) => p.vaultChanged(path, kind));
  }

  /** Runs a call on the core; a trap starts a rebuild and the error is rethrown. */
  private call<T>(fn: (p: MessageProcessor) => T): T {
    if (!this.processor) throw new Error("the core is not ready yet");
    try {
      return fn(this.processor);
    } catch (error) {
      this.reportError(error);
      throw error;
    }
  }

  /** Any error seen by the shim (also from the window's error handlers): a trap rebuilds. */
  reportError(error: unknown): void {
    if (isTrap(error) && !this.disposed) void this.rebuild(error);
  }

  private async rebuild(cause: unknown): Promise<void> {
    if (this.rebuilding) return;
    const now = Date.now();
    this.rebuilds = this.rebuilds.filter((t) => now - t < REBUILD_WINDOW_MS);
    if (this.rebuilds.length >= MAX_REBUILDS) {
      this.options.notify?.("The agent's core keeps failing. Reload Obsidian; your pending messages are kept and will be answered then.");
      this.readyFlag = false;
      return;
    }
    this.rebuilds.push(now);
    this.rebuilding = true;
    this.readyFlag = false;
    this.log("error", `the core trapped (${String(cause)}); rebuilding`);
    const old = this.processor;
    this.processor = null;
    this.apiReady = false;
    this.links.hub.closeAll();
    try {
      old?.dispose();
    } catch {
      // A trapped instance may refuse even this; it is dropped either way.
    }
    for (const [messageId, resolve] of this.waiting) {
      resolve({ success: false, messageId, errorCode: CORE_RESTARTED, error: RESTARTED_TEXT });
    }
    this.waiting.clear();
    this.options.notify?.("SmartHole Agent restarted its core after an internal error. No message was lost.");
    this.dispatch({ type: "core_restarted" });
    try {
      await this.start();
    } finally {
      this.rebuilding = false;
    }
  }

  /** Processes a message; resolves with its result (a trap resolves it as `core_restarted`). */
  process(message: RoutedMessage): Promise<ProcessResult> {
    return new Promise((resolve, reject) => {
      this.waiting.set(message.id, resolve);
      try {
        void this.call((p) => p.process(message)).then(resolve, reject);
      } catch (error) {
        this.waiting.delete(message.id);
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  }

  /** A typed message, with the id and time the core gives it (pass it to `process`). */
  newMessage(text: string): RoutedMessage {
    return this.call((p) => p.newMessage(text));
  }

  /** A typed message from the chat view. */
  send(text: string): Promise<ProcessResult> {
    return this.process(this.newMessage(text));
  }

  cancel(): boolean {
    return this.processor ? this.call((p) => p.cancelCurrentProcessing()) : false;
  }

  get currentMessageId(): string | undefined {
    return this.processor ? this.call((p) => p.currentMessageId) : undefined;
  }

  get hubStatus(): { status: HubStatus; detail?: string | null } {
    return this.processor ? this.call((p) => p.hubStatus) : { status: "disconnected" };
  }

  // The conversations, as the core keeps them.
  readonly conversations = (): Promise<Conversation[]> => this.call((p) => p.conversations());
  readonly conversationLines = (id: string): Promise<HistoryLine[]> => this.call((p) => p.conversationLines(id));
  readonly conversationPage = (id: string, before: number | undefined, limit: number): Promise<ConversationPage> =>
    this.call((p) => p.conversationPage(id, before, limit));
  readonly conversationUsage = (id: string): Promise<Usage> => this.call((p) => p.conversationUsage(id));
  readonly currentConversation = (): Promise<Conversation | null> => this.call((p) => p.currentConversation());
  readonly newConversation = (): Promise<void> => this.call((p) => p.newConversation());
  readonly openConversation = (id: string): Promise<Conversation> => this.call((p) => p.openConversation(id));
  /** Writes a conversation as a Markdown note (or what its note lacks); the note's path. */
  readonly exportConversation = (id: string): Promise<string> => this.call((p) => p.exportConversation(id));

  // Attachments (ui/attachments.ts): checked, read and copied by the core, shown as chips.
  readonly attachVault = (path: string): Promise<Attachment> => this.call((p) => p.attachVault(path));
  readonly attachBytes = (name: string, bytes: Uint8Array): Promise<Attachment> => this.call((p) => p.attachBytes(name, bytes));
  readonly mentions = (query: string, limit: number): Promise<Mention[]> => this.call((p) => p.mentions(query, limit));
  /** Why a pasted file of this size cannot be attached (asked before it is read), or undefined. */
  pasteSizeProblem(name: string, size: number): string | undefined {
    return this.core?.pasteSizeProblem(name, size);
  }
  /** The chat input's text for "Ask the agent about the selection". */
  selectionQuote(path: string, fromLine: number, toLine: number, text: string): string {
    return this.core?.selectionQuote(path, fromLine, toLine, text) ?? text;
  }

  /** The day's and the month's usage, for the settings. */
  usageTotals(): Promise<UsageTotals> {
    return this.call((p) => p.usageTotals());
  }

  checkConnection(): Promise<ConnectionCheck> {
    return this.call((p) => p.checkConnection());
  }

  clearHistory(): Promise<number> {
    return this.call((p) => p.clearHistory());
  }

  pendingApprovals(): ApprovalRequest[] {
    return this.processor ? this.call((p) => p.pendingApprovals()) : [];
  }

  /** The user's answer to an approval card (with the hunks accepted of a proposed change, when
   *  not all); rejects when the request is unknown or settled. */
  decideApproval(id: string, decision: ApprovalDecision, hunks?: number[]): Promise<ApprovalRequest> {
    return this.call((p) => p.decideApproval(id, decision, hunks));
  }

  /** What a turn asked and changed, for redrawing its cards. */
  readonly turnReview = (messageId: string): Promise<TurnReview> => this.call((p) => p.turnReview(messageId));
  /** Undoes a turn's changes to the notes, note by note. */
  readonly undoTurn = (messageId: string): Promise<UndoReport> => this.call((p) => p.undoTurn(messageId));

  recordSystemLine(text: string): Promise<string> {
    return this.call((p) => p.recordSystemLine(text));
  }

  /** New settings; throws with the core's message when they are invalid. */
  updateSettings(): void {
    if (!this.processor) return;
    const settings = this.options.settings();
    this.call((p) => p.updateSettings(settings));
    this.links.configureMcp(settings);
    void this.configureApi();
  }

  /** Opens and closes the agent API's listeners as the core's settings say. */
  async configureApi(): Promise<ApiListenerState[]> {
    if (!this.links.serving || !this.processor) return [];
    const states = await this.links.listen(this.call((p) => p.agentApiListeners()));
    this.dispatch({ type: "api_status", listeners: states });
    return states;
  }

  /** The agent API's listeners as they are now. */
  get apiStates(): ApiListenerState[] {
    return this.links.apiStates;
  }

  /** The /config document ("Download config"), with the token only when asked. */
  apiConfig(includeToken: boolean): Record<string, unknown> {
    return this.call((p) => p.agentApiConfig(includeToken));
  }

  /** A fresh agent API token (the settings keep it in secret storage). */
  newApiToken(): string {
    return this.call((p) => p.newApiToken());
  }

  scheduled(): Promise<Conversation[]> {
    return this.call((p) => p.scheduled());
  }

  changeSchedule(id: string, change: ScheduleChange): Promise<Conversation> {
    return this.call((p) => p.changeSchedule(id, change));
  }

  /** Stops everything: the message in flight, background work, timers, sockets. */
  dispose(): void {
    this.disposed = true;
    this.readyFlag = false;
    this.apiReady = false;
    this.links.close();
    const processor = this.processor;
    this.processor = null;
    try {
      processor?.dispose();
      processor?.free();
    } catch (error) {
      this.log("warn", `dispose: ${String(error)}`);
    }
    this.listeners.clear();
  }
}

export type { AgentMessage };
