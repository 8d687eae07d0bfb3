// The page's editor (`?editor=PATH`): a CodeMirror 6 view of one note beside the chat, with the
// inline review of edits in place, and an "Edit selection" button (the page's stand-in for the
// command and the editor menu; a phone has no hotkey). The note as the core sees it is the
// editor's text (PageVault reads and edits it here), and the editor's text is written to the
// vault after every change, one write at a time, so the file on disk is what the editor shows.
import { EditorState } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import type { CoreRuntime } from "../core/runtime.ts";
import { inlineEditExtension, openEditInput, type InlineEditHost } from "../editor/inline-edit.ts";
import { minimalChange } from "../editor/minimal-change.ts";
import type { OpenNote } from "./page-io.ts";

const q = (params: Record<string, string>) => new URLSearchParams(params).toString();

/** When an approval's hunks reached the editor, were installed (the dispatch done) and drawn (the
 * next animation frame): performance.now() times. */
export interface DrawTime {
  arrived: number;
  dispatched: number;
  framed: number;
}

/** The mounted editor: its view, the open note as the page's vault sees it, and its draw times. */
export interface PageEditor extends OpenNote {
  view: EditorView;
  draws: DrawTime[];
}

/** Writes `after` over `before` on disk (the server refuses if the file is not `before`). */
async function write(path: string, before: string, after: string): Promise<void> {
  const res = await fetch(`/vault/process?${q({ path })}`, { method: "POST", body: JSON.stringify({ before, after }) });
  if (!res.ok) throw new Error(`saving ${path}: ${res.status} ${await res.text()}`);
}

/** Mounts the editor of `path` (its text as on disk now) in `parent`. */
export async function mountPageEditor(parent: HTMLElement, path: string, runtime: CoreRuntime, notify: (text: string) => void): Promise<PageEditor> {
  const res = await fetch(`/vault/file?${q({ path })}`);
  if (!res.ok) throw new Error(`opening ${path}: ${res.status} ${await res.text()}`);
  let onDisk = await res.text();
  let saving: Promise<void> = Promise.resolve();
  let queued = false;
  /** One write at a time; changes made while one runs are written together after it. */
  const save = (view: EditorView) => {
    if (queued) return;
    queued = true;
    saving = saving
      .then(async () => {
        queued = false;
        const text = view.state.doc.toString();
        if (text === onDisk) return;
        await write(path, onDisk, text);
        onDisk = text;
      })
      // Told, and the next change tries again (the chain never stays failed).
      .catch((error: unknown) => notify(error instanceof Error ? error.message : String(error)));
  };
  const draws: DrawTime[] = [];
  const host: InlineEditHost = {
    processor: runtime.processor,
    // The approval's hunks installed and drawn, timed (bench/inline-edit.mjs).
    subscribe: (listener) =>
      runtime.subscribe((event) => {
        if (event.type !== "approval_requested" || event.request.toolUseId !== "edit-in-place") return listener(event);
        const time: DrawTime = { arrived: performance.now(), dispatched: 0, framed: 0 };
        listener(event);
        time.dispatched = performance.now();
        draws.push(time);
        requestAnimationFrame(() => (time.framed = performance.now()));
      }),
    pathOf: () => path,
  };
  const bar = parent.createDiv({ cls: "smarthole-page-editor-bar" });
  bar.createSpan({ cls: "smarthole-page-editor-path", text: path });
  const button = bar.createEl("button", { cls: "smarthole-edit-selection", text: "Edit selection", attr: { type: "button", "aria-label": "Edit selection with the agent" } });
  const view = new EditorView({
    parent: parent.createDiv({ cls: "smarthole-page-editor-view" }),
    state: EditorState.create({
      doc: onDisk,
      extensions: [
        inlineEditExtension(host),
        EditorView.lineWrapping,
        EditorView.contentAttributes.of({ "aria-label": `Note ${path}` }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) save(update.view);
        }),
      ],
    }),
  });
  // Keeps the editor's focus and selection (a tap would take them).
  button.addEventListener("mousedown", (event) => event.preventDefault());
  button.addEventListener("click", () => {
    openEditInput(view);
  });
  return {
    view,
    draws,
    path,
    read: () => view.state.doc.toString(),
    async replace(next: string) {
      const change = minimalChange(view.state.doc.toString(), next);
      if (change) view.dispatch({ changes: change });
      await saving;
    },
    saved: async () => {
      // A write may queue another while it runs.
      for (let current = saving; ; current = saving) {
        await current;
        if (current === saving) return;
      }
    },
  };
}
