// The hub's WebSocket(s) for any host: the browser's WebSocket inside Obsidian, `ws` in Node —
// both speak the same event API. No decisions here: the core says when to connect, what to
// send and when to close; this reports what the sockets do.

/** Where socket events go (the processor's hubOpened / hubFrame / hubClosed). */
export interface HubEvents {
  opened(socket: number): void;
  frame(socket: number, text: string): void;
  closed(socket: number, why: string): void;
}

/** What we use of a WebSocket (browser `WebSocket` and `ws` both have it). */
export interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: "open", listener: () => void): void;
  addEventListener(type: "message", listener: (event: { data: unknown }) => void): void;
  addEventListener(type: "close", listener: (event: { code: number; reason: string }) => void): void;
  addEventListener(type: "error", listener: (event: unknown) => void): void;
}

const OPEN = 1;

export class HubSockets {
  private readonly sockets = new Map<number, SocketLike>();
  /** Set once the processor exists. */
  events: HubEvents | null = null;

  constructor(
    private readonly open: (url: string) => SocketLike,
    private readonly log: (message: string) => void = () => {},
  ) {}

  connect(socket: number, url: string): void {
    let ws: SocketLike;
    try {
      ws = this.open(url);
    } catch (error) {
      queueMicrotask(() => this.events?.closed(socket, `cannot connect: ${(error as Error).message}`));
      return;
    }
    this.sockets.set(socket, ws);
    ws.addEventListener("open", () => this.events?.opened(socket));
    ws.addEventListener("message", (event) => {
      if (typeof event.data === "string") this.events?.frame(socket, event.data);
      else this.log(`hub socket ${socket}: a binary frame was ignored`);
    });
    ws.addEventListener("error", () => this.log(`hub socket ${socket}: error`));
    ws.addEventListener("close", (event) => {
      if (this.sockets.get(socket) === ws) this.sockets.delete(socket);
      const why = event.code === 1006 ? "connection lost" : `closed (${event.code}${event.reason ? `: ${event.reason}` : ""})`;
      this.events?.closed(socket, why);
    });
  }

  disconnect(socket: number): void {
    const ws = this.sockets.get(socket);
    this.sockets.delete(socket);
    ws?.close(1000, "closing");
  }

  send(socket: number, frame: string): void {
    const ws = this.sockets.get(socket);
    if (ws?.readyState === OPEN) ws.send(frame);
    else this.log(`hub socket ${socket} is not open; frame dropped`);
  }

  /** Closes every socket (the plugin unloading, the headless host exiting). */
  closeAll(): void {
    for (const ws of this.sockets.values()) ws.close(1001, "going away");
    this.sockets.clear();
  }
}
