// The Related notes panel (issue 35): the notes closest in meaning to the note open in the
// editor, as the core ranks them (`relatedNotes`), each with its title, folder and the passage
// that relates them; activating one (click, tap, Enter) opens it at that passage. Asked again
// when the open note changes and when the meaning index moves (its state, or the notes and
// passages it holds — not each progress step, and at most once a settle time). What the core
// says instead of a list (off, building, paused) is shown as it says it. Mounted by the
// plugin's ItemView (plugin/related-view.ts) and by a plain page (page/main.ts, browser tests).
import type {} from "obsidian";
import type { RelatedNote, RelatedNotes } from "smarthole-core";
import type { RuntimeEvent } from "../core/runtime-event.ts";
import type { ChatBackend, PanelOptions } from "./panel-api.ts";

/** What the panel needs from the runtime. */
export type RelatedBackend = Pick<ChatBackend, "ready" | "subscribe" | "processor">;

/** Where the panel is mounted: how to open a note, and which note the editor shows. */
export interface RelatedOptions {
  /** Shows a note in the editor at a line (1-based). */
  openNote: PanelOptions["openNote"];
  activeNote: NonNullable<PanelOptions["activeNote"]>;
  /** How long the panel lets the index settle before asking again after it moved (ms). */
  settleMs?: number;
}

/** How many notes the panel lists. */
export const RELATED_LIMIT = 10;
const SETTLE_MS = 1000;

/** The meaning index as the panel last heard of it (what "moved" is measured against). */
type IndexMark = { state: string; notes: number; passages: number };

/** A note's title (its name without `.md`) and its folder ("" at the vault's root). */
export function titleAndFolder(path: string): { title: string; folder: string } {
  const slash = path.lastIndexOf("/");
  const name = path.slice(slash + 1);
  return { title: name.replace(/\.md$/i, ""), folder: slash < 0 ? "" : path.slice(0, slash) };
}

let ids = 0;

export class RelatedNotesPanel {
  readonly root: HTMLElement;
  private readonly heading: HTMLElement;
  private readonly status: HTMLElement;
  private readonly list: HTMLElement;
  private path: string | null;
  /** The last request's number: an answer to an older one is dropped. */
  private asked = 0;
  private timer: number | null = null;
  private mark: IndexMark | null = null;
  private unsubscribe: (() => void) | null = null;
  private unfollow: (() => void) | null = null;

  constructor(
    parent: HTMLElement,
    private readonly backend: RelatedBackend,
    private readonly options: RelatedOptions,
  ) {
    this.root = parent.createDiv({ cls: "smarthole-related" });
    this.heading = this.root.createDiv({ cls: "smarthole-related-heading", attr: { role: "heading", "aria-level": 2 } });
    this.status = this.root.createDiv({ cls: "smarthole-hint smarthole-related-status", attr: { role: "status", "aria-live": "polite" } });
    this.list = this.root.createEl("ul", { cls: "smarthole-related-list" });
    this.list.addEventListener("keydown", (event) => this.moveFocus(event));
    this.path = options.activeNote.current();
  }

  /** Starts following the open note and the core's events; shows the first list. */
  mount(): void {
    this.unsubscribe = this.backend.subscribe((event) => this.onEvent(event));
    this.unfollow = this.options.activeNote.subscribe((path) => {
      if (path === this.path) return;
      this.path = path;
      void this.refresh();
    });
    void this.refresh();
  }

  destroy(): void {
    this.unsubscribe?.();
    this.unfollow?.();
    if (this.timer !== null) window.clearTimeout(this.timer);
    this.timer = null;
    this.asked++;
    this.root.remove();
  }

  private onEvent(event: RuntimeEvent): void {
    if (event.type === "ready" || event.type === "core_restarted") {
      void this.refresh();
      return;
    }
    if (event.type !== "meaning_index") return;
    const mark: IndexMark = { state: event.state, notes: event.notes, passages: event.passages };
    const moved = this.mark === null || mark.state !== this.mark.state || mark.notes !== this.mark.notes || mark.passages !== this.mark.passages;
    this.mark = mark;
    if (moved) this.settle();
  }

  /** Asks again once the index has had time to settle (one request for a burst of moves). */
  private settle(): void {
    if (this.timer !== null) return;
    this.timer = window.setTimeout(() => {
      this.timer = null;
      void this.refresh();
    }, this.options.settleMs ?? SETTLE_MS);
  }

  /** Asks the core for the open note's related notes and draws the answer. */
  async refresh(): Promise<void> {
    const request = ++this.asked;
    const path = this.path;
    this.heading.setText(path ? `Related to ${titleAndFolder(path).title}` : "Related notes");
    if (!path) return this.draw(null, "Open a note to see the notes related to it.");
    if (!this.backend.ready) return this.draw(null, "Preparing…");
    let answer: RelatedNotes;
    try {
      answer = await this.backend.processor.relatedNotes(path, RELATED_LIMIT);
    } catch (error) {
      answer = { notes: [], note: `Related notes could not be found: ${error instanceof Error ? error.message : String(error)}` };
    }
    if (request !== this.asked) return;
    this.draw(answer.notes, answer.note ?? (answer.notes.length === 0 ? "No note is close in meaning to this one." : null));
  }

  private draw(notes: RelatedNote[] | null, note: string | null): void {
    this.status.setText(note ?? "");
    this.status.toggleClass("smarthole-hidden", !note);
    this.list.empty();
    if (!notes || notes.length === 0) return;
    this.list.setAttribute("aria-label", this.heading.textContent ?? "Related notes");
    for (const related of notes) this.item(related);
  }

  /** One note: a button (focusable, Enter or a tap opens it) with its title, folder, passage. */
  private item(related: RelatedNote): void {
    const { title, folder } = titleAndFolder(related.path);
    const li = this.list.createEl("li", { cls: "smarthole-related-item" });
    const passageId = `smarthole-related-passage-${++ids}`;
    const where = folder ? `in ${folder}` : "at the vault's root";
    const button = li.createEl("button", {
      cls: "smarthole-related-open",
      attr: { "aria-label": `Open ${title}, ${where}, at line ${related.firstLine}`, "aria-describedby": passageId, "data-path": related.path },
    });
    button.createSpan({ cls: "smarthole-related-title", text: title });
    if (folder) button.createSpan({ cls: "smarthole-related-folder", text: folder });
    button.createSpan({ cls: "smarthole-related-passage", text: related.passage, attr: { id: passageId } });
    button.addEventListener("click", () => this.options.openNote(related.path, related.firstLine));
  }

  /** Up and down arrows move between the notes (Tab does too). */
  private moveFocus(event: KeyboardEvent): void {
    if (event.key !== "ArrowDown" && event.key !== "ArrowUp") return;
    const buttons = Array.from(this.list.querySelectorAll<HTMLButtonElement>(".smarthole-related-open"));
    const at = buttons.findIndex((b) => b === this.list.ownerDocument.activeElement);
    const next = buttons[at + (event.key === "ArrowDown" ? 1 : -1)];
    if (!next) return;
    event.preventDefault();
    next.focus();
  }
}
