// The core's start-up and life, one for every host: the Obsidian plugin, a page (browser tests,
// the demo) and the headless command. It composes the host from the platform's parts
// (compose-host.ts), starts the core — initialised, the search index building, the vault
// watched, what an earlier run left in the inbox finished, the agent API listening — fans its
// events out to the views, and hands out its processor (guarded-core.ts): one binding, whatever
// instance is current. A trap rebuilds the core: a fresh instance, the user told, the inbox (on
// disk) finished by the new one. The shim decides nothing else: the core does.
import type { CoreEvent, CoreHost, CoreSettings, LogLevel, MessageProcessor, PlatformFacts, PlatformFeatures, ProcessResult, ProviderPreset, AgentPreset, ReprocessSummary } from "smarthole-core";
import type { SocketLike } from "./hub-sockets.ts";
import type { McpConnections, StdioFactory } from "./mcp.ts";
import type { AgentSystem } from "./agent-process.ts";
import { newCore, type Core, type Inflate } from "./load.ts";
import type { ApiListenerState } from "./agent-api-server.ts";
import { CoreLinks } from "./links.ts";
import { composeHost, type HostIO, type VaultIO } from "./compose-host.ts";
import { guardedCore, isTrap, type CoreCalls, type CoreFunctions } from "./guarded-core.ts";
import { restartedResult, type RuntimeEvent } from "./runtime-event.ts";

export type { CoreCalls, HostIO, RuntimeEvent, VaultIO };

/** What a platform brings: its files, notes, sockets, and what it can start or listen with. */
export interface Platform {
  io: HostIO;
  vault: VaultIO;
  openSocket: (url: string) => SocketLike;
  /** Starts command-line MCP servers; null where processes cannot be started (mobile, a page). */
  mcpStdio?: StdioFactory | null;
  /** Imports Node's http module for the agent API; null where no server can listen (mobile, a page). */
  loadHttp?: (() => Promise<typeof import("node:http")>) | null;
  /** A phone or tablet (Obsidian's mobile app), where there is no hub to reach. */
  mobile?: boolean;
  /** The user's IANA time zone (default: the platform's). */
  timeZone?: () => string;
  /** Node's process calls, for the user's coding agent (ACP); null where programs cannot be
   * started (mobile, a page). */
  agentSystem?: (() => AgentSystem | null) | null;
  /** The vault's folder on disk (where an agent works); null where it has none. */
  vaultFolder?: () => string | null;
  /** Inflates the core's wasm synchronously where the platform can (core/load.ts). */
  inflate?: Inflate | null;
  /** The vault's configuration folder (Obsidian's `Vault#configDir`): the core protects it. */
  configFolder: string;
  /** Reports the vault's changes, for the search index; returns how to stop, if it must be told. */
  watchVault?: (changed: (path: string, kind: string) => void) => (() => void) | void;
}

export interface RuntimeOptions extends Platform {
  /** Settings as the core takes them (the API key included, never persisted by the core). */
  settings: () => CoreSettings;
  log?: (level: LogLevel, message: string) => void;
  /** The user must be told something (a Notice in Obsidian). */
  notify?: (text: string) => void;
  /** Every event as the core emits it, synchronously (the headless printer and crash hook); the
   * views subscribe() instead. It must not call back into the processor. */
  onEvent?: (event: CoreEvent) => void;
  /** Where the agent API's listeners report (default: the info log). */
  apiLog?: (message: string) => void;
  /** false: a trap is not recovered from (the headless command stops, as a process does). */
  rebuildOnTrap?: boolean;
}

/** What a start found and opened. */
export interface Started {
  pending: ReprocessSummary;
  listeners: ApiListenerState[];
}

/** Rebuilds allowed in ten minutes before the runtime gives up and asks for a reload. */
const MAX_REBUILDS = 3;
const REBUILD_WINDOW_MS = 10 * 60_000;

export class CoreRuntime {
  /** Hub sockets, MCP servers, agent API listeners. */
  private readonly links: CoreLinks;
  private readonly host: CoreHost;
  private loaded: Core | null = null;
  private instance: MessageProcessor | null = null;
  /** The instance's calls, its lifecycle included (the runtime's own use). */
  private readonly own: MessageProcessor & CoreFunctions;
  /** The processor's calls, for views and hosts: one object for the runtime's whole life. */
  readonly processor: CoreCalls;
  private readonly listeners = new Set<(event: RuntimeEvent) => void>();
  private readyFlag = false;
  private rebuilding = false;
  private rebuilds: number[] = [];
  private disposed = false;
  private unwatch: (() => void) | null = null;
  /** The core has loaded what the agent API answers about (pending verifications). */
  private apiReady = false;
  /** The listeners' last (re)configuration, the next one waits for it. */
  private configuring: Promise<unknown> = Promise.resolve();
  /** What the settings draw from the core (its defaults, presets, what this device offers):
   * asked of it when first drawn, not at load, before Send is enabled (issue 37). */
  private drawn: { defaults?: Required<CoreSettings>; presets?: ProviderPreset[]; agents?: AgentPreset[]; features?: PlatformFeatures } = {};

  constructor(private readonly options: RuntimeOptions) {
    const log = (level: LogLevel, message: string) => this.log(level, message);
    this.links = new CoreLinks({ openSocket: options.openSocket, mcpStdio: options.mcpStdio ?? null, loadHttp: options.loadHttp ?? null, log, agentSystem: options.agentSystem, vaultFolder: options.vaultFolder });
    this.host = composeHost({ io: options.io, vault: options.vault, links: this.links, emit: (event) => this.emitted(event), log, timeZone: options.timeZone, configFolder: options.configFolder });
    this.own = guardedCore(() => ({ processor: this.instance, module: this.loaded }), (error) => this.reportError(error));
    this.processor = this.own;
  }

  /** The core's default settings, once it is loaded. */
  get defaults(): Required<CoreSettings> | null {
    return this.loaded ? (this.drawn.defaults ??= this.loaded.defaultSettings()) : null;
  }

  get presets(): ProviderPreset[] {
    return this.loaded ? (this.drawn.presets ??= this.loaded.providerPresets()) : [];
  }

  /** The agents the settings offer (the core's `agentPresets`). */
  get agents(): AgentPreset[] {
    return this.loaded ? (this.drawn.agents ??= this.loaded.agentPresets()) : [];
  }

  /** What this device lets the plugin offer, as the core decides it from the platform's facts
   *  (`reportPlatform` at start), once it is loaded; the settings and commands draw it. */
  get features(): PlatformFeatures | null {
    return this.loaded ? (this.drawn.features ??= this.loaded.platformFeatures(this.facts())) : null;
  }

  /** The user's MCP servers. */
  get mcp(): McpConnections {
    return this.links.mcp;
  }

  /** Whether the core has initialised and finished the inbox. */
  get ready(): boolean {
    return this.readyFlag;
  }

  /** Whether there is an instance to call (from its construction, before it is ready: Stop
   *  reaches a message an earlier run left, pure calls answer). */
  get started(): boolean {
    return this.instance !== null;
  }

  /** The loaded core module (its memory; its functions are the processor's too), null before
   *  load(). */
  get core(): Core | null {
    return this.loaded;
  }

  /** The agent API's listeners as they are now. */
  get apiStates(): ApiListenerState[] {
    return this.links.apiStates;
  }

  subscribe(listener: (event: RuntimeEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * The result of a message sent or processed just now — ask before awaiting anything else: it
   * is the message's `response` event, the one way every result arrives; a core that traps
   * first gives `core_restarted` (the new core answers the message later).
   */
  resultOf(messageId: string): Promise<ProcessResult> {
    return new Promise((resolve) => {
      const stop = this.subscribe((event) => {
        if (event.type === "response" && event.result.messageId === messageId) resolve(event.result);
        else if (event.type === "core_restarted") resolve(restartedResult(messageId));
        else return;
        stop();
      });
    });
  }

  private emitted(event: CoreEvent): void {
    this.options.onEvent?.(event);
    // A stored job changed whether the tools' listener is wanted: reconfigured as after a
    // settings change, once the core's call has returned.
    if (event.type === "agent_tools_wanted") queueMicrotask(() => void this.configureApi());
    this.dispatch(event);
  }

  private dispatch(event: RuntimeEvent): void {
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

  /** What the platform can do, as it reports it: the core decides what follows. */
  private facts(): PlatformFacts {
    return { mobile: this.options.mobile ?? false, canStartPrograms: Boolean(this.options.mcpStdio) || Boolean(this.options.agentSystem), canListen: Boolean(this.options.loadHttp) };
  }

  /** Loads the core module (once per instance): its defaults and presets can be asked from then. */
  async load(): Promise<Core> {
    if (this.loaded) return this.loaded;
    const core = await newCore(this.options.inflate);
    this.loaded = core;
    return core;
  }

  /** Builds the processor, initialises it and finishes the inbox; then the views may send.
   * Null when the runtime was disposed meanwhile. */
  async start(): Promise<Started | null> {
    performance.mark("smarthole:start");
    const core = await this.load();
    if (this.disposed) return null;
    performance.mark("smarthole:core-loaded");
    const settings = this.options.settings();
    this.instance = new core.MessageProcessor(this.host, settings);
    this.drawn.features = this.instance.reportPlatform(this.facts());
    // The core's answers for when it cannot answer: written by it, sent as they are.
    const { notReady, internalError } = core.agentApiFallbacks();
    this.links.attach(this.processor, {
      bodyLimit: core.agentApiBodyLimit(),
      internalError,
      handle: (request) => (this.apiReady ? this.processor.handleApiRequest(request) : Promise.resolve(notReady)),
      handleTools: (request) => (this.apiReady ? this.processor.handleAgentToolsRequest(request) : Promise.resolve(notReady)),
      log: this.options.apiLog,
    }, (recorded, commandLine) => core.agentLeftovers(recorded, commandLine));
    this.unwatch ??=
      this.options.watchVault?.((path, kind) => {
        if (this.instance) this.processor.vaultChanged(path, kind);
      }) ?? null;
    // Checked by the core just now: connect the integrations it accepted.
    this.links.configureMcp(settings);
    await this.own.initialize();
    this.apiReady = true;
    const listening = this.configureApi();
    performance.mark("smarthole:initialized");
    const pending = await this.own.reprocessPending();
    performance.mark("smarthole:ready");
    if (pending.results.length > 0) this.log("info", `finished ${pending.results.length} message(s) left by an earlier run`);
    this.readyFlag = true;
    this.dispatch({ type: "ready" });
    // Background work waits until Send is enabled: at 10,000 notes the index's listing and
    // its file would otherwise share the start with the inbox (issue 37); so do the agents a
    // killed host left (unless one started meanwhile: they were ended just before it).
    this.processor.startSearchIndex();
    this.links.endLeftovers();
    return { pending, listeners: await listening };
  }

  /** Any error seen by the shim (also from the window's error handlers): a trap rebuilds. */
  reportError(error: unknown): void {
    if (isTrap(error) && !this.disposed && this.options.rebuildOnTrap !== false) void this.rebuild(error);
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
    const old = this.instance;
    this.instance = null;
    this.loaded = null;
    this.apiReady = false;
    this.links.hub.closeAll();
    // The new core knows nothing of the old one's agent sessions.
    this.links.agents.stopAll();
    try {
      // Thrown away whole, as at unload; its handle is taken before the call, so that the
      // collector never frees it into the trapped instance later.
      old?.discard();
    } catch {
      // A trapped instance may refuse even this; it is dropped either way.
    }
    this.options.notify?.("SmartHole Agent restarted its core after an internal error. No message was lost.");
    this.dispatch({ type: "core_restarted" });
    try {
      await this.start();
    } finally {
      this.rebuilding = false;
    }
  }

  /** New settings (asked of options.settings() again): the core checks them — throws with its
   * message when they are invalid — then the integrations and the agent API follow them. */
  updateSettings(): void {
    if (!this.instance) return;
    const settings = this.options.settings();
    this.own.updateSettings(settings);
    this.links.configureMcp(settings);
    void this.configureApi();
  }

  /** Opens and closes the agent API's listeners, and the `smarthole` tools' own one, as the
   * core's settings say; the tools' port (or why not) goes back to the core. */
  configureApi(): Promise<ApiListenerState[]> {
    // One at a time: two overlapping ones would each open the tools' listener.
    const next = this.configuring.then(() => this.configureNow());
    this.configuring = next.catch(() => undefined);
    return next;
  }

  private async configureNow(): Promise<ApiListenerState[]> {
    if (!this.instance) return [];
    const instance = this.instance;
    const tools = await this.links.listenTools(this.processor.agentToolsListener());
    // A core rebuilt meanwhile is told by its own start.
    if (this.instance === instance) this.processor.agentToolsListening(tools.port ?? undefined, tools.error ?? undefined);
    if (!this.links.serving || !this.instance) return [];
    const states = await this.links.listen(this.processor.agentApiListeners());
    this.dispatch({ type: "api_status", listeners: states });
    return states;
  }

  /** Stops everything: the message in flight, background work, timers, sockets, the watcher. */
  dispose(): void {
    this.disposed = true;
    this.readyFlag = false;
    this.apiReady = false;
    this.links.close();
    this.unwatch?.();
    const instance = this.instance;
    this.instance = null;
    try {
      // The instance is this runtime's own and goes with it: its state is left unfreed (freeing
      // a large search index would hold the event loop for nothing).
      instance?.discard();
    } catch (error) {
      this.log("warn", `dispose: ${String(error)}`);
    }
    this.listeners.clear();
  }
}
