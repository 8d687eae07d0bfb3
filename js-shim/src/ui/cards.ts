// The chat panel's cards: a question from the agent (buttons for a confirmation or a choice; a
// free answer goes in the box), approval requests (what will happen and the answers; a change to
// a note as its diff, accepted or rejected hunk by hunk, by pointer or by keys (card-keys.ts); the
// outcome in the words of chat-text.ts once the core settles it), and changes applied without asking (a new note, an auto-approved
// edit), each shown as a diff that says whether it was undone.
import type {} from "obsidian";
import type { ApprovalDecision, ApprovalRequest, ProposedChange, QuestionType, UndoReport } from "smarthole-core";
import type { CoreCalls } from "./panel-api.ts";
import { appliedWords, approvalOutcome, changeTitle } from "./chat-text.ts";
import { renderDiff } from "./diff-view.ts";
import { answerByKeys, endKeys, keyHint } from "./card-keys.ts";

/** Longest details shown on an approval card (a note's new content can be long). */
const APPROVAL_DETAILS_CHARS = 4000;

export interface QuestionHooks {
  renderMarkdown(markdown: string, el: HTMLElement): Promise<void>;
  /** Sends the chosen option as the reply. */
  answer(option: string): void;
  /** No options: the reply is typed in the box. */
  focusInput(): void;
}

/** A question as a card: buttons for a confirmation or a choice; a free answer goes in the box. */
export function addQuestionCard(parent: HTMLElement, prompt: string, kind: QuestionType, options: string[], hooks: QuestionHooks): void {
  const card = parent.createDiv({ cls: `smarthole-card smarthole-question smarthole-question-${kind}` });
  const body = card.createDiv({ cls: "smarthole-body" });
  void hooks.renderMarkdown(prompt, body);
  if (options.length > 0) {
    const buttons = card.createDiv({ cls: "smarthole-options" });
    for (const option of options) {
      const button = buttons.createEl("button", { text: option, cls: "smarthole-option" });
      button.addEventListener("click", () => {
        card.addClass("smarthole-answered");
        for (const b of Array.from(buttons.querySelectorAll("button"))) b.disabled = true;
        hooks.answer(option);
      });
    }
  } else {
    card.createDiv({ cls: "smarthole-hint", text: "Reply in the box below." });
    hooks.focusInput();
  }
}

/** What the cards need from the panel. */
export interface CardHooks {
  decideApproval: CoreCalls["decideApproval"];
  openNote(path: string, line?: number): void;
}

/** A card drawn for a change to a note (an approval's or an applied one's), to mark it undone. */
interface ChangeCard {
  card: HTMLElement;
  messageId: string;
  change: ProposedChange;
}

/** The approval and change cards on screen: approvals by request id, changes by tool call. */
export class ApprovalCards {
  private readonly cards = new Map<string, HTMLElement>();
  private readonly changes = new Map<string, ChangeCard>();

  constructor(private readonly hooks: CardHooks) {}

  /** A card for an action that waits on the user: what will happen and the answers; for a change
   *  to a note, its diff with Accept/Reject per hunk. Returns whether a card was added (none when
   *  the request has one already). */
  add(parent: HTMLElement, request: ApprovalRequest): boolean {
    if (this.cards.has(request.id)) return false;
    const card = parent.createDiv({ cls: "smarthole-card smarthole-approval", attr: { "data-approval-id": request.id } });
    const external = request.origin === "api";
    card.createDiv({ cls: "smarthole-approval-title", text: external ? "An agent on this computer asks for approval" : "Approval needed" });
    card.createDiv({ cls: "smarthole-body", text: request.summary });
    const change = request.change;
    const picked = new Map<number, boolean>();
    const several = !request.wholeOnly && (change?.hunks.length ?? 0) > 1;
    if (change) {
      this.remember(card, request.messageId, request.toolUseId, change);
      // A change taken whole or not at all has no answers per hunk.
      const pick = several
        ? (hunk: number, accept: boolean) => {
            picked.set(hunk, accept);
            // Every hunk decided: that is the answer.
            if (picked.size === change.hunks.length) {
              const accepted = change.hunks.map((h) => h.number).filter((n) => picked.get(n));
              void this.decide(request.id, accepted.length > 0 ? "approve_once" : "reject", accepted);
            }
          }
        : undefined;
      renderDiff(card, change, { openNote: (path, line) => this.hooks.openNote(path, line), pick });
      answerByKeys(card, change.hunks.length, {
        // Open until an answer is sent (decide disables the card's buttons).
        open: () => !card.querySelector<HTMLButtonElement>(".smarthole-options button")?.disabled,
        pick,
        all: (accept) => void this.decide(request.id, accept ? "approve_once" : "reject"),
      });
    } else if (request.details !== undefined) {
      const details = card.createEl("details", { cls: "smarthole-approval-details" });
      details.createEl("summary", { text: "Details" });
      const text = JSON.stringify(request.details, null, 2);
      details.createEl("pre", { text: text.length > APPROVAL_DETAILS_CHARS ? `${text.slice(0, APPROVAL_DETAILS_CHARS)}…` : text });
    }
    const expires = new Date(request.expiresMs).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
    const how = request.wholeOnly ? `${request.reason ?? "Only the whole change can be taken."} ` : several ? "Accept or reject each change, or all at once. " : "";
    card.createDiv({ cls: "smarthole-hint", text: `${how}Not done unless you approve by ${expires}.` });
    if (change && change.hunks.length > 0) {
      const keys = card.createDiv({ cls: "smarthole-hint smarthole-key-hint", text: keyHint(change.hunks.length, several), attr: { id: `smarthole-keys-${request.id}` } });
      // A screen reader says the keys when a hunk gets the focus.
      for (const hunk of Array.from(card.querySelectorAll(".smarthole-hunk"))) hunk.setAttribute("aria-describedby", keys.id);
    }
    const buttons = card.createDiv({ cls: "smarthole-options" });
    const conversation = external ? "for this session" : "for this conversation";
    const choices: [string, ApprovalDecision, string][] = several
      ? [
          ["Accept all", "approve_once", "mod-cta"],
          [`Accept all ${conversation}`, "approve_conversation", ""],
          ["Reject all", "reject", "mod-warning"],
        ]
      : [
          ["Approve once", "approve_once", "mod-cta"],
          [`Approve ${conversation}`, "approve_conversation", ""],
          ["Reject", "reject", "mod-warning"],
        ];
    for (const [label, decision, cls] of choices) {
      const button = buttons.createEl("button", { text: label, cls: `smarthole-approval-${decision} ${cls}`.trim() });
      button.addEventListener("click", () => void this.decide(request.id, decision));
    }
    card.createDiv({ cls: "smarthole-approval-outcome" });
    this.cards.set(request.id, card);
    return true;
  }

  /** The request is settled: its card shows how, and takes no more answers. */
  settle(request: ApprovalRequest): void {
    const card = this.cards.get(request.id);
    if (!card) return;
    card.addClass("smarthole-answered", `smarthole-approval-${request.status}`);
    endKeys(card);
    for (const b of Array.from(card.querySelectorAll("button:not(.smarthole-open-note)"))) (b as HTMLButtonElement).disabled = true;
    const partial = request.status === "approved" && request.change && request.acceptedHunks;
    const outcome = partial ? appliedWords(request.change as ProposedChange, request.acceptedHunks as number[]) : approvalOutcome(request);
    card.querySelector(".smarthole-approval-outcome")?.setText(outcome);
  }

  /** A change was applied: under its approval's card when it had one, else on a card of its own
   *  (a new note, an auto-approved edit). `undone`: reversed since. */
  applied(parent: HTMLElement, messageId: string, toolUseId: string, change: ProposedChange, hunks: number[], undone: boolean): void {
    let known = this.changes.get(toolUseId);
    if (!known) {
      const card = parent.createDiv({ cls: "smarthole-card smarthole-change" });
      card.createDiv({ cls: "smarthole-approval-title", text: changeTitle(change, true) });
      renderDiff(card, change, { openNote: (path, line) => this.hooks.openNote(path, line) });
      card.createDiv({ cls: "smarthole-approval-outcome" });
      known = this.remember(card, messageId, toolUseId, change);
    }
    const card = known.card;
    card.addClass("smarthole-change-applied");
    card.toggleClass("smarthole-change-undone", undone);
    // An approval's card already says what was approved.
    const outcome = card.querySelector(".smarthole-approval-outcome");
    if (undone) outcome?.setText("Undone");
    else if (!card.hasClass("smarthole-approval")) outcome?.setText(appliedWords(change, hunks));
  }

  /** A tool call failed: an approved change it did not apply (the note changed meanwhile) shows
   *  why on its card. */
  failed(toolUseId: string, output: string): void {
    const card = this.changes.get(toolUseId)?.card;
    if (!card?.hasClass("smarthole-approval-approved") || card.hasClass("smarthole-change-applied")) return;
    card.addClass("smarthole-change-conflict");
    card.querySelector(".smarthole-approval-outcome")?.setText(output);
  }

  /** A turn's changes were undone: the cards of the notes restored say so. */
  undone(report: UndoReport): void {
    for (const { card, messageId, change } of this.changes.values()) {
      if (messageId !== report.messageId || !report.restored.includes(change.path)) continue;
      card.addClass("smarthole-change-undone");
      card.querySelector(".smarthole-approval-outcome")?.setText("Undone");
    }
  }

  /** The messages were cleared: their cards are gone. */
  clear(): void {
    this.cards.clear();
    this.changes.clear();
  }

  private remember(card: HTMLElement, messageId: string | undefined, toolUseId: string | undefined, change: ProposedChange): ChangeCard {
    const known = { card, messageId: messageId ?? "", change };
    if (toolUseId) this.changes.set(toolUseId, known);
    return known;
  }

  private async decide(id: string, decision: ApprovalDecision, hunks?: number[]): Promise<void> {
    const card = this.cards.get(id);
    for (const b of Array.from(card?.querySelectorAll("button:not(.smarthole-open-note)") ?? [])) (b as HTMLButtonElement).disabled = true;
    try {
      this.settle(await this.hooks.decideApproval(id, decision, decision === "reject" ? undefined : hunks));
    } catch (error) {
      card?.querySelector(".smarthole-approval-outcome")?.setText(error instanceof Error ? error.message : String(error));
    }
  }
}
