// The chat panel's words for what the core reports: an approval's outcome (from its settle
// reason), a schedule, where a message came from. Plain functions, no DOM.
import type { ApprovalRequest, MessageSource, Schedule } from "smarthole-core";

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

/** Where a message came from, as the label under it says. */
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
      return "Typed here";
  }
}
