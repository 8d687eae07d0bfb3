// Everything the core tells the UI (the host's `emit`).
// One of the declaration files of the values crossing the JS boundary (src/wasm/types/), each
// emitted into pkg/smarthole_agent.d.ts by src/wasm/mod.rs, where they see each other; checked
// against the core's JSON by scripts/contract.mjs.

export type PipelineStage = "inbox_written" | "ack_sent" | "model_request" | "history_recorded" | "inbox_cleaned";

/** Everything the core tells the UI. */
export type CoreEvent =
  | { type: "message_received"; message: RoutedMessage; conversationId?: string }
  | { type: "stage"; messageId: string; conversationId?: string; stage: PipelineStage }
  | { type: "text_delta"; messageId: string; conversationId?: string; text: string }
  | { type: "retrying"; messageId: string; conversationId?: string; attempt: number; delayMs: number; delaySeconds: number; errorCode: string; error: string }
  | { type: "waiting"; messageId: string; conversationId?: string; text: string }
  | { type: "tool_started"; messageId: string; conversationId?: string; toolUseId: string; name: string; words: string; input: unknown }
  | { type: "in_flight"; messages: InFlightMessage[] }
  | { type: "tool_finished"; messageId: string; conversationId?: string; toolUseId: string; name: string; isError: boolean; output: string }
  | { type: "plan"; messageId: string; conversationId?: string; entries: PlanEntry[] }
  | ({ type: "agent_message" } & AgentMessage)
  | { type: "response"; result: ProcessResult; conversationId?: string }
  | { type: "notice"; level: "info" | "warning" | "error"; text: string }
  | { type: "conversation_updated"; conversation: Conversation }
  | { type: "retrospection"; conversationId: string; conversationTitle: string; content: string }
  | { type: "search_index"; state: "building" | "ready" | "off"; done: number; total: number; bytes: number }
  | {
      type: "meaning_index";
      state: "off" | "waiting" | "building" | "ready" | "full" | "paused";
      /** Notes done of total while building; notes embedded of notes listed when full. */
      done: number;
      total: number;
      notes: number;
      passages: number;
      bytes: number;
      /** What stopped it and what to do (paused, full). */
      detail?: string;
    }
  | { type: "hub_status"; status: HubStatus; detail: string | null }
  /** An edit in place's proposal as the model writes it: hunks in the note's lines as at the ask,
   *  one per run of changed lines; the final one is the approval of toolUseId "edit-in-place". */
  | { type: "edit_proposal"; messageId: string; path: string; hunks: DiffHunk[] }
  | { type: "approval_requested"; request: ApprovalRequest }
  | { type: "approval_resolved"; request: ApprovalRequest }
  | { type: "change_applied"; messageId: string; conversationId?: string; toolUseId: string; change: ProposedChange; appliedHunks: number[] }
  | { type: "turn_undone"; report: UndoReport }
  | { type: "scheduled_run"; conversationId: string; messageId: string; ok: boolean; text: string }
  | { type: "agent_tools_wanted"; wanted: boolean };

/** A step of an ACP agent's plan (the chat shows the plan as a checklist). */
export interface PlanEntry {
  content: string;
  status: "pending" | "in_progress" | "completed" | string;
  priority: "high" | "medium" | "low" | string;
}

export type HubStatus = "disabled" | "disconnected" | "connecting" | "connected" | "error";

/** A note close in meaning to another (`relatedNotes`). */
export interface RelatedNote {
  path: string;
  /** Cosine of the two, 0–1 for most models. */
  score: number;
  firstLine: number;
  lastLine: number;
  /** The passage of `path` that relates them. */
  passage: string;
}

/** What the Related notes view shows: the notes, or why there are none. */
export interface RelatedNotes {
  notes: RelatedNote[];
  note: string | null;
}
