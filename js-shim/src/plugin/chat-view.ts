// The sidebar view: it mounts the chat panel over the plugin's runtime.
import { ItemView, MarkdownRenderer, TFile, type WorkspaceLeaf } from "obsidian";
import { ChatPanel } from "../ui/chat-panel.ts";
import type { ChatBackend } from "../ui/panel-api.ts";

export const VIEW_TYPE = "smarthole-agent-chat";

export class ChatView extends ItemView {
  private panel: ChatPanel | null = null;
  /** Text for the input once the panel is there (the selection command opens the view with it). */
  private pendingQuote: string | null = null;

  constructor(
    leaf: WorkspaceLeaf,
    private readonly runtime: ChatBackend,
  ) {
    super(leaf);
  }

  getViewType(): string {
    return VIEW_TYPE;
  }

  getDisplayText(): string {
    return "SmartHole chat";
  }

  override getIcon(): string {
    return "message-square";
  }

  override async onOpen(): Promise<void> {
    this.contentEl.empty();
    this.panel = new ChatPanel(this.contentEl, this.runtime, {
      renderMarkdown: (markdown, el) => MarkdownRenderer.render(this.app, markdown, el, "", this),
      copy: (text) => navigator.clipboard.writeText(text),
      openNote: (path, line) => {
        const file = this.app.vault.getAbstractFileByPath(path);
        if (file instanceof TFile) void this.app.workspace.getLeaf(false).openFile(file, { eState: line ? { line: line - 1 } : undefined });
      },
      activeNote: {
        current: () => this.app.workspace.getActiveFile()?.path ?? null,
        subscribe: (listener) => {
          const ref = this.app.workspace.on("file-open", (file) => listener(file?.path ?? null));
          return () => this.app.workspace.offref(ref);
        },
      },
    });
    this.panel.mount();
    if (this.pendingQuote !== null) this.quote(this.pendingQuote);
  }

  /** Puts text in the chat's input (now, or once the panel is mounted). */
  quote(text: string): void {
    if (this.panel) {
      this.panel.quote(text);
      this.pendingQuote = null;
    } else {
      this.pendingQuote = text;
    }
  }

  override async onClose(): Promise<void> {
    this.panel?.destroy();
    this.panel = null;
  }
}
