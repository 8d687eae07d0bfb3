// One answer as it is built in the chat panel, in the order things happened: the text each model
// call streams (plain while streaming, Markdown once finished), each tool call as a chip in words
// with its raw input and result one click away, and under a chip the cards it raised (approval,
// diff); then "Undo changes" when the turn changed notes, a status line (retrying, stopped, a
// notice), and a copy button. An agent's plan (ACP) is a checklist where it first came, redrawn in
// place as its entries change.
import type {} from "obsidian";
import type { ApprovalRequest, PlanEntry, ProcessResult } from "smarthole-core";
import type { PanelOptions } from "./panel-api.ts";
import { toolOutcome } from "./chat-text.ts";

/** How a plan entry's status shows in its checklist. */
const PLAN_MARKS: Record<string, string> = { pending: "○", in_progress: "◐", completed: "✓" };

/** A run of text one model call streamed. */
interface TextSegment {
  el: HTMLElement;
  node: Text;
  text: string;
}

/** A tool call's chip, and where its cards go. */
interface Chip {
  el: HTMLElement;
  name: HTMLElement;
  result: HTMLElement;
  words: string;
  cards: HTMLElement;
  approval?: ApprovalRequest;
  finished?: { isError: boolean };
}

/** One answer being built: text streamed by each model call, tool chips and their cards, status. */
export class AnswerBubble {
  readonly el: HTMLElement;
  private readonly flow: HTMLElement;
  private readonly status: HTMLElement;
  private readonly segments: TextSegment[] = [];
  /** The segment the current model call streams into (none right after a chip or a card). */
  private live: TextSegment | null = null;
  private readonly chips = new Map<string, Chip>();
  private undoRow: HTMLElement | null = null;
  /** The plan's checklist, once the agent sent one. */
  private planList: HTMLElement | null = null;
  /** Where the turn's usage line goes (ui/usage.ts). */
  readonly usage: HTMLElement;
  finished = false;

  constructor(parent: HTMLElement, messageId: string) {
    this.el = parent.createDiv({ cls: "smarthole-msg smarthole-msg-assistant", attr: { "data-message-id": messageId } });
    this.flow = this.el.createDiv({ cls: "smarthole-flow" });
    this.status = this.el.createDiv({ cls: "smarthole-status" });
    this.usage = this.el.createDiv({ cls: "smarthole-usage" });
  }

  /** Everything streamed so far. */
  get text(): string {
    return this.segments
      .map((s) => s.text)
      .filter((t) => t)
      .join("\n\n");
  }

  append(text: string): void {
    if (!this.live) {
      const el = this.flow.createDiv({ cls: "smarthole-body smarthole-streaming" });
      const node = el.ownerDocument.createTextNode("");
      el.appendChild(node);
      this.live = { el, node, text: "" };
      this.segments.push(this.live);
    }
    this.live.text += text;
    this.live.node.appendData(text);
    this.status.setText("");
  }

  /** A new model call starts: what the previous one streamed stays, and the next text starts anew. */
  commit(): void {
    this.live = null;
  }

  /** The call failed and is retried: its partial text is void. */
  retrying(text: string): void {
    if (this.live) {
      this.live.text = "";
      this.live.node.data = "";
    }
    this.status.setText(text);
  }

  /** A tool call's chip, in the core's words for it (`words`); its name shows on hover. */
  toolStarted(id: string, name: string, words: string, input: unknown): void {
    if (this.chips.has(id)) return;
    this.live = null;
    this.status.setText("");
    const chip = this.flow.createEl("details", { cls: "smarthole-tool", attr: { "data-tool-use-id": id } });
    const summary = chip.createEl("summary", { text: `${words}…`, cls: "smarthole-tool-name", attr: { title: name } });
    chip.createEl("pre", { text: JSON.stringify(input, null, 2), cls: "smarthole-tool-input" });
    const result = chip.createDiv({ cls: "smarthole-tool-result", text: "Running…" });
    const cards = this.flow.createDiv({ cls: "smarthole-tool-cards" });
    this.chips.set(id, { el: chip, name: summary, result, words, cards });
  }

  /** The agent's plan, whole each time: a checklist where it first came, its entries redrawn. */
  plan(entries: PlanEntry[]): void {
    this.status.setText("");
    if (!this.planList) {
      this.live = null;
      const box = this.flow.createDiv({ cls: "smarthole-plan" });
      box.createDiv({ cls: "smarthole-plan-title", text: "Plan" });
      this.planList = box.createEl("ul", { cls: "smarthole-plan-entries" });
    }
    this.planList.empty();
    for (const entry of entries) {
      const item = this.planList.createEl("li", { cls: "smarthole-plan-entry", attr: { "data-status": entry.status } });
      item.createSpan({ cls: "smarthole-plan-mark", text: PLAN_MARKS[entry.status] ?? "○", attr: { "aria-label": entry.status.replace("_", " ") } });
      item.createSpan({ cls: "smarthole-plan-text", text: entry.content });
    }
  }

  toolFinished(id: string, isError: boolean, output: string): void {
    const chip = this.chips.get(id);
    if (!chip) return;
    chip.finished = { isError };
    chip.el.toggleClass("smarthole-tool-error", isError);
    chip.result.setText(output);
    this.sayOutcome(chip);
  }

  /** The approval a tool call asked for: its chip says what became of it ("— rejected"). */
  toolApproval(id: string, request: ApprovalRequest): void {
    const chip = this.chips.get(id);
    if (!chip) return;
    chip.approval = request;
    this.sayOutcome(chip);
  }

  private sayOutcome(chip: Chip): void {
    if (!chip.finished) return;
    chip.name.setText(chip.words + toolOutcome(chip.finished.isError, chip.approval));
  }

  /** Where a card raised by a tool call goes: under its chip (at the end when it has none). */
  cardSlot(toolUseId?: string): HTMLElement {
    const chip = toolUseId ? this.chips.get(toolUseId) : undefined;
    if (chip) return chip.cards;
    this.live = null;
    return this.flow.createDiv({ cls: "smarthole-tool-cards" });
  }

  /** The row under the answer for undoing its changes to the notes (made on first use). */
  undoSlot(): HTMLElement {
    if (!this.undoRow) {
      this.undoRow = this.el.createDiv({ cls: "smarthole-undo" });
      this.flow.after(this.undoRow);
    }
    return this.undoRow;
  }

  setStatus(text: string): void {
    this.status.setText(text);
  }

  /** The partial answer stays, marked as stopped. */
  stopped(): void {
    this.finished = true;
    this.el.addClass("smarthole-stopped");
    for (const segment of this.segments) segment.el.removeClass("smarthole-streaming");
    this.status.setText("Stopped");
  }

  /** Each model call's text rendered as Markdown where it was streamed, and a copy button for all
   *  of it (`markdown`, the turn's whole answer). */
  async finish(markdown: string, notice: string | undefined, options: PanelOptions): Promise<void> {
    this.finished = true;
    this.status.setText(notice ?? "");
    for (const segment of this.segments) segment.el.removeClass("smarthole-streaming");
    if (!markdown.trim()) {
      if (!this.text.trim() && this.chips.size === 0) this.el.addClass("smarthole-empty");
      return;
    }
    // Not streamed (an answer recorded before a restart): it goes at the end.
    if (!this.text.trim()) this.append(markdown);
    for (const segment of this.segments) {
      segment.el.empty();
      if (segment.text.trim()) await options.renderMarkdown(segment.text, segment.el);
    }
    const copy = this.el.createEl("button", { cls: "smarthole-copy", text: "Copy", attr: { "aria-label": "Copy the answer" } });
    copy.addEventListener("click", () => void options.copy(markdown));
  }
}

/** A failed message: the error, and Retry when the core says trying again may work. */
export function addErrorBox(parent: HTMLElement, result: ProcessResult, retry: (() => void) | undefined): void {
  const box = parent.createDiv({ cls: "smarthole-msg smarthole-msg-error", attr: { "data-message-id": result.messageId } });
  box.createDiv({ cls: "smarthole-body", text: result.error ?? "Something went wrong." });
  if (!retry || !result.retryable) return;
  const button = box.createEl("button", { text: "Retry", cls: "smarthole-retry" });
  button.addEventListener("click", () => {
    box.remove();
    retry();
  });
}
