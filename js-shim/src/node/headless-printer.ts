// What the headless command prints: the answer streamed as it arrives (to stdout in the chat, to
// stderr with --once, whose stdout is the result's JSON), retries, tools, agent messages,
// notices, the search and meaning indexes' progress, the hub's status, scheduled runs, approval
// requests (answered as --approvals says), the core's log lines, and each result of the chat. A proposed change to a note prints as a
// unified diff (hunks numbered for /approve ID 1,3); applied changes are remembered for /undo. Every text from outside goes through
// terminalSafe first: the model, tools, hub and external agents cannot send the terminal a control
// sequence, nor start a line that looks like one of the printer's.
import type { ApprovalDecision, ApprovalRequest, CoreEvent, LogLevel, ProcessResult, ProposedChange } from "smarthole-core";
import { terminalSafe } from "./terminal-text.ts";
import { meaningIndexLine, searchIndexLine } from "../ui/chat-text.ts";

/** One line's worth of outside text. */
const line = (text: string | null | undefined): string => terminalSafe(text ?? "");
/** Outside text whose newlines are meant (an answer, a message). */
const lines = (text: string | null | undefined): string => terminalSafe(text ?? "", true);

export interface PrinterOptions {
  /** The chat on the terminal (else --once). */
  interactive: boolean;
  /** How approval requests are answered: at once, or asked on the terminal. */
  approvals: ApprovalDecision | "ask";
  verbose: boolean;
  /** The processor's decideApproval. */
  decide: (id: string, decision: ApprovalDecision) => Promise<unknown>;
}

/** A proposed change as a unified diff, every line terminal-safe; hunks are numbered. */
export function unifiedDiff(change: ProposedChange): string {
  const out = [`--- ${line(change.path)}`, `+++ ${line(change.to ?? (change.kind === "delete" ? "/dev/null" : change.path))}`];
  for (const hunk of change.hunks) {
    out.push(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@ hunk ${hunk.number}`);
    for (const l of hunk.lines) {
      const mark = l.kind === "added" ? "+" : l.kind === "removed" ? "-" : " ";
      const text = l.text.replace(/\r?\n$/, "");
      out.push(mark + line(text));
      if (text === l.text) out.push("\\ No newline at end of file");
    }
  }
  return out.join("\n") + "\n";
}

export class EventPrinter {
  /** Messages whose answer was streamed (so it is not printed again). */
  readonly streamed = new Set<string>();
  private readonly streamTo: NodeJS.WriteStream;
  /** The meaning index's last state and line printed, and the tenth of its notes last printed. */
  private meaningShown = "";
  private meaningText = "";
  private meaningTenth = -1;

  constructor(private readonly options: PrinterOptions) {
    this.streamTo = options.interactive ? process.stdout : process.stderr;
  }

  /** One event of the core, as it is emitted. */
  event(event: CoreEvent): void {
    switch (event.type) {
      case "text_delta":
        this.streamTo.write(lines(event.text));
        this.streamed.add(event.messageId);
        break;
      case "retrying":
        process.stderr.write(`\n[${line(event.error)} Retrying in ${event.delaySeconds} s…]\n`);
        break;
      case "waiting":
        process.stderr.write(`\n[${line(event.text)}]\n`);
        break;
      case "tool_started":
        process.stderr.write(`\n[tool ${line(event.name)}]\n`);
        break;
      case "agent_message":
        this.streamTo.write(`\n${event.isQuestion ? "? " : "» "}${lines(event.content)}\n`);
        break;
      case "notice":
        process.stderr.write(`\n[${event.level}] ${lines(event.text)}\n`);
        break;
      case "search_index":
        if (event.state !== "building" || event.done === 0) process.stderr.write(`[${searchIndexLine(event)}]\n`);
        break;
      case "meaning_index":
        this.meaningIndex(event);
        break;
      case "hub_status":
        process.stderr.write(`[hub ${event.status}${event.detail ? `: ${line(event.detail)}` : ""}]\n`);
        break;
      case "scheduled_run":
        process.stderr.write(`\n[${event.ok ? "scheduled run" : "scheduled run failed"}] ${lines(event.text)}\n`);
        break;
      case "approval_requested":
        this.approvalRequested(event.request);
        break;
      case "change_applied":
        if (this.options.approvals === "ask") {
          const { change, appliedHunks } = event;
          const hunks = change.hunks.length > 0 ? ` (hunks ${appliedHunks.join(",") || "none"} of ${change.hunks.length})` : "";
          process.stderr.write(`[changed ${line(change.path)}: ${change.kind}${hunks} — /undo reverts this turn]\n`);
        }
        break;
      case "turn_undone":
        for (const path of event.report.restored) process.stderr.write(`[undo: restored ${line(path)}]\n`);
        for (const r of event.report.refused) process.stderr.write(`[undo: refused ${line(r.path)}: ${line(r.reason)}]\n`);
        if (event.report.restored.length + event.report.refused.length === 0) process.stderr.write("[undo: nothing to undo]\n");
        break;
      case "approval_resolved":
        if (this.options.approvals === "ask") {
          const { id, status, note } = event.request;
          process.stderr.write(`[approval ${line(id)}: ${status}${note ? ` (${line(note)})` : ""}]\n`);
        }
        break;
    }
  }

  /** The meaning index on stderr: its start, then about every tenth of the notes, paused and full
   * with their detail (once each), and ready ("Meaning index ready: N notes, M passages"). */
  private meaningIndex(event: Extract<CoreEvent, { type: "meaning_index" }>): void {
    // Off and waiting are the default and a moment's wait: nothing to say.
    if (event.state === "off" || event.state === "waiting") return;
    const text = line(meaningIndexLine(event));
    if (event.state === "building") {
      const step = Math.max(1, Math.ceil(event.total / 10));
      const tenth = Math.floor(event.done / step);
      if (this.meaningShown === "building" && tenth <= this.meaningTenth) return;
      this.meaningTenth = tenth;
    } else if (event.state === this.meaningShown && text === this.meaningText) {
      return;
    }
    this.meaningShown = event.state;
    this.meaningText = text;
    process.stderr.write(`[${text}]\n`);
  }

  private approvalRequested(request: ApprovalRequest): void {
    const decision = this.options.approvals;
    const rawId = request.id;
    // One line each: a reason cannot print a line of its own ("[approval ver-…] …").
    const [id, summary] = [line(rawId), line(request.summary)];
    if (decision === "ask") {
      const diff = request.change && request.change.hunks.length > 0 ? unifiedDiff(request.change) : "";
      const some = request.change && request.change.hunks.length > 1 ? `, /approve ${id} 1,3 (some hunks)` : "";
      process.stderr.write(`\n${diff}[approval ${id}] ${summary} — answer /approve ${id}${some}, /approve-session ${id} or /reject ${id}\n`);
      return;
    }
    process.stderr.write(`\n[approval: ${summary} → ${decision === "reject" ? "rejected" : "approved"} (--approvals)]\n`);
    // Not from inside the core's emit: answer once the current call has returned.
    setTimeout(() => void this.options.decide(rawId, decision).catch(() => undefined), 0);
  }

  /** A log line of the core (or the shim): warnings and errors always, the rest with --verbose. */
  log(level: LogLevel, message: string): void {
    if (this.options.verbose || level === "warn" || level === "error") process.stderr.write(`[${level}] ${line(message)}\n`);
  }

  /** A result in the chat; returns whether it failed. */
  result(result: ProcessResult): boolean {
    const failed = !result.cancelled && !result.success;
    if (result.cancelled) process.stdout.write("\n[stopped]\n");
    else if (failed) process.stdout.write(`\n[error] ${lines(result.error)}\n`);
    else if (!this.streamed.has(result.messageId) && result.response) process.stdout.write(lines(result.response));
    if (result.notice) process.stdout.write(`\n[${lines(result.notice)}]`);
    process.stdout.write("\n");
    return failed;
  }
}
