// What the inline review does, from its keys, its widgets' buttons and the core's events: ask the
// core for an edit, answer the approval hunk by hunk, stop and drop, undo. The core decides; this
// only carries the user's answers to it and draws what it says (through inline-state.ts).
import { EditorSelection } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import type { RuntimeEvent } from "../core/runtime-event.ts";
import { inlineHost } from "./inline-host.ts";
import {
  askFailed,
  closeAsk,
  decideHunks,
  dismissUndo,
  dropProposal,
  inlineState,
  openAsk,
  proposalApplied,
  proposalError,
  reviewHunks,
  shownProposal,
  startProposal,
  streamHunks,
  undoStatus,
  type InlineHunk,
  type Proposal,
} from "./inline-state.ts";

/** The tool name the core gives the approval of an edit in place. */
export const EDIT_TOOL = "edit-in-place";

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Opens the ask box above the selection's first line (false: not a note, or no host). */
export function openAskBox(view: EditorView): boolean {
  const host = view.state.facet(inlineHost);
  if (!host || !host.pathOf(view)) return false;
  const { from, to } = view.state.selection.main;
  view.dispatch({ effects: openAsk.of({ from, to }) });
  return true;
}

/** Closes the ask box and gives the editor its focus back. */
export function closeAskBox(view: EditorView): void {
  view.dispatch({ effects: closeAsk.of(null) });
  view.focus();
}

/** Sends the instruction for the selection the box was opened at; a refusal is shown in the box. */
export function submitAsk(view: EditorView, instruction: string): void {
  const host = view.state.facet(inlineHost);
  const ask = view.state.field(inlineState).ask;
  const path = host?.pathOf(view);
  if (!host || !ask || !path) return;
  try {
    const started = host.processor.editInPlace({ path, text: view.state.doc.toString(), from: ask.from, to: ask.to, instruction });
    view.dispatch({ effects: startProposal.of({ messageId: started.message.id, path, said: started.said, startLine: started.startLine }) });
    view.focus();
  } catch (error) {
    view.dispatch({ effects: askFailed.of(message(error)) });
  }
}

/** The hunk at the cursor: the one it is in, else the next undecided one after it. */
export function hunkAtCursor(view: EditorView): InlineHunk | null {
  const p = shownProposal(view.state);
  if (!p) return null;
  const head = view.state.selection.main.head;
  const open = p.hunks.filter((h) => !h.decision);
  return open.find((h) => h.from <= head && head <= h.to) ?? open.find((h) => h.from > head) ?? open[0] ?? null;
}

/** Puts the cursor at a hunk and says which it is. */
function goTo(view: EditorView, hunk: InlineHunk, total: number): void {
  view.dispatch({
    selection: EditorSelection.cursor(hunk.from),
    scrollIntoView: true,
    effects: EditorView.announce.of(`Change ${hunk.number} of ${total}`),
  });
}

/** Moves the cursor to the next (1) or previous (-1) hunk, undecided ones first, wrapping. */
export function moveToHunk(view: EditorView, direction: 1 | -1): boolean {
  const p = shownProposal(view.state);
  if (!p || !p.hunks.length) return p !== null;
  const open = p.hunks.filter((h) => !h.decision);
  const hunks = open.length ? open : p.hunks;
  const head = view.state.selection.main.head;
  const at = hunks.findIndex((h) => h.from <= head && head <= h.to);
  let target: InlineHunk | undefined;
  if (direction > 0) target = at >= 0 ? hunks[(at + 1) % hunks.length] : (hunks.find((h) => h.from > head) ?? hunks[0]);
  else target = at >= 0 ? hunks[(at - 1 + hunks.length) % hunks.length] : ([...hunks].reverse().find((h) => h.to < head) ?? hunks.at(-1));
  if (target) goTo(view, target, p.hunks.length);
  return true;
}

/** Records the user's answer to some hunks; the cursor moves to the next undecided one, and once
 * every hunk is answered the approval is decided with the accepted ones. */
export function decide(view: EditorView, numbers: number[], decision: "accepted" | "rejected"): void {
  const before = shownProposal(view.state);
  if (!before || before.phase !== "review" || !before.hunks.some((h) => numbers.includes(h.number) && !h.decision)) return;
  view.dispatch({ effects: decideHunks.of({ numbers, decision }) });
  const p = shownProposal(view.state);
  if (!p) return;
  const last = Math.max(...p.hunks.filter((h) => numbers.includes(h.number)).map((h) => h.from));
  const open = p.hunks.filter((h) => !h.decision);
  const next = open.find((h) => h.from > last) ?? open[0];
  if (next) return goTo(view, next, p.hunks.length);
  finish(view, p);
}

/** Accept all / Reject all: the same answer to every hunk not answered yet. */
export function decideAll(view: EditorView, decision: "accepted" | "rejected"): void {
  const p = shownProposal(view.state);
  if (p) decide(view, p.hunks.filter((h) => !h.decision).map((h) => h.number), decision);
}

/** Every hunk answered: the approval decided with the accepted ones (none: rejected). */
function finish(view: EditorView, p: Proposal): void {
  const host = view.state.facet(inlineHost);
  if (!host || !p.approvalId) return;
  const accepted = p.hunks.filter((h) => h.decision === "accepted").map((h) => h.number);
  const decided = accepted.length ? host.processor.decideApproval(p.approvalId, "approve_once", accepted) : host.processor.decideApproval(p.approvalId, "reject");
  if (!accepted.length) view.dispatch({ effects: dropProposal.of(p.messageId) });
  decided.catch((error: unknown) => {
    if (shownProposal(view.state)?.messageId === p.messageId) view.dispatch({ effects: proposalError.of(message(error)) });
  });
}

/** Escape: stops the answer if it is still being written, refuses the approval if one waits,
 * and drops the proposal; the note is left as it is. False when no proposal is shown. */
export function stopAndDrop(view: EditorView): boolean {
  const p = shownProposal(view.state);
  const host = view.state.facet(inlineHost);
  if (!p || !host) return false;
  if (host.processor.currentMessageId === p.messageId) host.processor.stop();
  if (p.approvalId) host.processor.decideApproval(p.approvalId, "reject").catch(() => undefined);
  view.dispatch({ effects: dropProposal.of(p.messageId) });
  return true;
}

/** "Undo changes": the turn's changes undone by the core; the offer says how it went. */
export function undoEdit(view: EditorView): void {
  const host = view.state.facet(inlineHost);
  const offer = view.state.field(inlineState).undo;
  if (!host || !offer || offer.state !== "offered") return;
  view.dispatch({ effects: undoStatus.of({ state: "undoing", text: "Undoing…" }) });
  host.processor.undoTurn(offer.messageId).then(
    (report) => {
      const refused = report.refused.map((r) => `${r.path}: ${r.reason}`).join("; ");
      view.dispatch({ effects: undoStatus.of(refused ? { state: "failed", text: `Not undone: ${refused}` } : { state: "undone", text: "Changes undone." }) });
    },
    (error: unknown) => view.dispatch({ effects: undoStatus.of({ state: "failed", text: `Not undone: ${message(error)}` }) }),
  );
}

/** Takes the "Undo changes" offer away. */
export function dismissUndoOffer(view: EditorView): void {
  view.dispatch({ effects: dismissUndo.of(null) });
  view.focus();
}

/** What the core tells the runtime, as it concerns this editor's proposal. */
export function onCoreEvent(view: EditorView, event: RuntimeEvent): void {
  const state = view.state.field(inlineState);
  const p = state.proposal;
  switch (event.type) {
    case "edit_proposal":
      if (p?.messageId === event.messageId && p.phase === "writing") view.dispatch({ effects: streamHunks.of({ messageId: p.messageId, hunks: event.hunks }) });
      return;
    case "approval_requested": {
      const request = event.request;
      if (request.toolUseId !== EDIT_TOOL || !request.messageId) return;
      if (p?.messageId === request.messageId) {
        view.dispatch({ effects: reviewHunks.of({ messageId: p.messageId, approvalId: request.id, hunks: request.change?.hunks ?? [] }) });
      } else if (state.dropped.includes(request.messageId)) {
        view.state.facet(inlineHost)?.processor.decideApproval(request.id, "reject").catch(() => undefined);
      }
      return;
    }
    case "approval_resolved":
      // Answered elsewhere (the chat's card): refused or expired drops it; approved waits for
      // the change to be applied.
      if (p && p.approvalId === event.request.id && event.request.status !== "pending" && event.request.status !== "approved") {
        view.dispatch({ effects: dropProposal.of(p.messageId) });
      }
      return;
    case "change_applied":
      if (p?.messageId === event.messageId && event.toolUseId === EDIT_TOOL) {
        view.dispatch({ effects: proposalApplied.of({ messageId: p.messageId, appliedHunks: event.appliedHunks }) });
      }
      return;
    case "response":
      // The answer ended with nothing to review (failed, stopped, or no change): nothing to show.
      if (p?.messageId === event.result.messageId && p.phase === "writing") view.dispatch({ effects: dropProposal.of(p.messageId) });
      return;
    case "turn_undone":
      if (state.undo?.messageId === event.report.messageId && state.undo.state !== "undone") {
        const refused = event.report.refused.map((r) => `${r.path}: ${r.reason}`).join("; ");
        view.dispatch({ effects: undoStatus.of(refused ? { state: "failed", text: `Not undone: ${refused}` } : { state: "undone", text: "Changes undone." }) });
      }
      return;
    default:
      return;
  }
}
