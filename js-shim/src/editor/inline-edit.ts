// Edit in place (issue 36) for a CodeMirror 6 editor: the user selects, asks, and reviews the
// agent's change hunk by hunk where it would land, by keys, buttons or touch. The extension the
// Obsidian plugin registers (registerEditorExtension) and the test page mounts; the pieces are
// inline-state (what is shown), inline-draw and inline-widgets (how), inline-actions (what the
// keys, buttons and the core's events do) and inline-keys.
import { StateField, type Extension } from "@codemirror/state";
import { EditorView, ViewPlugin, type DecorationSet } from "@codemirror/view";
import { onCoreEvent, openAskBox } from "./inline-actions.ts";
import { drawInline } from "./inline-draw.ts";
import { inlineHost, type InlineEditHost } from "./inline-host.ts";
import { inlineKeys } from "./inline-keys.ts";
import { inlineState } from "./inline-state.ts";

export type { InlineEditHost } from "./inline-host.ts";
export { ASK_LABEL } from "./inline-widgets.ts";

/** The decorations, redrawn whenever the review's state changes (a doc change maps it). */
const inlineDecorations = StateField.define<DecorationSet>({
  create: (state) => drawInline(state.field(inlineState), state.doc),
  update(decorations, tr) {
    const now = tr.state.field(inlineState);
    return now === tr.startState.field(inlineState) ? decorations : drawInline(now, tr.state.doc);
  },
  provide: (field) => EditorView.decorations.from(field),
});

/** Hears the core's events for as long as the view lives. */
const inlineEvents = ViewPlugin.fromClass(
  class {
    private readonly unsubscribe: () => void;
    constructor(view: EditorView) {
      this.unsubscribe = view.state.facet(inlineHost)?.subscribe((event) => onCoreEvent(view, event)) ?? (() => undefined);
    }
    destroy(): void {
      this.unsubscribe();
    }
  },
);

/** The inline review for editors of the vault's notes. */
export function inlineEditExtension(host: InlineEditHost): Extension {
  return [inlineHost.of(host), inlineState, inlineDecorations, inlineKeys, inlineEvents];
}

/** The command "Edit selection with the agent": the ask box appears at the selection (false
 * when this editor shows no note of the vault). */
export function openEditInput(view: EditorView): boolean {
  return openAskBox(view);
}
