// A scripted ACP agent inside the page (browser tests, the bench): the page cannot start
// programs, so this AgentSystem's `spawn` returns a child whose stdio answers the protocol's
// lines from a script — the core's real ACP client and the real AgentProcesses drive it. The
// script is `window.__acpScript`, read when a prompt arrives, in tests/node/fake-acp-agent.mjs's
// format (a subset: turns of chunk, toolCall, toolCallUpdate, plan, usage, update, permission —
// waited for — and sleep steps). What it read and wrote, with the page's time of each line, is
// kept in `window.__acp` for the tests to check.
import type { AgentSystem } from "../core/agent-process.ts";

type Json = Record<string, unknown>;
type Step = Json;
interface Script {
  turns?: { stopReason?: string; steps?: Step[] }[];
}
interface PageWindow {
  __acpScript?: Script;
  __acp?: { received: Json[]; written: { at: number; msg: Json }[]; starts: number };
}
type Listener = (...args: unknown[]) => void;

/** The few stream and process calls AgentProcesses makes of a child. */
class Emitter {
  private readonly listeners = new Map<string, Listener[]>();
  on(event: string, listener: Listener): this {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
    return this;
  }
  emit(event: string, ...args: unknown[]): void {
    for (const listener of this.listeners.get(event) ?? []) listener(...args);
  }
}

const record = (): NonNullable<PageWindow["__acp"]> => {
  const w = window as unknown as PageWindow;
  w.__acp ??= { received: [], written: [], starts: 0 };
  return w.__acp;
};

/** One scripted agent process. */
class PageAgent extends Emitter {
  readonly stdout = new Emitter();
  readonly stderr = new Emitter();
  readonly stdin: Emitter & { write(text: string): boolean; end(): void; destroyed: boolean; writable: boolean; writableLength: number };
  private buffer = "";
  private turn = 0;
  private prompt: { id: unknown; cancelled: boolean } | null = null;
  private readonly answers = new Map<string, (value: unknown) => void>();
  private closed = false;

  constructor(readonly pid: number) {
    super();
    const stdin = Object.assign(new Emitter(), {
      destroyed: false,
      writable: true,
      writableLength: 0,
      write: (text: string) => (this.read(text), true),
      end: () => this.close(0),
    });
    this.stdin = stdin;
    record().starts++;
    setTimeout(() => this.emit("spawn"), 0);
  }

  /** Ends the process (a signal, or its input closed). */
  close(code: number | null, signal: string | null = null): void {
    if (this.closed) return;
    this.closed = true;
    this.stdin.writable = false;
    setTimeout(() => (this.emit("exit", code, signal), this.emit("close", code, signal)), 0);
  }

  /** Writes a line as a process does: later, in its own task (never inside the write that
   * caused it), in order; `at` is when it is written. */
  private send(msg: Json): void {
    setTimeout(() => {
      if (this.closed) return;
      record().written.push({ at: performance.now(), msg });
      this.stdout.emit("data", new TextEncoder().encode(`${JSON.stringify({ jsonrpc: "2.0", ...msg })}\n`));
    }, 0);
  }

  private read(text: string): void {
    this.buffer += text;
    let end: number;
    while ((end = this.buffer.indexOf("\n")) >= 0) {
      const line = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 1);
      if (line.trim()) void this.handle(JSON.parse(line) as Json);
    }
  }

  private async handle(msg: Json): Promise<void> {
    record().received.push(msg);
    const params = (msg.params ?? {}) as Json;
    if (msg.method === undefined) {
      this.answers.get(String(msg.id))?.(msg.result);
      return;
    }
    switch (msg.method) {
      case "initialize":
        return this.send({ id: msg.id, result: { protocolVersion: 1, agentCapabilities: { loadSession: false }, authMethods: [] } });
      case "session/new":
        return this.send({ id: msg.id, result: { sessionId: `page-session-${record().starts}` } });
      case "session/cancel":
        if (this.prompt) this.prompt.cancelled = true;
        return;
      case "session/prompt":
        return this.play(msg.id, String(params.sessionId));
      default:
        return this.send({ id: msg.id, error: { code: -32601, message: `Method not found: ${JSON.stringify(msg.method)}` } });
    }
  }

  private async play(id: unknown, sessionId: string): Promise<void> {
    const script = (window as unknown as PageWindow).__acpScript ?? {};
    const turn = script.turns?.[this.turn++] ?? { steps: [{ chunk: "ok" }] };
    const prompt = { id, cancelled: false };
    this.prompt = prompt;
    const update = (sessionUpdate: string, fields: Json) => this.send({ method: "session/update", params: { sessionId, update: { sessionUpdate, ...fields } } });
    for (const step of turn.steps ?? []) {
      if (prompt.cancelled) break;
      if (typeof step.chunk === "string") update("agent_message_chunk", { content: { type: "text", text: step.chunk } });
      else if (step.toolCall) update("tool_call", step.toolCall as Json);
      else if (step.toolCallUpdate) update("tool_call_update", step.toolCallUpdate as Json);
      else if (step.plan) update("plan", { entries: step.plan });
      else if (step.usage) update("usage_update", step.usage as Json);
      else if (step.update) this.send({ method: "session/update", params: { sessionId, update: step.update } });
      else if (typeof step.sleep === "number") await new Promise((r) => setTimeout(r, step.sleep as number));
      else if (step.permission) await this.ask(sessionId, step.permission as Json);
    }
    this.prompt = null;
    this.send({ id, result: { stopReason: prompt.cancelled ? "cancelled" : (turn.stopReason ?? "end_turn") } });
  }

  private ask(sessionId: string, permission: Json): Promise<unknown> {
    const id = `perm-${this.answers.size + 1}`;
    const options = permission.options ?? [
      { optionId: "allow", name: "Allow", kind: "allow_once" },
      { optionId: "reject", name: "Reject", kind: "reject_once" },
    ];
    const answered = new Promise((resolve) => this.answers.set(id, resolve));
    this.send({ id, method: "session/request_permission", params: { sessionId, toolCall: permission.toolCall, options } });
    return answered;
  }
}

/** The page's AgentSystem: every program it "starts" is the scripted agent. */
export function pageAgentSystem(): AgentSystem {
  const children = new Map<number, PageAgent>();
  let next = 1000;
  return {
    spawn: (() => {
      const child = new PageAgent(next++);
      children.set(child.pid, child);
      return child;
    }) as unknown as AgentSystem["spawn"],
    kill: (pid, signal) => children.get(Math.abs(pid))?.close(null, signal),
    env: () => ({ PATH: "/usr/bin:/bin", HOME: "/home/page" }),
    groups: true,
    onExit: () => {},
    // No leftovers to find in a page: nothing outlives it.
    readFile: () => null,
    writeFile: () => {},
    commandLine: () => null,
    after: (ms, then) => {
      const timer = window.setTimeout(then, ms);
      return () => window.clearTimeout(timer);
    },
  };
}
