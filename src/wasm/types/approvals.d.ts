// What waits on the user's yes: approval requests, the changes to notes they would make (diffs,
// hunk by hunk), what a turn changed and its undo.
// One of the declaration files of the values crossing the JS boundary (src/wasm/types/), each
// emitted into pkg/smarthole_agent.d.ts by src/wasm/mod.rs, where they see each other; checked
// against the core's JSON by scripts/contract.mjs.

export type ApprovalStatus = "pending" | "approved" | "rejected" | "expired";
/** Why a request stopped being pending. */
export type SettleReason =
  | "approved"
  | "rejected"
  | "timeout"
  | "stopped"
  | "restarted"
  | "not_allowed"
  | "not_required"
  | "session_grant";
export type ApprovalDecision = "approve_once" | "approve_conversation" | "reject";

/** Something the agent may not do without the user's yes. */
export interface ApprovalRequest {
  id: string;
  action: string;
  summary: string;
  reason?: string;
  details?: unknown;
  origin: "tool" | "api";
  conversationId?: string;
  messageId?: string;
  /** The agent API session ("api:<context>") that "approve for this session" covers. */
  session?: string;
  createdMs: number;
  expiresMs: number;
  status: ApprovalStatus;
  scope?: "once" | "conversation";
  note?: string;
  settleReason?: SettleReason;
  /** The change to a note it would make, as a diff (edit, overwrite, move, delete). */
  change?: ProposedChange;
  /** The hunks (by number) the approval accepted; absent means all of them. */
  acceptedHunks?: number[];
  /** The tool call that asked: its card sits at that tool's chip. */
  toolUseId?: string;
  /** The change is taken whole or not at all (the agent writes the file itself): no per-hunk
   *  answers; `reason` says why. */
  wholeOnly?: boolean;
}

/** A change to a note the agent proposes (or made): the diff a card shows, hunk by hunk. */
export interface ProposedChange {
  kind: "edit" | "overwrite" | "create" | "move" | "delete";
  path: string;
  /** A move's new path. */
  to?: string;
  /** SHA-256 (hex) of the content the diff was made from. */
  baseHash: string;
  hunks: DiffHunk[];
}

/** A run of changes with up to 3 lines of context: what the user accepts or rejects. */
export interface DiffHunk {
  /** From 1, as "/approve ID 1,3" and the model name it. */
  number: number;
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: DiffLine[];
}

/** One line, exactly as in the note (with its line break, if it has one). */
export interface DiffLine {
  kind: "context" | "removed" | "added";
  text: string;
  /** The line in pieces, the changed words marked (removed/added lines of a small change). */
  words?: { text: string; changed: boolean }[];
}

/** A change a turn applied, as a reopened conversation redraws it. */
export interface AppliedChange {
  toolUseId: string;
  change: ProposedChange;
  appliedHunks: number[];
  undone: boolean;
}

/** What a turn asked and changed: its approval requests and the changes it applied. */
export interface TurnReview {
  approvals: ApprovalRequest[];
  changes: AppliedChange[];
}

/** What undoing a turn did, note by note. */
export interface UndoReport {
  messageId: string;
  restored: string[];
  refused: { path: string; reason: string }[];
}

/** An edit in place asked in the editor: the editor's document, the selection in its positions
 *  (UTF-16 units; from === to: the paragraph, or the line, at the cursor), and what to do. */
export interface EditInPlaceRequest {
  path: string;
  text: string;
  from: number;
  to: number;
  instruction: string;
}

/** What `editInPlace` answers at once: the message queued, and the passage it works on. */
export interface EditStarted {
  message: RoutedMessage;
  scope: "selection" | "paragraph" | "line";
  /** The whole lines the passage lies in (1-based, inclusive). */
  startLine: number;
  endLine: number;
  /** What the user is told about the passage taken. */
  said: string;
}
