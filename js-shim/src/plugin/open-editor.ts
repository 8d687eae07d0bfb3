// A note open in an editor holds its newest text, typed but maybe not saved yet: the core reads
// that text and changes it there (obsidian-vault.ts), as one minimal change over the part that
// differs, so the cursor, the selection and the user's typing elsewhere in the note survive
// (a whole-file write would reload the editor under them). Obsidian saves the editor as usual.
import { MarkdownView, type App, type Editor } from "obsidian";
import { minimalChange } from "../editor/minimal-change.ts";

/** The editor of a Markdown view showing `path`, if the note is open in one. */
export function noteEditor(app: App, path: string): Editor | null {
  for (const leaf of app.workspace.getLeavesOfType("markdown")) {
    const view = leaf.view;
    if (view instanceof MarkdownView && view.file?.path === path) return view.editor;
  }
  return null;
}

/** The bytes of a note open in an editor: its text as UTF-8, with the byte order mark the saved
 *  file has; but the saved bytes themselves when they are not UTF-8 (the editor's text is then a
 *  lossy decoding, and the core refuses to rewrite the note). */
export function editorBytes(saved: Uint8Array, text: string): Uint8Array {
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(saved);
  } catch {
    return saved;
  }
  const bom = saved[0] === 0xef && saved[1] === 0xbb && saved[2] === 0xbf && !text.startsWith("\ufeff");
  return new TextEncoder().encode(bom ? `\ufeff${text}` : text);
}

/** Replaces the editor's text `before` (what it holds) by `after`, changing only what differs. */
export function applyInEditor(editor: Editor, before: string, after: string): void {
  const change = minimalChange(before, after);
  if (!change) return;
  editor.transaction({ changes: [{ from: editor.offsetToPos(change.from), to: editor.offsetToPos(change.to), text: change.insert }] });
}
