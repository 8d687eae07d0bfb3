// The sidebar view: it mounts the chat panel over the plugin's runtime.
import { ItemView, MarkdownRenderer, type WorkspaceLeaf } from "obsidian";
import { ChatPanel } from "../ui/chat-panel.ts";
import type { CoreRuntime } from "../core/runtime.ts";

export const VIEW_TYPE = "smarthole-agent-chat";

export class ChatView extends ItemView {
  private panel: ChatPanel | null = null;

  constructor(
    leaf: WorkspaceLeaf,
    private readonly runtime: CoreRuntime,
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
    });
    this.panel.mount();
  }

  override async onClose(): Promise<void> {
    this.panel?.destroy();
    this.panel = null;
  }
}
