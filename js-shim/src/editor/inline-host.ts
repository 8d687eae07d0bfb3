// What the inline review needs from whoever mounts it (the Obsidian plugin, the test page): the
// core's calls, its events, and which note an editor shows. Held in a facet so the review's
// widgets and keys reach it from the view they act in.
import { Facet } from "@codemirror/state";
import type { EditorView } from "@codemirror/view";
import type { CoreCalls } from "../core/guarded-core.ts";
import type { RuntimeEvent } from "../core/runtime-event.ts";

/** The runtime as the inline review sees it. */
export interface InlineEditHost {
  processor: Pick<CoreCalls, "editInPlace" | "decideApproval" | "undoTurn" | "stop" | "currentMessageId">;
  subscribe(listener: (event: RuntimeEvent) => void): () => void;
  /** The note this editor shows (null: not a note of the vault; the command does nothing). */
  pathOf(view: EditorView): string | null;
}

/** The host of the views the extension is installed in (one per extension). */
export const inlineHost = Facet.define<InlineEditHost, InlineEditHost | null>({
  combine: (hosts) => hosts[0] ?? null,
});
