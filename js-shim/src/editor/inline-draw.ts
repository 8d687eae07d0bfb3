// The inline review drawn as decorations over the note: removed lines struck through (only the
// changed words when the diff gives them), the added lines and the buttons in widgets between the
// lines, the ask box, the header and "Undo changes". The note's text is never changed here.
import type { Range, Text } from "@codemirror/state";
import { Decoration, type DecorationSet } from "@codemirror/view";
import { keyWords } from "../ui/hunk-keys.ts";
import type { InlineHunk, InlineState, Proposal } from "./inline-state.ts";
import { AskWidget, HeaderWidget, HunkWidget, UndoWidget } from "./inline-widgets.ts";

const removedLine = Decoration.line({ class: "smarthole-inline-removed" });
const removedWordsLine = Decoration.line({ class: "smarthole-inline-removed smarthole-inline-words" });
const struck = Decoration.mark({ class: "smarthole-inline-removed-text" });

/** What the header says of where the proposal is. */
function status(p: Proposal): string {
  const n = p.hunks.length;
  if (p.phase === "writing") return n ? `Writing… ${n} change${n === 1 ? "" : "s"} so far` : "Writing…";
  const open = p.hunks.filter((h) => !h.decision).length;
  if (!open) return "Applying…";
  const keys = `${keyWords("Mod-Enter")} accepts, ${keyWords("Mod-Backspace")} rejects, Alt+] and Alt+[ move, Escape drops`;
  return `${open} of ${n} change${n === 1 ? "" : "s"} to review. ${keys}.`;
}

/** The removed lines of a hunk: each line marked, its changed words (or all of it) struck. */
function removedRanges(hunk: InlineHunk, doc: Text, out: Range<Decoration>[]): void {
  if (!hunk.removed.length || hunk.from > doc.length) return;
  let line = doc.lineAt(hunk.from);
  for (const [i, removed] of hunk.removed.entries()) {
    if (i > 0) {
      if (line.number >= doc.lines || line.to >= hunk.to) break;
      line = doc.line(line.number + 1);
    }
    const words = removed.words ?? [];
    const pieces = words.map((w) => w.text.replace(/\r?\n$/, ""));
    // The words mark this line only while it is still the line they were made from.
    if (words.length && pieces.join("") === line.text) {
      out.push(removedWordsLine.range(line.from));
      let at = line.from;
      for (const [j, w] of words.entries()) {
        const end = at + pieces[j].length;
        if (w.changed && end > at) out.push(struck.range(at, end));
        at = end;
      }
    } else {
      out.push(removedLine.range(line.from));
      if (line.length) out.push(struck.range(line.from, line.to));
    }
  }
}

function proposalRanges(p: Proposal, doc: Text, out: Range<Decoration>[]): void {
  const review = p.phase === "review";
  out.push(Decoration.widget({ widget: new HeaderWidget(p.said, status(p), review, p.error), block: true, side: -2 }).range(Math.min(p.anchor, doc.length)));
  for (const hunk of p.hunks) {
    if (hunk.decision !== "rejected") removedRanges(hunk, doc, out);
    const widget = new HunkWidget(hunk, p.hunks.length, review);
    // After the old lines; a hunk that removes nothing is drawn where its lines would go.
    const at = Math.min(hunk.removed.length ? hunk.to : hunk.from, doc.length);
    out.push(Decoration.widget({ widget, block: true, side: hunk.removed.length ? 1 : -1 }).range(at));
  }
}

/** Every decoration of the inline review for `doc`. */
export function drawInline(state: InlineState, doc: Text): DecorationSet {
  const out: Range<Decoration>[] = [];
  if (state.undo) out.push(Decoration.widget({ widget: new UndoWidget(state.undo), block: true, side: -3 }).range(Math.min(state.undo.pos, doc.length)));
  if (state.proposal) proposalRanges(state.proposal, doc, out);
  if (state.ask) out.push(Decoration.widget({ widget: new AskWidget(state.ask.error), block: true, side: -4 }).range(Math.min(state.ask.pos, doc.length)));
  return Decoration.set(out, true);
}
