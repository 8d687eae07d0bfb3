// The chat panel's cards: a question from the agent (buttons for a confirmation or a choice; a
// free answer goes in the box) and approval requests (what will happen, and three answers; the
// outcome in the words of chat-text.ts once the core settles it).
import type {} from "obsidian";
import type { ApprovalDecision, ApprovalRequest, QuestionType } from "smarthole-core";
import type { ChatBackend } from "./panel-api.ts";
import { approvalOutcome } from "./chat-text.ts";

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

/** The approval cards on screen, by request id. */
export class ApprovalCards {
  private readonly cards = new Map<string, HTMLElement>();

  constructor(private readonly backend: Pick<ChatBackend, "decideApproval">) {}

  /** A card for an action that waits on the user: what will happen, and three answers. Returns
   *  whether a card was added (none when the request has one already). */
  add(parent: HTMLElement, request: ApprovalRequest): boolean {
    if (this.cards.has(request.id)) return false;
    const card = parent.createDiv({ cls: "smarthole-card smarthole-approval", attr: { "data-approval-id": request.id } });
    const external = request.origin === "api";
    card.createDiv({ cls: "smarthole-approval-title", text: external ? "An agent on this computer asks for approval" : "Approval needed" });
    card.createDiv({ cls: "smarthole-body", text: request.summary });
    if (request.details !== undefined) {
      const details = card.createEl("details", { cls: "smarthole-approval-details" });
      details.createEl("summary", { text: "Details" });
      const text = JSON.stringify(request.details, null, 2);
      details.createEl("pre", { text: text.length > APPROVAL_DETAILS_CHARS ? `${text.slice(0, APPROVAL_DETAILS_CHARS)}…` : text });
    }
    const expires = new Date(request.expiresMs).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
    card.createDiv({ cls: "smarthole-hint", text: `Not done unless you approve by ${expires}.` });
    const buttons = card.createDiv({ cls: "smarthole-options" });
    const choices: [string, ApprovalDecision, string][] = [
      ["Approve once", "approve_once", "mod-cta"],
      [external ? "Approve for this session" : "Approve for this conversation", "approve_conversation", ""],
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
    for (const b of Array.from(card.querySelectorAll("button"))) b.disabled = true;
    card.querySelector(".smarthole-approval-outcome")?.setText(approvalOutcome(request));
  }

  /** The messages were cleared: their cards are gone. */
  clear(): void {
    this.cards.clear();
  }

  private async decide(id: string, decision: ApprovalDecision): Promise<void> {
    const card = this.cards.get(id);
    for (const b of Array.from(card?.querySelectorAll("button") ?? [])) b.disabled = true;
    try {
      this.settle(await this.backend.decideApproval(id, decision));
    } catch (error) {
      card?.querySelector(".smarthole-approval-outcome")?.setText(error instanceof Error ? error.message : String(error));
    }
  }
}
