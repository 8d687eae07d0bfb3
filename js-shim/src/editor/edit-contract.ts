// The core's edit-in-place calls and event as issue 36's contract gives them (notes/i36-contract):
// written here until the core's declarations (pkg/smarthole_agent.d.ts) carry them, then
// replaced by imports of those.
import type { DiffHunk, RoutedMessage } from "smarthole-core";
import type { CoreCalls } from "../core/guarded-core.ts";

/** An edit asked of the selection: the editor's whole text now and the selection in it
 * (UTF-16 offsets, as CodeMirror counts); from === to asks for the paragraph at the cursor. */
export interface EditInPlaceRequest {
  path: string;
  text: string;
  from: number;
  to: number;
  instruction: string;
}

/** What the core queued for an edit, and what to tell the user about its scope. */
export interface EditStarted {
  message: RoutedMessage;
  scope: "selection" | "paragraph" | "line";
  startLine: number;
  endLine: number;
  said: string;
}

/** The proposal as the model writes it: hunks in the note's lines as at the ask, no context. */
export interface EditProposalEvent {
  type: "edit_proposal";
  messageId: string;
  path: string;
  hunks: DiffHunk[];
  done: boolean;
}

/** The core's calls the inline review makes. */
export type InlineEditCalls = Pick<CoreCalls, "decideApproval" | "undoTurn" | "stop" | "currentMessageId"> & {
  editInPlace(request: EditInPlaceRequest): EditStarted;
};
