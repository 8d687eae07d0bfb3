// The user's MCP servers, connected with the official MCP SDK: command-line servers over stdio
// (where a process can be started: the desktop app, Node) and remote ones over Streamable HTTP.
// The core decides which tools the model sees and what the user is told; this keeps the
// connections, lists tools, makes calls, and reports each server's state.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { McpServerConfig, McpServerInfo } from "smarthole-core";
import { PassThroughValidator } from "./ajv-free-validator.ts";

/** The SDK, loaded with the first integration: its message schemas are built when its modules
 * load, which plugin start-up need not pay for when there are no integrations. */
let sdk: Promise<{
  Client: typeof import("@modelcontextprotocol/sdk/client/index.js").Client;
  StreamableHTTPClientTransport: typeof import("@modelcontextprotocol/sdk/client/streamableHttp.js").StreamableHTTPClientTransport;
  ToolListChangedNotificationSchema: typeof import("@modelcontextprotocol/sdk/types.js").ToolListChangedNotificationSchema;
}> | null = null;

function loadSdk() {
  sdk ??= Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/types.js"),
  ]).then(([client, http, types]) => ({
    Client: client.Client,
    StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
    ToolListChangedNotificationSchema: types.ToolListChangedNotificationSchema,
  }));
  return sdk;
}

/** One configured server, as the core's settings define and validate it. */
export type { McpServerConfig };

/** Starts a command-line server's transport; absent where processes cannot be started. */
export type StdioFactory = (config: McpServerConfig) => Promise<Transport>;

type State = McpServerInfo["state"];

interface Connection {
  config: McpServerConfig;
  key: string;
  state: State;
  error?: string;
  client?: Client;
  tools: McpServerInfo["tools"];
  ready: Promise<void>;
  closed: boolean;
}

/** Whether an error means the server refused our credentials (the SDK's StreamableHTTPError
 * carries the HTTP status as `code`). */
function isUnauthorized(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (error instanceof Error && error.message.startsWith("Streamable HTTP error") && (code === 401 || code === 403)) return true;
  return error instanceof Error && error.name === "UnauthorizedError";
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** An error the core reads by its kind. */
function callError(kind: "not_connected" | "unauthorized" | "failed", text: string): Error {
  return Object.assign(new Error(text), { kind });
}

export class McpConnections {
  private readonly connections = new Map<string, Connection>();

  constructor(
    private readonly stdio: StdioFactory | null,
    private readonly log: (message: string) => void = () => {},
  ) {}

  /** Connects what is new or changed, closes what is gone. */
  configure(configs: McpServerConfig[]): void {
    const wanted = new Map(configs.map((c) => [c.name, c]));
    for (const [name, connection] of this.connections) {
      const config = wanted.get(name);
      if (!config || JSON.stringify(config) !== connection.key) this.close(name);
    }
    for (const config of configs) {
      if (!this.connections.has(config.name)) this.connect(config);
    }
  }

  /** Connects again (the user reconnected it in Settings). */
  reconnect(name: string): void {
    const connection = this.connections.get(name);
    if (!connection) return;
    this.close(name);
    this.connect(connection.config);
  }

  private connect(config: McpServerConfig): void {
    const connection: Connection = { config, key: JSON.stringify(config), state: "connecting", tools: [], ready: Promise.resolve(), closed: false };
    this.connections.set(config.name, connection);
    if (config.command && !this.stdio) {
      connection.state = "unsupported";
      connection.error = "command-line servers run on the desktop app only";
      return;
    }
    connection.ready = (async () => {
      try {
        const { Client, StreamableHTTPClientTransport, ToolListChangedNotificationSchema } = await loadSdk();
        const transport: Transport = config.command
          ? await this.stdio!(config)
          : new StreamableHTTPClientTransport(new URL(config.url ?? ""), { requestInit: { headers: config.headers ?? {}, redirect: "manual" } });
        const client = new Client(
          { name: "smarthole-agent", version: "0.1.0" },
          { capabilities: {}, jsonSchemaValidator: new PassThroughValidator() },
        );
        client.onclose = () => {
          if (!connection.closed && connection.state === "connected") {
            connection.state = "failed";
            connection.error = "the server closed the connection";
          }
        };
        await client.connect(transport);
        if (connection.closed) return void client.close();
        connection.client = client;
        client.setNotificationHandler(ToolListChangedNotificationSchema, () => void this.listTools(connection));
        await this.listTools(connection);
        connection.state = "connected";
        connection.error = undefined;
        this.log(`MCP server ${config.name}: connected, ${connection.tools.length} tools`);
      } catch (error) {
        connection.state = isUnauthorized(error) ? "unauthorized" : "failed";
        connection.error = message(error);
        this.log(`MCP server ${config.name}: ${connection.error}`);
      }
    })();
  }

  private async listTools(connection: Connection): Promise<void> {
    const tools: McpServerInfo["tools"] = [];
    let cursor: string | undefined;
    do {
      const page = await connection.client!.listTools(cursor ? { cursor } : {});
      for (const t of page.tools) tools.push({ name: t.name, description: t.description ?? t.title ?? "", inputSchema: t.inputSchema });
      cursor = page.nextCursor;
    } while (cursor);
    connection.tools = tools;
  }

  private close(name: string): void {
    const connection = this.connections.get(name);
    if (!connection) return;
    connection.closed = true;
    this.connections.delete(name);
    void connection.client?.close().catch(() => undefined);
  }

  /** Every configured server, once the connections under way are made or `waitMs` has passed
   * (the core says how long: `mcpConnectWaitMs`). */
  async servers(waitMs: number): Promise<McpServerInfo[]> {
    const pending = [...this.connections.values()].filter((c) => c.state === "connecting").map((c) => c.ready);
    if (pending.length > 0) {
      const timeout = new Promise<void>((resolve) => AbortSignal.timeout(waitMs).addEventListener("abort", () => resolve()));
      await Promise.race([Promise.all(pending), timeout]);
    }
    return [...this.connections.values()].map((c) => ({ name: c.config.name, state: c.state, error: c.error, tools: c.state === "connected" ? c.tools : [] }));
  }

  /** Calls a tool; `abort()` cancels it. A refusal of our credentials marks the server. */
  call(server: string, tool: string, input: unknown): { result: Promise<unknown>; abort(): void } {
    const controller = new AbortController();
    const connection = this.connections.get(server);
    const result = (async () => {
      if (!connection?.client || connection.state !== "connected") throw callError("not_connected", `${server} is not connected`);
      try {
        return await connection.client.callTool({ name: tool, arguments: (input ?? {}) as Record<string, unknown> }, undefined, { signal: controller.signal });
      } catch (error) {
        if (isUnauthorized(error)) {
          connection.state = "unauthorized";
          connection.error = message(error);
          throw callError("unauthorized", message(error));
        }
        throw callError("failed", message(error));
      }
    })();
    return { result, abort: () => controller.abort() };
  }

  /** Closes every connection (the plugin unloading). */
  closeAll(): void {
    for (const name of [...this.connections.keys()]) this.close(name);
  }
}
