// A turn's review in the chat panel: its approval and change cards placed under the tool calls
// that raised them (live, and from `turnReview` when a conversation is reopened), and "Undo
// changes" under an answer that changed notes, with what Undo did note by note.
import type {} from "obsidian";
import type { ApprovalRequest, TurnReview, UndoReport } from "smarthole-core";
import type { RuntimeEvent } from "../core/runtime-event.ts";
import type { AnswerBubble } from "./answer-bubble.ts";
import type { ApprovalCards } from "./cards.ts";
import type { CoreCalls } from "./panel-api.ts";
import { undoWords } from "./chat-text.ts";

/** An approval request's card, under its tool call's chip when the answer is on screen. */
export function placeApproval(cards: ApprovalCards, bubble: AnswerBubble | undefined, elsewhere: HTMLElement, request: ApprovalRequest): boolean {
  const added = cards.add(bubble ? bubble.cardSlot(request.toolUseId) : elsewhere, request);
  if (request.status !== "pending") settleApproval(cards, bubble, request);
  return added;
}

/** A settled request: its card and its chip say how. */
export function settleApproval(cards: ApprovalCards, bubble: AnswerBubble | undefined, request: ApprovalRequest): void {
  cards.settle(request);
  if (request.toolUseId) bubble?.toolApproval(request.toolUseId, request);
}

/** A reopened turn's cards: every approval it asked and every change it applied, each at its tool
 *  call; "Undo changes" when some change still stands. */
export function drawReview(cards: ApprovalCards, bubble: AnswerBubble, messageId: string, review: TurnReview, backend: Pick<CoreCalls, "undoTurn">): void {
  for (const request of review.approvals) placeApproval(cards, bubble, bubble.el, request);
  for (const applied of review.changes) {
    cards.applied(bubble.cardSlot(applied.toolUseId), messageId, applied.toolUseId, applied.change, applied.appliedHunks, applied.undone);
  }
  if (review.changes.length > 0) offerUndo(bubble, messageId, backend, review.changes.every((c) => c.undone));
}

/** "Undo changes" under an answer (once); `undone`: every change was undone already. */
export function offerUndo(bubble: AnswerBubble, messageId: string, backend: Pick<CoreCalls, "undoTurn">, undone = false): void {
  const row = bubble.undoSlot();
  if (row.childElementCount > 0) return;
  const button = row.createEl("button", { text: "Undo changes", cls: "smarthole-undo-button" });
  const result = row.createSpan({ cls: "smarthole-undo-result", text: undone ? "Changes undone." : "" });
  button.disabled = undone;
  button.addEventListener("click", () => {
    button.disabled = true;
    backend.undoTurn(messageId).then(
      (report) => showUndone(bubble, report),
      (error: unknown) => {
        result.setText(error instanceof Error ? error.message : String(error));
        button.disabled = false;
      },
    );
  });
}

/** What Undo did, under the answer; the button stays for the notes it could not restore. */
export function showUndone(bubble: AnswerBubble, report: UndoReport): void {
  const row = bubble.undoSlot();
  row.querySelector(".smarthole-undo-result")?.setText(undoWords(report));
  const button = row.querySelector<HTMLButtonElement>(".smarthole-undo-button");
  if (button) button.disabled = report.refused.length === 0;
}

/** The panel's answers: the one for a message (made when `make`). */
type AnswerOf = (messageId: string, make: boolean) => AnswerBubble | undefined;

/** Draws what an event says about approvals and changes; false when it is about something else. */
export function onReviewEvent(event: RuntimeEvent, cards: ApprovalCards, answerOf: AnswerOf, backend: Pick<CoreCalls, "undoTurn">): boolean {
  switch (event.type) {
    case "approval_resolved":
      settleApproval(cards, answerOf(event.request.messageId ?? "", false), event.request);
      return true;
    case "change_applied": {
      const bubble = answerOf(event.messageId, true);
      if (!bubble) return true;
      cards.applied(bubble.cardSlot(event.toolUseId), event.messageId, event.toolUseId, event.change, event.appliedHunks, false);
      offerUndo(bubble, event.messageId, backend);
      return true;
    }
    case "turn_undone": {
      cards.undone(event.report);
      const bubble = answerOf(event.report.messageId, false);
      if (bubble) showUndone(bubble, event.report);
      return true;
    }
    default:
      return false;
  }
}
