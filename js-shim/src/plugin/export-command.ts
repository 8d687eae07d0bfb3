// "Export a conversation as a Markdown note" (issue 19): the user picks any conversation; the
// core writes it — or what its note lacks, when it has one — in the Markdown copies' folder, the
// same way the copies are kept; the note opens.
import { FuzzySuggestModal, Notice, type App, type Plugin } from "obsidian";
import type { Conversation } from "smarthole-core";
import type { SettingsRuntime } from "./settings-host.ts";

class ConversationPicker extends FuzzySuggestModal<Conversation> {
  constructor(
    app: App,
    private readonly conversations: Conversation[],
    private readonly chosen: (conversation: Conversation) => void,
  ) {
    super(app);
    this.setPlaceholder("Export which conversation?");
  }

  getItems(): Conversation[] {
    return this.conversations;
  }

  getItemText(conversation: Conversation): string {
    return `${conversation.title ?? "Untitled"} (${conversation.createdAt.slice(0, 10)})`;
  }

  onChooseItem(conversation: Conversation): void {
    this.chosen(conversation);
  }
}

async function exportOne(plugin: Plugin, runtime: SettingsRuntime, conversation: Conversation): Promise<void> {
  try {
    const path = await runtime.processor.exportConversation(conversation.id);
    new Notice(`Conversation exported to ${path}`);
    await plugin.app.workspace.openLinkText(path, "", true);
  } catch (error) {
    new Notice(`The conversation could not be exported: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Adds the command; it offers the conversations newest first. */
export function addExportCommand(plugin: Plugin, runtime: SettingsRuntime): void {
  plugin.addCommand({
    id: "export-conversation",
    name: "Export a conversation as a Markdown note",
    checkCallback: (checking) => {
      if (!runtime.ready) return false;
      if (!checking) {
        void runtime.processor.conversations().then((all) => {
          const newest = all.slice().sort((a, b) => b.createdAt.localeCompare(a.createdAt));
          new ConversationPicker(plugin.app, newest, (c) => void exportOne(plugin, runtime, c)).open();
        });
      }
      return true;
    },
  });
}
