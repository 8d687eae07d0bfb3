// What a message carries besides its text: the chips above the input (a note, folder, image or
// PDF each, saying what will be sent or why it cannot be), the chip of the note open in the
// editor (on until it has gone with a message; a click switches it), the `@` picker, and files
// pasted, dropped or chosen with the Attach button. Every check, read, copy and decision to scale
// an image down is the core's (attachVault, attachBytes); the host's scaleImage does the drawing.
import type {} from "obsidian";
import type { Attachment, Mention } from "smarthole-core";
import type { CoreCalls } from "./panel-api.ts";

/** The core's calls the chips make: attaching, the picker's matches, and why a pasted file of
 * its size cannot be attached (asked before it is read). */
type AttachCalls = Pick<CoreCalls, "attachVault" | "attachBytes" | "mentions" | "pasteSizeProblem">;

const PICKER_ROWS = 12;

/** How a chip describes an attachment: its name, and its size or where it was cut. */
export function chipText(a: Attachment): { name: string; detail: string } {
  const name = a.kind === "folder" ? `${a.path.replace(/\/$/, "")}/` : (a.path.split("/").pop() ?? a.path);
  const size = a.bytes >= 1024 * 1024 ? `${(a.bytes / 1024 / 1024).toFixed(1)} MB` : `${Math.max(1, Math.round(a.bytes / 1024))} KB`;
  const detail = a.cut ?? (a.kind === "image" && a.pixels ? `${a.pixels[0]}×${a.pixels[1]}` : a.kind === "pdf" && a.pages ? `${a.pages} page${a.pages === 1 ? "" : "s"}` : size);
  return { name, detail };
}

/** What the Attach button offers to choose; the core still decides by the bytes. */
const CHOOSABLE = "image/png,image/jpeg,image/gif,image/webp,application/pdf,.pdf";

/** Files reach the tray three ways: pasted into the input, dropped on the chat, or chosen with
 * the Attach button — on a phone, the only way to a photo or a downloaded PDF. */
export function takeFiles(tray: AttachmentTray, chat: HTMLElement, input: HTMLTextAreaElement, composer: HTMLElement): void {
  const add = (files: FileList | null | undefined, event?: Event): void => {
    const list = [...(files ?? [])];
    if (list.length === 0) return;
    event?.preventDefault();
    list.forEach((file) => tray.addFile(file));
  };
  input.addEventListener("paste", (event) => add(event.clipboardData?.files, event));
  chat.addEventListener("dragover", (event) => event.preventDefault());
  chat.addEventListener("drop", (event) => add(event.dataTransfer?.files, event));
  const chooser = composer.createEl("input", { cls: "smarthole-hidden", attr: { type: "file", accept: CHOOSABLE, multiple: "" } });
  const button = composer.createEl("button", { cls: "smarthole-attach", text: "Attach", attr: { "aria-label": "Attach images or PDFs", title: "Attach images or PDFs (or paste or drop them here; @ attaches a note)" } });
  button.addEventListener("click", () => chooser.click());
  chooser.addEventListener("change", () => {
    add(chooser.files);
    chooser.value = "";
  });
}

/** A chip showing an attachment already sent (in the transcript). */
export function drawSentChips(parent: HTMLElement, attachments: Attachment[]): void {
  if (attachments.length === 0) return;
  const row = parent.createDiv({ cls: "smarthole-chips smarthole-chips-sent" });
  for (const a of attachments) drawChipBody(row.createDiv({ cls: `smarthole-chip smarthole-chip-${a.kind}`, attr: { title: a.path } }), a);
}

function drawChipBody(chip: HTMLElement, a: Attachment): void {
  const { name, detail } = chipText(a);
  chip.createSpan({ cls: "smarthole-chip-name", text: name });
  chip.createSpan({ cls: "smarthole-chip-detail", text: detail });
}

interface Chip {
  el: HTMLElement;
  /** Settles with the attachment, or the reason it cannot go. */
  result: Promise<Attachment | string>;
}

/** The chips of the message being written. */
export class AttachmentTray {
  private readonly row: HTMLElement;
  private chips: Chip[] = [];
  /** The note open in the editor, and whether it goes with the next message. */
  private currentNote: { path: string; on: boolean; el: HTMLElement } | null = null;

  constructor(parent: HTMLElement, private readonly backend: AttachCalls) {
    this.row = parent.createDiv({ cls: "smarthole-chips smarthole-tray" });
  }

  /** A note, folder, image or PDF of the vault (chosen in the picker). */
  addVault(path: string): void {
    this.add(path, () => this.backend.attachVault(path));
  }

  /** A file pasted or dropped into the chat: refused by its size before it is read. */
  addFile(file: File): void {
    const name = file.name || (file.type.startsWith("image/") ? `Pasted image.${file.type.slice(6)}` : "Pasted file");
    const problem = this.backend.pasteSizeProblem(name, file.size);
    this.add(name, async () => {
      if (problem) throw new Error(problem);
      return this.backend.attachBytes(name, new Uint8Array(await file.arrayBuffer()));
    });
  }

  /** The note now open in the editor: its chip is on until it has gone with a message. */
  setCurrentNote(path: string | null): void {
    if (this.currentNote?.path === path) return;
    this.currentNote?.el.remove();
    this.currentNote = null;
    if (!path) return;
    const el = this.row.createDiv({ cls: "smarthole-chip smarthole-chip-current", attr: { role: "switch", tabindex: "0", title: `${path}: click to switch whether it goes with the message` } });
    el.createSpan({ cls: "smarthole-chip-name", text: path.split("/").pop() ?? path });
    el.createSpan({ cls: "smarthole-chip-detail", text: "current note" });
    this.currentNote = { path, on: true, el };
    const toggle = () => this.switchCurrent(!this.currentNote?.on);
    el.addEventListener("click", toggle);
    el.addEventListener("keydown", (e) => (e.key === " " || e.key === "Enter") && (e.preventDefault(), toggle()));
    this.switchCurrent(true);
  }

  private switchCurrent(on: boolean): void {
    if (!this.currentNote) return;
    this.currentNote.on = on;
    this.currentNote.el.toggleClass("is-off", !on);
    this.currentNote.el.setAttribute("aria-checked", String(on));
  }

  private add(label: string, attach: () => Promise<Attachment>): void {
    const el = this.row.createDiv({ cls: "smarthole-chip is-pending", attr: { title: label } });
    el.createSpan({ cls: "smarthole-chip-name", text: label.split("/").pop() ?? label });
    const remove = el.createEl("button", { cls: "smarthole-chip-remove", text: "×", attr: { "aria-label": `Remove ${label}` } });
    const chip: Chip = {
      el,
      result: attach().then(
        (a) => {
          el.removeClass("is-pending");
          el.addClass(`smarthole-chip-${a.kind}`);
          el.querySelector(".smarthole-chip-name")?.remove();
          drawChipBody(el, a);
          el.appendChild(remove);
          return a;
        },
        (error: unknown) => {
          const reason = error instanceof Error ? error.message : String(error);
          el.removeClass("is-pending");
          el.addClass("smarthole-chip-error");
          el.createSpan({ cls: "smarthole-chip-detail", text: reason });
          el.setAttribute("title", reason);
          el.appendChild(remove);
          return reason;
        },
      ),
    };
    remove.addEventListener("click", () => {
      el.remove();
      this.chips = this.chips.filter((c) => c !== chip);
    });
    this.chips.push(chip);
  }

  /** How many chips the message has (the current note's included when on). */
  get count(): number {
    return this.chips.length + (this.currentNote?.on ? 1 : 0);
  }

  /**
   * What the message carries, once every chip has settled; a reason (shown by the caller, the
   * message kept in the input) when one cannot go.
   */
  async collect(): Promise<Attachment[] | string> {
    const out: Attachment[] = [];
    const settled = await Promise.all(this.chips.map((c) => c.result));
    for (const result of settled) {
      if (typeof result === "string") return `Remove the attachment that cannot be sent first: ${result}`;
      out.push(result);
    }
    const current = this.currentNote;
    if (current?.on && !out.some((a) => a.path === current.path)) {
      try {
        out.unshift(await this.backend.attachVault(current.path));
      } catch (error) {
        return `The current note cannot be sent (${error instanceof Error ? error.message : String(error)}); click its chip to leave it out.`;
      }
    }
    return out;
  }

  /** After sending: the chips go, and the current note has gone with the message. */
  sent(): void {
    for (const chip of this.chips) chip.el.remove();
    this.chips = [];
    this.switchCurrent(false);
  }
}

/** The `@` picker: typing `@` opens a list over the vault; arrows, Enter or Tab, Esc; or the pointer. */
export class MentionPicker {
  private readonly list: HTMLElement;
  private items: Mention[] = [];
  private selected = 0;
  /** Where the `@` is in the input while the picker is open. */
  private at = -1;
  private asked = 0;
  /** The query the list shows (tests and the benchmark wait for it). */
  shown: string | null = null;

  constructor(
    parent: HTMLElement,
    private readonly input: HTMLTextAreaElement,
    private readonly backend: AttachCalls,
    private readonly choose: (path: string) => void,
  ) {
    this.list = parent.createDiv({ cls: "smarthole-mentions smarthole-hidden", attr: { role: "listbox", "aria-label": "Notes and folders" } });
    input.addEventListener("input", () => void this.update());
    // The vault is listed (once per change of its names) before the first `@`, not on it.
    input.addEventListener("focus", () => void backend.mentions("", 0).catch(() => undefined));
    input.addEventListener("keydown", (event) => this.onKey(event));
    // Later, so a click on a row lands first; and only if the focus has not come back meanwhile
    // (a picker opened since would be closed by the old blur).
    input.addEventListener("blur", () => window.setTimeout(() => input.ownerDocument.activeElement !== input && this.close(), 150));
  }

  get open(): boolean {
    return this.at >= 0;
  }

  /** The `@…` before the caret, if the caret is in one. */
  private query(): { at: number; text: string } | null {
    const caret = this.input.selectionStart ?? this.input.value.length;
    const before = this.input.value.slice(0, caret);
    const match = /(?:^|\s)@([^\n@]{0,120})$/.exec(before);
    return match ? { at: caret - match[1].length - 1, text: match[1] } : null;
  }

  private async update(): Promise<void> {
    const q = this.query();
    if (!q) return this.close();
    this.at = q.at;
    const ask = ++this.asked;
    const items = await this.backend.mentions(q.text, PICKER_ROWS);
    if (ask !== this.asked || !this.open) return;
    this.items = items;
    this.selected = 0;
    this.render(q.text);
  }

  private render(query: string): void {
    this.list.empty();
    this.list.toggleClass("smarthole-hidden", false);
    if (this.items.length === 0) this.list.createDiv({ cls: "smarthole-mention-empty", text: "No note or folder matches" });
    this.items.forEach((item, i) => {
      const row = this.list.createDiv({ cls: "smarthole-mention", attr: { role: "option", "aria-selected": String(i === this.selected), "data-path": item.path } });
      const slash = item.path.lastIndexOf("/");
      row.createSpan({ cls: "smarthole-mention-name", text: item.path.slice(slash + 1) + (item.isFolder ? "/" : "") });
      if (slash > 0) row.createSpan({ cls: "smarthole-mention-folder", text: item.path.slice(0, slash) });
      // mousedown, not click: the input keeps its focus.
      row.addEventListener("mousedown", (event) => {
        event.preventDefault();
        this.pick(i);
      });
    });
    this.shown = query;
    this.list.setAttribute("data-query", query);
  }

  private onKey(event: KeyboardEvent): void {
    if (!this.open || this.items.length === 0) {
      if (this.open && event.key === "Escape") this.close();
      return;
    }
    const move = (by: number) => {
      this.selected = (this.selected + by + this.items.length) % this.items.length;
      this.list.querySelectorAll(".smarthole-mention").forEach((row, i) => row.setAttribute("aria-selected", String(i === this.selected)));
      this.list.querySelectorAll(".smarthole-mention")[this.selected]?.scrollIntoView({ block: "nearest" });
    };
    const keys: Record<string, () => void> = {
      ArrowDown: () => move(1),
      ArrowUp: () => move(-1),
      Enter: () => this.pick(this.selected),
      Tab: () => this.pick(this.selected),
      Escape: () => this.close(),
    };
    const act = keys[event.key];
    if (!act || (event.key === "Enter" && event.shiftKey)) return;
    event.preventDefault();
    event.stopImmediatePropagation();
    act();
  }

  /** Takes the `@query` out of the input and attaches what was chosen. */
  private pick(i: number): void {
    const item = this.items[i];
    if (!item) return;
    const caret = this.input.selectionStart ?? this.input.value.length;
    const value = this.input.value;
    this.input.value = value.slice(0, this.at) + value.slice(caret);
    this.input.setSelectionRange(this.at, this.at);
    this.close();
    this.choose(item.path);
  }

  close(): void {
    this.at = -1;
    this.asked++;
    this.items = [];
    this.shown = null;
    this.list.empty();
    this.list.removeAttribute("data-query");
    this.list.toggleClass("smarthole-hidden", true);
  }
}
