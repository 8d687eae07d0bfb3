// What the chat panel needs from outside: the core's runtime — whether it is ready, its events,
// and its processor, the one binding every call of the view goes through, typed by the core's
// own declaration (a call the core's binding adds is callable here as it is) — and the place it
// is mounted in (PanelOptions). CoreRuntime is the backend in the plugin and on a page.
import type { CoreRuntime } from "../core/runtime.ts";

export type { CoreCalls } from "../core/guarded-core.ts";

/** What the panel needs from the runtime. */
export type ChatBackend = Pick<CoreRuntime, "ready" | "subscribe" | "processor" | "agents">;

export interface PanelOptions {
  /** Renders Markdown into an element (MarkdownRenderer in Obsidian). */
  renderMarkdown(markdown: string, el: HTMLElement): Promise<void>;
  copy(text: string): Promise<void>;
  /** Shows a note in the editor, at a line (1-based) when given. */
  openNote(path: string, line?: number): void;
  /** The note open in the editor, followed as it changes (none on a page). */
  activeNote?: { current(): string | null; subscribe(listener: (path: string | null) => void): () => void };
}
