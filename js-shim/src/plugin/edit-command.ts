// Edit in place (issue 36), wired into Obsidian: the inline review is an extension of every
// Markdown editor (registerEditorExtension), which knows its note by Obsidian's editorInfoField;
// the command "Edit selection with the agent" (no default hotkey, one the user can set) and the
// editor menu's item open its ask box at the selection (editor/inline-edit.ts).
import { Notice, editorInfoField, type Editor, type Plugin } from "obsidian";
import type { EditorView } from "@codemirror/view";
import type { CoreRuntime } from "../core/runtime.ts";
import { inlineEditExtension, openEditInput } from "../editor/inline-edit.ts";

/** The command's name, also the editor menu item's title. */
export const EDIT_SELECTION = "Edit selection with the agent";

/** Registers the extension, the command and the menu item on the plugin. */
export function addEditInPlace(plugin: Plugin, runtime: CoreRuntime): void {
  plugin.registerEditorExtension(
    inlineEditExtension({
      processor: runtime.processor,
      subscribe: (listener) => runtime.subscribe(listener),
      pathOf: (view) => view.state.field(editorInfoField, false)?.file?.path ?? null,
    }),
  );
  plugin.addCommand({ id: "edit-selection", name: EDIT_SELECTION, editorCallback: (editor) => editSelection(editor) });
  plugin.registerEvent(
    plugin.app.workspace.on("editor-menu", (menu, editor, info) => {
      if (!info.file) return;
      menu.addItem((item) => item.setTitle(EDIT_SELECTION).setIcon("pencil").onClick(() => editSelection(editor)));
    }),
  );
}

/** Opens the ask box in the editor's CodeMirror view; what goes wrong is said in a notice. */
function editSelection(editor: Editor): void {
  // Obsidian's Editor wraps a CodeMirror 6 view, which it does not declare.
  const view = (editor as unknown as { cm?: EditorView }).cm;
  if (!view) return;
  try {
    openEditInput(view);
  } catch (error) {
    new Notice(error instanceof Error ? error.message : String(error));
  }
}
