// The inline review's widgets, drawn between the note's lines (never in its text): the ask box,
// the proposal's header, each hunk's added lines with its Accept / Reject buttons, and "Undo
// changes". Every control is a labelled button or input, reachable by Tab and by touch.
import { WidgetType, type EditorView } from "@codemirror/view";
import type {} from "obsidian";
import type { DiffLine } from "smarthole-core";
import { keyWords } from "../ui/hunk-keys.ts";
import { closeAskBox, decide, decideAll, dismissUndoOffer, stopAndDrop, submitAsk, undoEdit } from "./inline-actions.ts";
import type { InlineHunk, UndoOffer } from "./inline-state.ts";

/** The label of the ask box's input (tests and screen readers find it by this). */
export const ASK_LABEL = "What should the agent do with the selection?";

/** A widget's outer element (Obsidian's maker; a popout window's editor adopts it on insertion). */
function root(cls: string): HTMLDivElement {
  return createDiv({ cls });
}

function button(parent: HTMLElement, cls: string, text: string, label: string, run: () => void): HTMLButtonElement {
  const b = parent.createEl("button", { cls: `smarthole-inline-button ${cls}`, text, attr: { type: "button", "aria-label": label } });
  b.addEventListener("click", (event) => {
    event.preventDefault();
    run();
  });
  return b;
}

/** The box at the selection: the instruction, Enter to send, Escape to close. */
export class AskWidget extends WidgetType {
  constructor(readonly error: string | null) {
    super();
  }
  override eq(other: AskWidget): boolean {
    return other.error === this.error;
  }
  toDOM(view: EditorView): HTMLElement {
    const box = root("smarthole-inline-ask");
    const input = box.createEl("input", { cls: "smarthole-inline-ask-input", attr: { type: "text", "aria-label": ASK_LABEL, placeholder: "Make it shorter, turn it into a table…" } });
    input.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.isComposing && input.value.trim()) {
        event.preventDefault();
        submitAsk(view, input.value);
      } else if (event.key === "Escape") {
        event.preventDefault();
        closeAskBox(view);
      }
      event.stopPropagation();
    });
    box.createDiv({ cls: "smarthole-inline-hint", text: "Enter to send, Escape to close" });
    box.createDiv({ cls: "smarthole-inline-error", attr: { role: "alert" } });
    this.fill(box);
    // Focus once it is in the document (the widget is drawn after this returns).
    view.dom.ownerDocument.defaultView?.requestAnimationFrame(() => input.focus());
    return box;
  }
  override updateDOM(dom: HTMLElement): boolean {
    this.fill(dom);
    return true;
  }
  private fill(box: HTMLElement): void {
    const error = box.querySelector(".smarthole-inline-error");
    if (error) error.textContent = this.error ?? "";
  }
}

/** The proposal's header: what the core said of its scope, where it is, and the keys. */
export class HeaderWidget extends WidgetType {
  constructor(
    readonly said: string,
    readonly status: string,
    readonly review: boolean,
    readonly error: string | null,
  ) {
    super();
  }
  override eq(other: HeaderWidget): boolean {
    return other.said === this.said && other.status === this.status && other.review === this.review && other.error === this.error;
  }
  toDOM(view: EditorView): HTMLElement {
    const box = root("smarthole-inline-header");
    box.createDiv({ cls: "smarthole-inline-said", text: this.said });
    box.createDiv({ cls: "smarthole-inline-status", text: this.status, attr: { role: "status" } });
    if (this.error) box.createDiv({ cls: "smarthole-inline-error", text: this.error, attr: { role: "alert" } });
    const row = box.createDiv({ cls: "smarthole-inline-actions" });
    if (this.review) {
      button(row, "smarthole-inline-accept-all", "Accept all", "Accept all changes", () => decideAll(view, "accepted"));
      button(row, "smarthole-inline-reject-all", "Reject all", "Reject all changes", () => decideAll(view, "rejected"));
    }
    button(row, "smarthole-inline-stop", this.review ? "Drop" : "Stop", "Stop and drop the proposal", () => void stopAndDrop(view));
    return box;
  }
}

/** A line's text without its line break, changed words marked when the diff gives them. */
function lineNode(parent: HTMLElement, line: DiffLine): void {
  const node = parent.createDiv({ cls: "smarthole-inline-added" });
  const strip = (t: string) => t.replace(/\r?\n$/, "");
  if (line.words?.length) {
    for (const w of line.words) {
      const text = strip(w.text);
      if (text && w.changed) node.createSpan({ cls: "smarthole-inline-added-word", text });
      else if (text) node.appendText(text);
    }
  } else node.setText(strip(line.text));
  // An empty line keeps its height.
  if (!node.textContent) node.createEl("br");
}

/** After a hunk's old lines: the lines it would add, and — in review — its Accept and Reject. */
export class HunkWidget extends WidgetType {
  constructor(
    readonly hunk: InlineHunk,
    readonly total: number,
    readonly review: boolean,
  ) {
    super();
  }
  override eq(other: HunkWidget): boolean {
    const [a, b] = [this.hunk, other.hunk];
    return a.number === b.number && a.decision === b.decision && this.total === other.total && this.review === other.review && JSON.stringify(a.added) === JSON.stringify(b.added);
  }
  toDOM(view: EditorView): HTMLElement {
    const { number, decision } = this.hunk;
    const box = root(`smarthole-inline-hunk${decision ? ` smarthole-inline-${decision}` : ""}`);
    box.dataset.hunk = String(number);
    if (decision !== "rejected") for (const line of this.hunk.added) lineNode(box, line);
    const of = `change ${number} of ${this.total}`;
    if (decision) {
      box.createDiv({ cls: "smarthole-inline-decision", text: decision === "accepted" ? `Accepted ${of}` : `Rejected ${of}` });
    } else if (this.review) {
      const row = box.createDiv({ cls: "smarthole-inline-actions" });
      button(row, "smarthole-inline-accept", "Accept", `Accept ${of}`, () => decide(view, [number], "accepted")).title = `Accept (${keyWords("Mod-Enter")})`;
      button(row, "smarthole-inline-reject", "Reject", `Reject ${of}`, () => decide(view, [number], "rejected")).title = `Reject (${keyWords("Mod-Backspace")})`;
    }
    return box;
  }
}

/** "Undo changes" at the edited lines, until the next edit or until dismissed. */
export class UndoWidget extends WidgetType {
  constructor(readonly offer: UndoOffer) {
    super();
  }
  override eq(other: UndoWidget): boolean {
    return other.offer.messageId === this.offer.messageId && other.offer.state === this.offer.state && other.offer.text === this.offer.text;
  }
  toDOM(view: EditorView): HTMLElement {
    const box = root("smarthole-inline-undo");
    box.createSpan({ cls: "smarthole-inline-undo-status", text: this.offer.text || "The agent's change was applied.", attr: { role: "status" } });
    if (this.offer.state === "offered") button(box, "smarthole-inline-undo-button", "Undo changes", "Undo the agent's changes", () => undoEdit(view));
    button(box, "smarthole-inline-dismiss", "Dismiss", "Dismiss", () => dismissUndoOffer(view));
    return box;
  }
}
