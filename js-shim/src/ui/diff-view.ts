// A change to a note drawn as a diff: the path and "Open note", each hunk with its removed (red)
// and added (green) lines and the changed words marked, the unchanged runs between hunks folded
// to one line, and — while the change waits on the user — Accept/Reject on each hunk. Each hunk is
// a group a screen reader names ("Change 1 of 3, line 12: 2 lines removed, 3 added"); the keys
// that answer it are card-keys.ts's. The core computed the hunks (src/vault/diff.rs); this only
// draws them.
import type {} from "obsidian";
import type { DiffHunk, DiffLine, ProposedChange } from "smarthole-core";

/** Most diff lines drawn on one card: the rewrite of a huge note stays a light card. */
const MAX_DRAWN_LINES = 400;

export interface DiffHooks {
  openNote(path: string, line?: number): void;
  /** Present while the change waits on the user: a hunk's Accept or Reject was pressed. */
  pick?: (hunk: number, accept: boolean) => void;
}

/** Draws the change into `parent`; returns the diff's element. */
export function renderDiff(parent: HTMLElement, change: ProposedChange, hooks: DiffHooks): HTMLElement {
  const view = parent.createDiv({ cls: "smarthole-diff" });
  const head = view.createDiv({ cls: "smarthole-diff-head" });
  head.createSpan({ cls: "smarthole-diff-path", text: change.kind === "move" ? `${change.path} → ${change.to ?? ""}` : change.path });
  const shown = change.kind === "move" ? change.to : change.kind === "delete" ? undefined : change.path;
  if (shown) {
    const open = head.createEl("button", { text: "Open note", cls: "smarthole-open-note" });
    open.addEventListener("click", () => hooks.openNote(shown, change.hunks[0]?.newStart));
  }
  let drawn = 0;
  let total = 0;
  let nextOld = 1;
  for (const hunk of change.hunks) {
    total += hunk.lines.length;
    const gap = hunk.oldStart - nextOld;
    if (gap > 0 && drawn < MAX_DRAWN_LINES) view.createDiv({ cls: "smarthole-diff-fold", text: `⋯ ${gap} unchanged line${gap === 1 ? "" : "s"}` });
    nextOld = hunk.oldStart + hunk.oldLines;
    if (drawn >= MAX_DRAWN_LINES) continue;
    const of = `${hunk.number} of ${change.hunks.length}`;
    const box = view.createDiv({ cls: "smarthole-hunk", attr: { "data-hunk": String(hunk.number), role: "group", "aria-label": hunkWords(hunk, change.hunks.length) } });
    const bar = box.createDiv({ cls: "smarthole-hunk-head" });
    bar.createSpan({ text: `Change ${of} · line ${changedLine(hunk)}` });
    const pick = hooks.pick;
    if (pick && change.hunks.length > 1) {
      for (const [label, accept] of [["Accept", true], ["Reject", false]] as const) {
        const button = bar.createEl("button", { text: label, cls: `smarthole-hunk-${accept ? "accept" : "reject"}`, attr: { "aria-label": `${label} change ${of}` } });
        button.addEventListener("click", () => {
          markHunk(box, accept);
          pick(hunk.number, accept);
        });
      }
    }
    for (const line of hunk.lines.slice(0, MAX_DRAWN_LINES - drawn)) drawLine(box, line);
    drawn += Math.min(hunk.lines.length, MAX_DRAWN_LINES - drawn);
  }
  if (total > drawn) view.createDiv({ cls: "smarthole-diff-more", text: `${total - drawn} more lines not shown: open the note to see them.` });
  return view;
}

/** Shows a hunk's answer on it (its buttons, its lines struck out when rejected). */
export function markHunk(box: HTMLElement, accept: boolean): void {
  box.toggleClass("smarthole-hunk-accepted", accept);
  box.toggleClass("smarthole-hunk-rejected", !accept);
}

/** A hunk as a screen reader says it: "Change 1 of 3, line 12: 2 lines removed, 3 added". */
function hunkWords(hunk: DiffHunk, of: number): string {
  const lines = (n: number) => `${n} line${n === 1 ? "" : "s"}`;
  const removed = hunk.lines.filter((l) => l.kind === "removed").length;
  const added = hunk.lines.filter((l) => l.kind === "added").length;
  // "2 lines removed, 3 added"; "3 lines added" alone.
  const counts = removed > 0 ? [`${lines(removed)} removed`, added > 0 ? `${added} added` : ""] : [`${lines(added)} added`];
  return `Change ${hunk.number} of ${of}, line ${changedLine(hunk)}: ${counts.filter(Boolean).join(", ")}`;
}

/** The line (of the note as changed) where a hunk's first change is, past its context lines. */
function changedLine(hunk: DiffHunk): number {
  const context = hunk.lines.findIndex((l) => l.kind !== "context");
  return Math.max(hunk.newStart + Math.max(context, 0), 1);
}

const SIGNS = { context: " ", removed: "−", added: "+" } as const;

function drawLine(parent: HTMLElement, line: DiffLine): void {
  const row = parent.createDiv({ cls: `smarthole-diff-line smarthole-diff-${line.kind}` });
  row.createSpan({ cls: "smarthole-diff-sign", text: SIGNS[line.kind] });
  const text = row.createSpan({ cls: "smarthole-diff-text" });
  const pieces = line.words && line.words.length > 0 ? line.words : [{ text: line.text, changed: false }];
  for (const piece of pieces) {
    const words = piece.text.replace(/\r?\n$/, "");
    if (piece.changed) text.createSpan({ cls: "smarthole-diff-word", text: words });
    else text.appendChild(text.ownerDocument.createTextNode(words));
  }
}
