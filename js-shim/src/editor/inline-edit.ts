// A stand-in for issue 36's inline review (branch i36a builds the real one; it replaces this file
// whole): the two exports the Obsidian plugin's wiring (plugin/edit-command.ts) is written
// against. The extension adds nothing, so the plugin loads; the command says it is not built.
import type { Extension } from "@codemirror/state";
import type { EditorView } from "@codemirror/view";
import type { RuntimeEvent } from "../core/runtime-event.ts";
import type { CoreCalls } from "../core/guarded-core.ts";

/** The runtime as the inline review sees it. */
export interface InlineEditHost {
  processor: CoreCalls;
  subscribe(listener: (event: RuntimeEvent) => void): () => void;
  /** The note this editor shows (null: not a note of the vault; the command does nothing). */
  pathOf(view: EditorView): string | null;
}

/** The inline review for editors of the vault's notes (here: nothing yet). */
export function inlineEditExtension(host: InlineEditHost): Extension {
  void host;
  return [];
}

/** The command "Edit selection with the agent": the ask box at the selection (not built yet). */
export function openEditInput(view: EditorView): boolean {
  void view;
  throw new Error("Edit in place is not built yet");
}
