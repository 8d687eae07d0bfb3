// The chat panel's words for what the core reports: an approval's outcome (from its settle
// reason), a schedule, where a message came from, what became of a tool call (the call itself is in
// the core's words: its `tool_started` event, `toolWords`), a change to a note and the search
// index's progress. Plain
// functions, no DOM.
import type { ApprovalRequest, MessageSource, ProposedChange, Schedule, UndoReport } from "smarthole-core";

/** How a settled approval reads on its card, from the reason the core gives. */
export function approvalOutcome(request: ApprovalRequest): string {
  switch (request.settleReason) {
    case "approved":
    case "not_required":
    case "session_grant":
      if (request.scope !== "conversation") return "Approved";
      return request.origin === "api" ? "Approved for this session" : "Approved for this conversation";
    case "rejected":
      return "Rejected";
    case "timeout":
      return "No answer in time: not done";
    case "stopped":
      return "Not done: the message was stopped before an answer";
    case "restarted":
      return "Not done: the app restarted before an answer";
    case "not_allowed":
      return "Not done: the action is not allowed";
    default:
      return "";
  }
}

/** A schedule in words: when it runs, and how it stands. */
export function scheduleText(schedule: Schedule): string {
  const when =
    schedule.type === "cron"
      ? `Runs on cron “${schedule.expression ?? ""}” (${schedule.timeZone ?? "UTC"})`
      : schedule.type === "scheduled"
        ? `Runs once at ${new Date(schedule.runAt ?? "").toLocaleString()}`
        : "Runs once in the background";
  if (schedule.paused) return `${when} · paused${schedule.lastError ? ` after ${schedule.failures} failures: ${schedule.lastError}` : ""}`;
  if (schedule.currentRun) return `${when} · running now`;
  return schedule.nextRunAt ? `${when} · next run ${new Date(schedule.nextRunAt).toLocaleString()}` : when;
}

/** Where a message came from, as the label over it says; "" for one typed here (the usual case,
 * which a label on every message would only repeat). */
export function sourceLabel(source: MessageSource | undefined, metadata?: Record<string, unknown>): string {
  switch (source) {
    case "websocket":
      if (metadata?.inputMethod === "voice") return "Voice via SmartHole";
      if (metadata?.inputMethod === "text") return "Text via SmartHole";
      return "Via SmartHole";
    case "worker":
      return "Scheduled run";
    case "api":
      return "From an agent";
    case "system":
      return "SmartHole";
    default:
      return "";
  }
}

/** What became of a tool call, after its words: "— rejected", "— failed"; nothing when done. */
export function toolOutcome(isError: boolean, approval: ApprovalRequest | undefined): string {
  if (approval && approval.status !== "approved" && approval.status !== "pending") return ` — ${approvalOutcome(approval).toLowerCase()}`;
  return isError ? " — failed" : "";
}

/** A change to a note, as its card's title. */
export function changeTitle(change: ProposedChange, applied: boolean): string {
  const verbs = applied
    ? { edit: "Edited", overwrite: "Rewrote", create: "Created", move: "Moved", delete: "Deleted" }
    : { edit: "Edit", overwrite: "Rewrite", create: "Create", move: "Move", delete: "Delete" };
  const where = change.kind === "move" ? `${change.path} to ${change.to ?? ""}` : change.path;
  return `${verbs[change.kind]} ${where}`;
}

/** The hunks applied of a change, when not all: "Applied changes 1 and 3 of 3". */
export function appliedWords(change: ProposedChange, applied: number[]): string {
  if (change.hunks.length === 0 || applied.length === change.hunks.length) return "Applied";
  const list = applied.length === 1 ? `${applied[0]}` : `${applied.slice(0, -1).join(", ")} and ${applied.at(-1)}`;
  return `Applied change${applied.length === 1 ? "" : "s"} ${list} of ${change.hunks.length}`;
}

/** What Undo did, in a line: restored notes, and each refusal with its reason. */
export function undoWords(report: UndoReport): string {
  const parts: string[] = [];
  if (report.restored.length > 0) parts.push(`Undone: ${report.restored.join(", ")}.`);
  for (const refused of report.refused) parts.push(`Not undone: ${refused.path} (${refused.reason}).`);
  return parts.join(" ") || "Nothing left to undo.";
}

/** The search index's state in one line (the status bar's words too). */
export function searchIndexLine(event: { state: string; done: number; total: number; bytes: number }): string {
  const mb = (event.bytes / 1048576).toFixed(1);
  if (event.state === "building") return `Indexing the vault: ${event.done.toLocaleString("en")} of ${event.total.toLocaleString("en")} notes`;
  if (event.state === "ready") return `Search index ready: ${event.total.toLocaleString("en")} notes, ${mb} MB`;
  return "Search index off (searches scan the vault)";
}

/** The meaning index's state in one line (the status bar's and the chat's words too; the headless
 * stderr line on ready contains "Meaning index ready"). */
export function meaningIndexLine(event: { state: string; done: number; total: number; notes: number; passages: number; detail?: string }): string {
  const n = (x: number) => x.toLocaleString("en");
  switch (event.state) {
    case "building":
      return `Embedding notes for search by meaning: ${n(event.done)} of ${n(event.total)} notes`;
    case "ready":
      return `Meaning index ready: ${n(event.notes)} notes, ${n(event.passages)} passages`;
    case "paused":
      return `Search by meaning paused: ${event.detail ?? "the embedding server did not answer"}`;
    case "full":
      return `Meaning index full: ${event.detail ?? `${n(event.notes)} of ${n(event.total)} notes embedded`}`;
    case "waiting":
      return "Search by meaning waits for the search index";
    default:
      return "Search by meaning off";
  }
}

/** Whether the meaning index's state is worth a line in the status bar and the chat: while it
 * builds, and when it stopped short (paused, full) with what to do. */
export function meaningIndexShown(state: string): boolean {
  return state === "building" || state === "paused" || state === "full";
}
