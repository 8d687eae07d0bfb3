// What the headless command prints: the answer streamed as it arrives (to stdout in the chat, to
// stderr with --once, whose stdout is the result's JSON), retries, tools, agent messages,
// notices, the hub's status, scheduled runs, approval requests (answered as --approvals says),
// the core's log lines, and each result of the chat. Every text from outside goes through
// terminalSafe first: the model, tools, hub and external agents cannot send the terminal a control
// sequence, nor start a line that looks like one of the printer's.
import type { ApprovalDecision, CoreEvent, LogLevel, ProcessResult } from "smarthole-core";
import { terminalSafe } from "./terminal-text.ts";

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

export class EventPrinter {
  /** Messages whose answer was streamed (so it is not printed again). */
  readonly streamed = new Set<string>();
  private readonly streamTo: NodeJS.WriteStream;

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
      case "tool_started":
        process.stderr.write(`\n[tool ${line(event.name)}]\n`);
        break;
      case "agent_message":
        this.streamTo.write(`\n${event.isQuestion ? "? " : "» "}${lines(event.content)}\n`);
        break;
      case "notice":
        process.stderr.write(`\n[${event.level}] ${lines(event.text)}\n`);
        break;
      case "hub_status":
        process.stderr.write(`[hub ${event.status}${event.detail ? `: ${line(event.detail)}` : ""}]\n`);
        break;
      case "scheduled_run":
        process.stderr.write(`\n[${event.ok ? "scheduled run" : "scheduled run failed"}] ${lines(event.text)}\n`);
        break;
      case "approval_requested":
        this.approvalRequested(event.request.id, event.request.summary);
        break;
      case "approval_resolved":
        if (this.options.approvals === "ask") {
          const { id, status, note } = event.request;
          process.stderr.write(`[approval ${line(id)}: ${status}${note ? ` (${line(note)})` : ""}]\n`);
        }
        break;
    }
  }

  private approvalRequested(rawId: string, rawSummary: string): void {
    const decision = this.options.approvals;
    // One line each: a reason cannot print a line of its own ("[approval ver-…] …").
    const [id, summary] = [line(rawId), line(rawSummary)];
    if (decision === "ask") {
      process.stderr.write(`\n[approval ${id}] ${summary} — answer /approve ${id}, /approve-session ${id} or /reject ${id}\n`);
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
