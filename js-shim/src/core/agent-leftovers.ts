// The agent process groups this host started, written down so that a host killed outright
// (SIGKILL, a crash of the app: nothing of it runs to stop them) does not leave them running for
// good — Claude Code's adapter outlives its closed stdin (docs/ACP-AGENTS.md). Each start is a
// line of `<vault>/.smarthole/agent-processes.json` until its process ends; at the next start of
// the host the core decides (acp/leftovers.rs) which groups still recorded to end — only those
// whose leader is still the agent started — from the record and each pid's command line; this
// records, reads and kills.

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

/** The core's rule (`agentLeftovers`): from the record's text (null: no file) and each pid's
 * command line (null: no such process), the groups to end, what to log, and whether to empty
 * the record. */
export type LeftoverRule = (recorded: string | null, commandLine: (pid: number) => string | null) => { end: number[]; notes: string[]; forget: boolean };

/** The records, kept in the file as processes start and end. */
export class AgentRecords {
  private records: AgentRecord[] = [];

  constructor(
    private readonly system: RecordSystem,
    private readonly log: (message: string) => void,
  ) {}

  /**
   * Ends the groups a previous run of the host left, as the core's `rule` says (those still the
   * agent it started), and forgets every record. Returns the pids ended.
   */
  endLeftovers(rule: LeftoverRule): number[] {
    let text: string | null = null;
    try {
      text = this.system.read();
    } catch (error) {
      // Unreadable: at worst an agent stays up, as it would without the file.
      this.log(`agent-processes.json not read: ${error instanceof Error ? error.message : String(error)}`);
    }
    const decision = rule(text, (pid) => this.system.commandLine(pid));
    for (const note of decision.notes) this.log(note);
    for (const pid of decision.end) this.system.killGroup(pid);
    this.records = [];
    // No file is written where no agent was ever started.
    if (decision.forget) this.save();
    return decision.end;
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

  private save(): void {
    try {
      this.system.write(JSON.stringify(this.records));
    } catch (error) {
      this.log(`agent-processes.json not written: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
