// The agent process groups this host started, written down so that a host killed outright
// (SIGKILL, a crash of the app: nothing of it runs to stop them) does not leave them running for
// good — Claude Code's adapter outlives its closed stdin (docs/ACP-AGENTS.md). Each start is a
// line of `<vault>/.smarthole/agent-processes.json` until its process ends; the next start of
// the host ends every group still recorded whose leader is still the agent it started (its
// command line checked first: a pid the system gave to another program since is never touched).

/** One agent process as started. */
export interface AgentRecord {
  pid: number;
  command: string;
  args: string[];
}

/** What the records need of the system. */
export interface RecordSystem {
  /** The file's text; null when there is none. */
  read(): string | null;
  write(text: string): void;
  /** The command line of process `pid` as the system shows it; null when there is none. */
  commandLine(pid: number): string | null;
  /** SIGKILLs process group `group`. */
  killGroup(group: number): void;
}

/**
 * Whether the running process's command line is the recorded agent's: its program's name and
 * every argument appear in it (an interpreter may come first: a script's shebang runs
 * `node /path/claude-agent-acp`).
 */
export function isRecordedAgent(record: AgentRecord, commandLine: string): boolean {
  const program = record.command.split(/[\\/]/).pop() ?? record.command;
  return program !== "" && commandLine.includes(program) && record.args.every((arg) => commandLine.includes(arg));
}

/** The records, kept in the file as processes start and end. */
export class AgentRecords {
  private records: AgentRecord[] = [];

  constructor(
    private readonly system: RecordSystem,
    private readonly log: (message: string) => void,
  ) {}

  /**
   * Ends the groups a previous run of the host left (those still the agent it started) and
   * forgets every record. Returns the pids ended.
   */
  endLeftovers(): number[] {
    const ended: number[] = [];
    const recorded = this.load();
    for (const record of recorded) {
      const line = this.system.commandLine(record.pid);
      if (line === null) continue;
      if (!isRecordedAgent(record, line)) {
        this.log(`process ${record.pid} is no longer the agent started earlier (${line}); left alone`);
        continue;
      }
      this.log(`ending the agent a previous run left: ${record.pid} ${line}`);
      this.system.killGroup(record.pid);
      ended.push(record.pid);
    }
    this.records = [];
    // No file is written where no agent was ever started.
    if (recorded.length > 0) this.save();
    return ended;
  }

  started(record: AgentRecord): void {
    this.records.push(record);
    this.save();
  }

  ended(pid: number): void {
    const before = this.records.length;
    this.records = this.records.filter((r) => r.pid !== pid);
    if (this.records.length !== before) this.save();
  }

  /** Every process ended at once (the host's exit). */
  clear(): void {
    if (this.records.length === 0) return;
    this.records = [];
    this.save();
  }

  private load(): AgentRecord[] {
    let text: string | null = null;
    try {
      text = this.system.read();
      const value: unknown = text === null ? [] : JSON.parse(text);
      return Array.isArray(value) ? value.filter(isRecord) : [];
    } catch (error) {
      // A torn write: at worst an agent stays up, as it would without the file.
      this.log(`agent-processes.json not read: ${error instanceof Error ? error.message : String(error)}`);
      return [];
    }
  }

  private save(): void {
    try {
      this.system.write(JSON.stringify(this.records));
    } catch (error) {
      this.log(`agent-processes.json not written: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

function isRecord(value: unknown): value is AgentRecord {
  const r = value as AgentRecord;
  return typeof r === "object" && r !== null && Number.isInteger(r.pid) && r.pid > 1 && typeof r.command === "string" && Array.isArray(r.args) && r.args.every((a) => typeof a === "string");
}
