// The core's links to the outside, wired one way for every host: the hub's sockets (their
// events go to the processor), the user's MCP servers (connected as the accepted settings list
// them), the agent API's listeners (requests handed to the core, ports as the core says) and the
// user's coding agent's processes (agent-process.ts; their output and exits go to the processor).
// CoreRuntime uses this for every host (plugin, page, headless command), nodeHost for in-process use.
import type { ApiRequest, ApiResponse, CoreHost, CoreSettings, LogLevel, MessageProcessor } from "smarthole-core";
import { HubSockets, type SocketLike } from "./hub-sockets.ts";
import { McpConnections, type StdioFactory } from "./mcp.ts";
import { AgentApiServer, type ApiListener, type ApiListenerState } from "./agent-api-server.ts";
import type { LinkedHost } from "./compose-host.ts";
import { AgentProcesses, type AgentHost, type AgentSystem } from "./agent-process.ts";
import type { LeftoverRule } from "./agent-leftovers.ts";

export interface LinkOptions {
  openSocket: (url: string) => SocketLike;
  /** Starts command-line MCP servers; null where processes cannot be started (mobile, a page). */
  mcpStdio: StdioFactory | null;
  /** Imports Node's http module for the agent API; null where no server can listen. */
  loadHttp: (() => Promise<typeof import("node:http")>) | null;
  log: (level: LogLevel, message: string) => void;
  /** Node's process calls, for the coding agent's processes; null or absent where programs
   * cannot be started (mobile, a page). */
  agentSystem?: (() => AgentSystem | null) | null;
  /** The vault's folder on disk (an agent works there); null where it has none. */
  vaultFolder?: () => string | null;
}

/** The processor's calls the links' events make: the hub's sockets, the agent's processes. */
export type LinkEvents = Pick<MessageProcessor, "hubOpened" | "hubFrame" | "hubClosed" | "agentOutput" | "agentExited">;

/** The `smarthole` tools' own listener as bound: its port, or why it could not open (neither:
 * closed). */
export interface ToolsListenerState {
  port: number | null;
  error: string | null;
}

/** Where agent API requests go, and how the listeners report. */
export interface ApiWiring {
  /** The core's `agentApiBodyLimit()`. */
  bodyLimit: number;
  /** The core's answer for a request that failed (`agentApiFallbacks().internalError`). */
  internalError: ApiResponse;
  handle: (request: ApiRequest) => Promise<ApiResponse>;
  /** Where requests to the `smarthole` tools' own listener go (the core's
   * `handleAgentToolsRequest`); without it that listener is never opened. */
  handleTools?: (request: ApiRequest) => Promise<ApiResponse>;
  /** Listening, failing to listen, a request that failed; defaults to the info log. */
  log?: (message: string) => void;
}


export class CoreLinks implements LinkedHost, AgentHost {
  readonly hub: HubSockets;
  /** The user's MCP servers. */
  readonly mcp: McpConnections;
  /** The user's coding agent's processes (ACP). */
  readonly agents: AgentProcesses;
  private api: AgentApiServer | null = null;
  /** The `smarthole` MCP server's own listener (127.0.0.1, a port the system picks). */
  private tools: AgentApiServer | null = null;

  constructor(private readonly options: LinkOptions) {
    this.hub = new HubSockets(options.openSocket, (message) => options.log("debug", message));
    this.mcp = new McpConnections(options.mcpStdio, (message) => options.log("info", message));
    // The agents started are recorded in the vault's .smarthole/ (ended at the next start if a
    // killed host left them).
    const recordFile = () => {
      const folder = options.vaultFolder?.() ?? null;
      return folder === null ? null : `${folder}/.smarthole/agent-processes.json`;
    };
    this.agents = new AgentProcesses({ system: options.agentSystem ?? null, folder: options.vaultFolder, recordFile, log: (message) => options.log("debug", message) });
  }

  /**
   * Sends hub socket events to the processor, and agent API requests to `api.handle` (the
   * server is made once, where something can listen); keeps the core's `leftovers` rule for the
   * agents a killed host left, applied by `endLeftovers()` or before the first agent starts.
   */
  attach(processor: LinkEvents, api: ApiWiring, leftovers: LeftoverRule): void {
    this.hub.events = {
      opened: (socket) => processor.hubOpened(socket),
      frame: (socket, text) => processor.hubFrame(socket, text),
      closed: (socket, why) => processor.hubClosed(socket, why),
    };
    this.agents.events = {
      agentOutput: (id, chunk) => processor.agentOutput(id, chunk),
      agentExited: (id, code, signal, error, stderrTail) => processor.agentExited(id, code, signal, error, stderrTail),
    };
    this.agents.endLeftoversLater(leftovers);
    const loadHttp = this.options.loadHttp;
    if (loadHttp && !this.api) {
      const log = api.log ?? ((message: string) => this.options.log("info", message));
      this.api = new AgentApiServer(api.handle, api.bodyLimit, api.internalError, loadHttp, log);
    }
    if (loadHttp && !this.tools && api.handleTools) {
      const log = (message: string) => this.options.log("info", message);
      this.tools = new AgentApiServer(api.handleTools, api.bodyLimit, api.internalError, loadHttp, log, "SmartHole's tools for the agent");
    }
  }

  /** Opens (`wanted`) or closes the `smarthole` tools' own listener, on a port the system
   * picks; the state is for the core's `agentToolsListening`. */
  async listenTools(wanted: boolean): Promise<ToolsListenerState> {
    if (!this.tools) return { port: null, error: wanted ? "this host cannot listen on a local port" : null };
    const [state] = await this.tools.configure(wanted ? [{ port: 0 }] : []);
    if (!state) return { port: null, error: null };
    return state.listening && state.boundPort ? { port: state.boundPort, error: null } : { port: null, error: state.error ?? "not listening" };
  }

  /** The core accepted these settings: connect the integrations they list. */
  configureMcp(settings: CoreSettings): void {
    this.mcp.configure(settings.mcpServers ?? []);
  }

  /** Opens and closes the agent API's listeners as the core's `agentApiListeners()` says. */
  listen(listeners: ApiListener[]): Promise<ApiListenerState[]> {
    return this.api ? this.api.configure(listeners) : Promise.resolve([]);
  }

  /** Whether there is an agent API server (something can listen and `attach` was called). */
  get serving(): boolean {
    return this.api !== null;
  }

  /** The agent API's listeners as they are now. */
  get apiStates(): ApiListenerState[] {
    return this.api?.states() ?? [];
  }

  /** Ends the agents a killed host left, as the rule `attach` was given says (once Send is
   * enabled: the runtime calls it then). */
  endLeftovers(): void {
    this.agents.endLeftovers();
  }

  /** Closes the hub sockets, the MCP connections, the agent API's listeners and the tools'
   * listener, and stops the agent's processes. */
  close(): void {
    this.agents.stopAll();
    this.hub.closeAll();
    this.mcp.closeAll();
    this.api?.close();
    this.tools?.close();
  }

  mcpServers(waitMs: number): ReturnType<CoreHost["mcpServers"]> {
    return this.mcp.servers(waitMs);
  }

  mcpCall(server: string, tool: string, input: unknown): ReturnType<CoreHost["mcpCall"]> {
    return this.mcp.call(server, tool, input);
  }

  hubConnect(socket: number, url: string): void {
    this.hub.connect(socket, url);
  }

  hubDisconnect(socket: number): void {
    this.hub.disconnect(socket);
  }

  hubSend(socket: number, frame: string): void {
    this.hub.send(socket, frame);
  }

  agentStart(process: number, command: string, args: string[], env: Record<string, string>, cwd: string): void {
    this.agents.agentStart(process, command, args, env, cwd);
  }

  agentWrite(process: number, text: string): void {
    this.agents.agentWrite(process, text);
  }

  agentStop(process: number): void {
    this.agents.agentStop(process);
  }

  environment(): Record<string, string> {
    return this.agents.environment();
  }

  agentFolder(): string | null {
    return this.agents.agentFolder();
  }
}
