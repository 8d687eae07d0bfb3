// The agent API's HTTP listeners (desktop and Node only): bound to 127.0.0.1, each request read
// up to the core's size limit and handed to the core as is; the core's answer is written back.
// Who may call, which endpoint, and what the answer is are all decided in the core — the 500 sent
// when answering failed too (the core's `agentApiFallbacks()`, taken when it was loaded).
import type { ApiRequest, ApiResponse } from "smarthole-core";

// Types only: the module itself is imported lazily, on the desktop, through `loadHttp`.
type Http = typeof import("node:http");
type IncomingMessage = import("node:http").IncomingMessage;
type ServerResponse = import("node:http").ServerResponse;
type Server = import("node:http").Server;

/** A port the core wants served. */
export interface ApiListener {
  port: number;
  context?: string;
}

/** How a listener is doing, for the settings tab and the headless log. */
export interface ApiListenerState extends ApiListener {
  listening: boolean;
  error?: string;
  /** The port actually bound (the system's pick for port 0). */
  boundPort?: number;
}

/** The body up to `limit` bytes, and whether there was more (then reading stops). */
function readBody(request: IncomingMessage, limit: number): Promise<{ body: string; tooLarge: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    request.on("data", (chunk: Uint8Array) => {
      size += chunk.length;
      if (size > limit) {
        request.pause();
        resolve({ body: "", tooLarge: true });
      } else {
        chunks.push(chunk);
      }
    });
    request.on("end", () => resolve({ body: new TextDecoder().decode(concat(chunks, size)), tooLarge: false }));
    request.on("error", reject);
    // A client gone before the end of its body: nobody to answer (settling twice is a no-op).
    request.on("close", () => reject(new Error("the client closed the connection")));
  });
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(Math.min(size, chunks.reduce((n, c) => n + c.length, 0)));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

function headersOf(request: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

export class AgentApiServer {
  private readonly servers = new Map<number, { server: Server; state: ApiListenerState }>();
  private http: Http | null = null;

  /**
   * `handle` is the core's `handleApiRequest`; `bodyLimit` its `agentApiBodyLimit()`;
   * `internalError` the core's answer for a request `handle` failed on; `loadHttp` imports
   * Node's http module (only when a listener is first wanted).
   */
  constructor(
    private readonly handle: (request: ApiRequest) => Promise<ApiResponse>,
    private readonly bodyLimit: number,
    private readonly internalError: ApiResponse,
    private readonly loadHttp: () => Promise<Http>,
    private readonly log: (message: string) => void,
    /** What the log calls these listeners. */
    private readonly label = "agent API",
  ) {}

  /** Serves exactly these ports: new ones are opened, ones no longer wanted closed. */
  async configure(listeners: ApiListener[]): Promise<ApiListenerState[]> {
    const wanted = new Map(listeners.map((l) => [l.port, l]));
    for (const [port, { server }] of this.servers) {
      const want = wanted.get(port);
      if (!want) {
        this.closeServer(port, server);
      } else {
        this.servers.get(port)!.state.context = want.context;
      }
    }
    const opening = listeners.filter((l) => !this.servers.has(l.port) || !this.servers.get(l.port)!.state.listening);
    if (opening.length > 0 && !this.http) {
      try {
        this.http = await this.loadHttp();
      } catch (error) {
        // No server can run here after all: each listener says why, nothing is thrown.
        const why = `could not load Node's http module: ${error instanceof Error ? error.message : String(error)}`;
        this.log(`${this.label}: ${why}`);
        return [...this.states().filter((s) => !opening.some((l) => l.port === s.port)), ...opening.map((l) => ({ ...l, listening: false, error: why }))];
      }
    }
    await Promise.all(opening.map((l) => this.open(l)));
    return this.states();
  }

  states(): ApiListenerState[] {
    return [...this.servers.values()].map(({ state }) => ({ ...state }));
  }

  private open(listener: ApiListener): Promise<void> {
    const previous = this.servers.get(listener.port);
    if (previous) this.closeServer(listener.port, previous.server);
    const server = this.http!.createServer((request, response) => void this.serve(request, response));
    const state: ApiListenerState = { ...listener, listening: false };
    this.servers.set(listener.port, { server, state });
    return new Promise((resolve) => {
      server.once("error", (error: Error & { code?: string }) => {
        state.error =
          error.code === "EADDRINUSE"
            ? `port ${listener.port} is already in use by another program; choose another port in the settings`
            : `could not listen on 127.0.0.1:${listener.port}: ${error.message}`;
        this.log(`${this.label}: ${state.error}`);
        resolve();
      });
      server.listen(listener.port, "127.0.0.1", () => {
        state.listening = true;
        const address = server.address();
        state.boundPort = typeof address === "object" && address !== null ? address.port : listener.port;
        this.log(`${this.label} listening on http://127.0.0.1:${state.boundPort}`);
        resolve();
      });
    });
  }

  private async serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    let answer: ApiResponse;
    let tooLarge = false;
    try {
      const read = await readBody(request, this.bodyLimit);
      tooLarge = read.tooLarge;
      answer = await this.handle({
        method: request.method ?? "GET",
        url: request.url ?? "/",
        headers: headersOf(request),
        body: read.body,
        bodyTooLarge: read.tooLarge,
        localPort: request.socket.localPort ?? 0,
      });
    } catch (error) {
      // The path only: a query may carry what the caller should not have sent (a token).
      this.log(`${this.label}: ${request.method} ${(request.url ?? "/").split("?")[0]}: ${String(error)}`);
      answer = this.internalError;
    }
    if (response.destroyed) return;
    const headers: Record<string, string | number> = {
      "Content-Type": "application/json; charset=utf-8",
      "Cache-Control": "no-store",
      "Content-Length": new TextEncoder().encode(answer.body).length,
    };
    for (const [name, value] of answer.headers ?? []) headers[name] = value;
    // The rest of an oversized body is not read: the connection cannot be reused.
    if (tooLarge) headers.Connection = "close";
    response.writeHead(answer.status, headers);
    response.end(answer.body, () => {
      if (tooLarge) request.destroy();
    });
  }

  private closeServer(port: number, server: Server): void {
    server.close();
    server.closeAllConnections?.();
    this.servers.delete(port);
  }

  /** Stops every listener (the plugin unloading). */
  close(): void {
    for (const [port, { server }] of [...this.servers]) this.closeServer(port, server);
  }
}
