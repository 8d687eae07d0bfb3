// The user's coding agent (Claude Code, Codex, Gemini CLI, opencode, a custom ACP command) as a
// process, for every host that can start one: Node (the headless command) and the desktop app
// (Electron, Node's child_process). Moved like the hub's sockets: the core chooses the process
// id, the program, its arguments, its whole environment and its folder, and reads and writes
// the protocol's lines; this only spawns, moves bytes and reports. Each process runs in its own
// process group, so stopping it ends whatever it started too (SIGTERM, SIGKILL after a grace),
// and every process still running is ended when the host stops (plugin unload, the headless
// command's exit, whatever ends it).
import type { CoreHost } from "smarthole-core";
import { AgentRecords, type LeftoverRule } from "./agent-leftovers.ts";

type ChildProcessWithoutNullStreams = import("node:child_process").ChildProcessWithoutNullStreams;

/** What this uses of Node (child_process and process), passed in: the desktop app requires
 * them, the headless host imports them, and nothing here touches a global. */
export interface AgentSystem {
  spawn: (typeof import("node:child_process"))["spawn"];
  /** process.kill: a negative pid signals a process group. */
  kill(pid: number, signal: string): void;
  /** This process's environment. */
  env(): Record<string, string | undefined>;
  /** Whether process groups exist (everywhere but Windows). */
  groups: boolean;
  /** Runs `then` synchronously when this process exits (also after an uncaught error). */
  onExit(then: () => void): void;
  /** Runs `then` in `ms`; the returned function cancels it. It never keeps a process alive. */
  after(ms: number, then: () => void): () => void;
  /** A file's text (null: none), and a file written: the record of the agents started. */
  readFile(path: string): string | null;
  writeFile(path: string, text: string): void;
  /** Process `pid`'s command line (null: no such process), checked before a leftover is ended. */
  commandLine(pid: number): string | null;
}

/** Timers as Node and the window both have them. */
export interface Timers {
  setTimeout(then: () => void, ms: number): unknown;
  clearTimeout(timer: never): void;
}

/** The AgentSystem of Node's `child_process`, `process` and (to record the agents started) `fs`. */
export function agentSystem(
  childProcess: Pick<typeof import("node:child_process"), "spawn"> & Partial<Pick<typeof import("node:child_process"), "execFileSync">>,
  proc: Pick<typeof import("node:process"), "kill" | "env" | "platform" | "on">,
  timers: Timers,
  fs?: Pick<typeof import("node:fs"), "readFileSync" | "writeFileSync">,
): AgentSystem {
  const readText = (file: string): string | null => {
    try {
      return fs ? fs.readFileSync(file, "utf8") : null;
    } catch {
      return null;
    }
  };
  return {
    readFile: readText,
    writeFile: (file, text) => fs?.writeFileSync(file, text),
    commandLine: (pid) => {
      const procLine = readText(`/proc/${pid}/cmdline`);
      if (procLine !== null) return procLine.split("\0").join(" ").trim();
      if (!childProcess.execFileSync) return null;
      try {
        // No /proc (macOS): ps, which exits 1 when there is no such process.
        return childProcess.execFileSync("ps", ["-o", "args=", "-p", String(pid)], { encoding: "utf8" }).trim() || null;
      } catch {
        return null;
      }
    },
    after: (ms, then) => {
      const timer = timers.setTimeout(then, ms);
      // Node's timer: an exit SIGKILLs every group still stopping (onExit), so none waits on it.
      (timer as { unref?: () => void }).unref?.();
      return () => timers.clearTimeout(timer as never);
    },
    spawn: childProcess.spawn,
    kill: (pid, signal) => void proc.kill(pid, signal),
    env: () => proc.env,
    groups: proc.platform !== "win32",
    onExit: (then) => void proc.on("exit", then),
  };
}

/** The host's agent-process calls, as the core declares them (`CoreHost`). */
export type AgentHost = Pick<CoreHost, "agentStart" | "agentWrite" | "agentStop" | "environment" | "agentFolder">;

/** Where a process's events go (the processor's agentOutput / agentExited). */
export interface AgentEvents {
  /** Stdout text as it arrives, in any split, UTF-8 decoded across chunk boundaries. */
  agentOutput(process: number, chunk: string): void;
  /** The process ended (code or signal), or never started (error); the end of its stderr. */
  agentExited(process: number, code: number | null, signal: string | null, error: string | null, stderrTail: string): void;
}

/** How much of a process's stderr is kept for the error text (characters). */
export const STDERR_TAIL = 8 * 1024;
/** SIGTERM → SIGKILL. */
const STOP_GRACE_MS = 2000;
/** Stdin the agent has not read past this: it is stuck, and is stopped with an error. */
const UNREAD_INPUT_LIMIT = 64 * 1024 * 1024;

interface Running {
  child: ChildProcessWithoutNullStreams;
  /** Its process group (its pid). */
  group: number;
  /** Why the host ended it, reported with its exit. */
  error: string | null;
  stderr: string;
  /** The SIGKILL after a SIGTERM. */
  reported: boolean;
}

export interface AgentProcessOptions {
  /** Node's process calls; null where programs cannot be started (mobile, a page). */
  system: (() => AgentSystem | null) | null;
  /** The vault's folder on disk; null where it has none. */
  folder?: () => string | null;
  /** SIGTERM → SIGKILL (default 2 s; tests shorten it). */
  stopGraceMs?: number;
  /** Where the agents started are recorded (agent-leftovers.ts); none: not recorded. */
  recordFile?: () => string | null;
  log?: (message: string) => void;
}


export class AgentProcesses implements AgentHost {
  private readonly running = new Map<number, Running>();
  /** Process groups asked to stop and not yet SIGKILLed (their leader may be gone). */
  private readonly stopping = new Map<number, () => void>();
  /** Set once the processor exists; events before that are dropped (none can come: the core
   * starts the processes). */
  events: AgentEvents | null = null;
  private readonly grace: number;
  private system: AgentSystem | null = null;
  private exitHooked = false;
  /** The agents started, on disk until they end; null until loaded, or where groups do not exist. */
  private records: AgentRecords | null = null;
  /** The core's rule for the agents a killed host left, until `endLeftovers()` applies it. */
  private leftoverRule: LeftoverRule | null = null;

  constructor(private readonly options: AgentProcessOptions) {
    this.grace = options.stopGraceMs ?? STOP_GRACE_MS;
  }

  /** Whether this host can start programs at all. */
  get available(): boolean {
    return this.options.system !== null;
  }

  agentFolder(): string | null {
    return this.available ? (this.options.folder?.() ?? null) : null;
  }

  environment(): Record<string, string> {
    const system = this.loaded();
    if (!system) return {};
    return Object.fromEntries(Object.entries(system.env()).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
  }

  /**
   * Ends the agents a previous run of this host left running (killed outright, it could not stop
   * them), once, before any is started: those recorded whose process is still that agent, as
   * the core's `rule` (or the one `endLeftoversLater` kept) says.
   */
  endLeftovers(given?: LeftoverRule): number[] {
    const rule = given ?? this.leftoverRule;
    this.leftoverRule = null;
    if (!rule) return [];
    const system = this.loaded();
    const file = this.options.recordFile?.() ?? null;
    if (!system?.groups || file === null || this.records) return [];
    this.records = new AgentRecords(
      {
        read: () => system.readFile(file),
        write: (text) => system.writeFile(file, text),
        commandLine: (pid) => system.commandLine(pid),
        killGroup: (group) => this.kill(group, null, "SIGKILL"),
      },
      (message) => this.log(message),
    );
    return this.records.endLeftovers(rule);
  }

  /** Keeps the core's rule for `endLeftovers()` once Send is enabled, or before the first agent
   * starts if that comes first: reading the record (on macOS, a `ps` for each pid in it) waits
   * until then (issue 37). */
  endLeftoversLater(rule: LeftoverRule): void {
    this.leftoverRule = rule;
  }

  /** Node's calls, loaded at first use; null where there are none or they fail to load (then
   * no agent starts, and the start of the plugin goes on). */
  private loaded(): AgentSystem | null {
    if (!this.system && this.options.system) {
      try {
        this.system = this.options.system();
      } catch (error) {
        this.log(`this host cannot start programs: ${errorText(error)}`);
        return null;
      }
    }
    return this.system;
  }

  agentStart(id: number, command: string, args: string[], env: Record<string, string>, cwd: string): void {
    this.endLeftovers();
    if (this.running.has(id)) {
      this.later(() => this.exited(id, null, null, `agent process ${id} is already running`, ""));
      return;
    }
    let system: AgentSystem | null;
    let child: ChildProcessWithoutNullStreams;
    try {
      system = this.loaded();
      if (!system) {
        this.later(() => this.exited(id, null, null, "this device cannot start programs (desktop only)", ""));
        return;
      }
      child = system.spawn(command, args, { env, cwd, detached: system.groups, shell: false, stdio: ["pipe", "pipe", "pipe"], windowsHide: true });
    } catch (error) {
      this.later(() => this.exited(id, null, null, `cannot start ${command}: ${errorText(error)}`, ""));
      return;
    }
    const entry: Running = { child, group: child.pid ?? 0, error: null, stderr: "", reported: false };
    this.running.set(id, entry);
    if (entry.group) this.records?.started({ pid: entry.group, command, args });
    if (!this.exitHooked) {
      this.exitHooked = true;
      // Only synchronous work runs at exit: every group still there is SIGKILLed.
      system.onExit(() => this.killAll());
    }
    let spawned = false;
    child.on("spawn", () => {
      spawned = true;
    });
    child.on("error", (error) => {
      if (!spawned) {
        // ENOENT, EACCES, a missing cwd: it never ran (no 'close' matters after this).
        this.finish(id, entry, null, null, `cannot start ${command}: ${errorText(error)}`);
      } else this.log(`agent process ${id}: ${errorText(error)}`);
    });
    const out = new TextDecoder("utf-8");
    child.stdout.on("data", (chunk: Uint8Array) => {
      const text = out.decode(chunk, { stream: true });
      if (text) this.output(id, entry, text);
    });
    const err = new TextDecoder("utf-8");
    child.stderr.on("data", (chunk: Uint8Array) => {
      entry.stderr = (entry.stderr + err.decode(chunk, { stream: true })).slice(-STDERR_TAIL);
    });
    // Writing to a process that has ended (EPIPE) is not an error of ours: its exit is reported.
    child.stdin.on("error", (error) => this.log(`agent process ${id} stdin: ${errorText(error)}`));
    child.on("exit", () => {
      // The leader ended: whatever it started in its group goes too.
      if (!entry.reported) this.signalGroup(entry, "SIGTERM", true);
    });
    child.on("close", (code, signal) => {
      const rest = out.decode();
      if (rest) this.output(id, entry, rest);
      entry.stderr = (entry.stderr + err.decode()).slice(-STDERR_TAIL);
      this.finish(id, entry, code, signal, null);
    });
  }

  agentWrite(id: number, text: string): void {
    const entry = this.running.get(id);
    if (!entry || entry.reported) {
      this.log(`agent process ${id} is not running; ${text.length} characters dropped`);
      return;
    }
    const stdin = entry.child.stdin;
    if (stdin.destroyed || !stdin.writable) {
      this.log(`agent process ${id} closed its input; ${text.length} characters dropped`);
      return;
    }
    // Node queues what the pipe cannot take now; an agent that stops reading must not make that
    // queue grow without end.
    if (stdin.writableLength + text.length > UNREAD_INPUT_LIMIT) {
      entry.error = `the agent stopped reading its input (${Math.round(UNREAD_INPUT_LIMIT / 1024 / 1024)} MB waiting)`;
      this.agentStop(id);
      return;
    }
    stdin.write(text, "utf8");
  }

  agentStop(id: number): void {
    const entry = this.running.get(id);
    if (!entry || entry.reported) return;
    entry.child.stdin.end();
    this.signalGroup(entry, "SIGTERM", true);
  }

  /** Ends every process (the plugin unloading, the host stopping): SIGTERM, SIGKILL after the
   * grace. Their exits are still reported to `events` if set. */
  stopAll(): void {
    for (const id of [...this.running.keys()]) this.agentStop(id);
  }

  /** SIGKILLs every group still running or stopping, at once (synchronous: process exit). */
  killAll(): void {
    this.records?.clear();
    for (const entry of this.running.values()) this.kill(entry.group, entry.child, "SIGKILL");
    for (const [group, cancel] of this.stopping) {
      cancel();
      this.kill(group, null, "SIGKILL");
    }
    this.stopping.clear();
  }

  /** Ids of the processes not yet reported ended. */
  get ids(): number[] {
    return [...this.running.keys()];
  }

  /** Sends `signal` to the process's group; with `thenKill`, SIGKILL after the grace. */
  private signalGroup(entry: Running, signal: string, thenKill: boolean): void {
    if (!entry.group) return;
    this.kill(entry.group, entry.child, signal);
    if (!thenKill || this.stopping.has(entry.group)) return;
    const group = entry.group;
    const cancel = this.system?.after(this.grace, () => {
      this.stopping.delete(group);
      this.kill(group, entry.child, "SIGKILL");
    });
    if (cancel) this.stopping.set(group, cancel);
  }

  private kill(group: number, child: ChildProcessWithoutNullStreams | null, signal: string): void {
    try {
      if (this.system?.groups) this.system.kill(-group, signal);
      else child?.kill(signal as "SIGTERM" | "SIGKILL");
    } catch {
      // ESRCH: the whole group has ended already.
    }
  }

  private output(id: number, entry: Running, text: string): void {
    if (entry.reported) return;
    try {
      this.events?.agentOutput(id, text);
    } catch (error) {
      this.log(`agent process ${id}: its output was not taken: ${errorText(error)}`);
    }
  }

  private finish(id: number, entry: Running, code: number | null, signal: string | null, error: string | null): void {
    if (entry.reported) return;
    entry.reported = true;
    if (this.running.get(id) === entry) this.running.delete(id);
    if (entry.group) this.records?.ended(entry.group);
    this.exited(id, code, signal, error ?? entry.error, entry.stderr);
  }

  private exited(id: number, code: number | null, signal: string | null, error: string | null, stderrTail: string): void {
    try {
      this.events?.agentExited(id, code, signal, error, stderrTail);
    } catch (thrown) {
      this.log(`agent process ${id}: its exit was not taken: ${errorText(thrown)}`);
    }
  }

  /** Reports after the caller's call has returned (the core is not re-entered). */
  private later(report: () => void): void {
    queueMicrotask(report);
  }

  private log(message: string): void {
    this.options.log?.(message);
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
