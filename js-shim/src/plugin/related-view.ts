// The Related notes view (issue 35): an ItemView that mounts the Related notes panel
// (ui/related-notes.ts) over the plugin's runtime, following the note open in the editor and
// opening a related note at its passage. Desktop sidebar or a phone's drawer alike; no Node.
import { ItemView, TFile, type WorkspaceLeaf } from "obsidian";
import { RelatedNotesPanel, type RelatedBackend } from "../ui/related-notes.ts";

export const RELATED_VIEW_TYPE = "smarthole-related-notes";

export class RelatedNotesView extends ItemView {
  private panel: RelatedNotesPanel | null = null;

  constructor(
    leaf: WorkspaceLeaf,
    private readonly runtime: RelatedBackend,
  ) {
    super(leaf);
  }

  getViewType(): string {
    return RELATED_VIEW_TYPE;
  }

  getDisplayText(): string {
    return "Related notes";
  }

  override getIcon(): string {
    return "sparkles";
  }

  override async onOpen(): Promise<void> {
    this.contentEl.empty();
    const { workspace, vault } = this.app;
    this.panel = new RelatedNotesPanel(this.contentEl, this.runtime, {
      openNote: (path, line) => {
        const file = vault.getAbstractFileByPath(path);
        if (file instanceof TFile) void workspace.getLeaf(false).openFile(file, { eState: line ? { line: line - 1 } : undefined });
      },
      activeNote: {
        current: () => workspace.getActiveFile()?.path ?? null,
        subscribe: (listener) => {
          const ref = workspace.on("file-open", (file) => listener(file?.path ?? null));
          return () => workspace.offref(ref);
        },
      },
    });
    this.panel.mount();
  }

  override async onClose(): Promise<void> {
    this.panel?.destroy();
    this.panel = null;
  }
}
