// What the views hear from the runtime: the core's events, and the runtime's own (ready, the core
// restarted after a trap, the agent API's listeners). A leaf, so views import it without the
// runtime.
import type { CoreEvent, ProcessResult } from "smarthole-core";
import type { ApiListenerState } from "./agent-api-server.ts";

export type RuntimeEvent =
  | CoreEvent
  | { type: "ready" }
  | { type: "core_restarted" }
  | { type: "api_status"; listeners: ApiListenerState[] };

/** The error code of a message whose core trapped before it finished. */
export const CORE_RESTARTED = "core_restarted";

const RESTARTED_TEXT =
  "The agent's core stopped unexpectedly and was restarted. Your message is safe and will be answered shortly.";

/** The result a message waiting on a core that trapped gets (the new core answers it later). */
export function restartedResult(messageId: string): ProcessResult {
  return { success: false, messageId, errorCode: CORE_RESTARTED, error: RESTARTED_TEXT };
}
