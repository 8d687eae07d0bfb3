// The hunk keys (ui/hunk-keys.ts) in the editor, above every other keymap: each acts only while a
// proposal is shown, so elsewhere the key keeps its normal meaning.
import { Prec, type Extension } from "@codemirror/state";
import { keymap, type EditorView } from "@codemirror/view";
import { HUNK_KEYS, type HunkAction } from "../ui/hunk-keys.ts";
import { decide, decideAll, hunkAtCursor, moveToHunk, stopAndDrop } from "./inline-actions.ts";
import { shownProposal } from "./inline-state.ts";

/** Runs a key's action; false (the key is not taken) when no proposal is shown. */
export function runHunkAction(view: EditorView, action: HunkAction): boolean {
  const p = shownProposal(view.state);
  if (!p) return false;
  switch (action) {
    case "stop":
      return stopAndDrop(view);
    case "next":
      return moveToHunk(view, 1);
    case "previous":
      return moveToHunk(view, -1);
    case "acceptAll":
    case "rejectAll":
      decideAll(view, action === "acceptAll" ? "accepted" : "rejected");
      return true;
    case "accept":
    case "reject": {
      const hunk = hunkAtCursor(view);
      if (hunk) decide(view, [hunk.number], action === "accept" ? "accepted" : "rejected");
      return true;
    }
  }
}

/** The keymap, at the highest precedence. */
export const inlineKeys: Extension = Prec.highest(keymap.of(HUNK_KEYS.map(({ key, action }) => ({ key, run: (view: EditorView) => runHunkAction(view, action) }))));
