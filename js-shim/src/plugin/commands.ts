// The plugin's commands and its ribbon icons: open the chat, open the Related notes view, stop
// the answer, export a conversation, ask the agent about the selection (also in the editor's menu), download the
// agent API's config. Each goes to the core through the runtime's processor.
import type { Editor, Plugin } from "obsidian";
import type { ChatView } from "./chat-view.ts";
import { DownloadConfigModal } from "./agent-api-setting.ts";
import { addExportCommand } from "./export-command.ts";
import type { SettingsHost } from "./settings-host.ts";

/** How the commands show the plugin's views. */
export interface ViewOpeners {
  /** Shows the chat view. */
  openChat: () => Promise<ChatView | null>;
  /** Shows the Related notes view. */
  openRelated: () => Promise<unknown>;
}

/** Registers them on the plugin. */
export function addCommands(plugin: Plugin, host: SettingsHost, { openChat, openRelated }: ViewOpeners): void {
  const runtime = host.runtime;
  plugin.addRibbonIcon("message-square", "Open SmartHole chat", () => void openChat());
  plugin.addCommand({ id: "open-chat", name: "Open chat", callback: () => void openChat() });
  plugin.addRibbonIcon("sparkles", "Open related notes", () => void openRelated());
  plugin.addCommand({ id: "open-related-notes", name: "Open related notes", callback: () => void openRelated() });
  plugin.addCommand({
    id: "stop-answer",
    name: "Stop the current answer",
    callback: () => runtime.started && runtime.processor.cancelCurrentProcessing(),
  });
  addExportCommand(plugin, runtime);
  /** The selected lines, quoted under their note and line range, in the chat's input. */
  const askAboutSelection = async (editor: Editor, path: string) => {
    const from = editor.getCursor("from").line + 1;
    const to = editor.getCursor("to").line + 1;
    const selection = editor.getSelection();
    const quote = runtime.started ? runtime.processor.selectionQuote(path, from, to, selection) : selection;
    (await openChat())?.quote(quote);
  };
  plugin.addCommand({
    id: "ask-about-selection",
    name: "Ask the agent about the selection",
    editorCheckCallback: (checking, editor, ctx) => {
      if (!editor.somethingSelected() || !ctx.file) return false;
      if (!checking) void askAboutSelection(editor, ctx.file.path);
      return true;
    },
  });
  plugin.registerEvent(
    plugin.app.workspace.on("editor-menu", (menu, editor, info) => {
      const file = info.file;
      if (!editor.somethingSelected() || !file) return;
      menu.addItem((item) => item.setTitle("Ask the agent about the selection").setIcon("message-square").onClick(() => void askAboutSelection(editor, file.path)));
    }),
  );
  plugin.addCommand({
    id: "download-agent-api-config",
    name: "Download agent API config",
    checkCallback: (checking) => {
      if (!runtime.features?.agentApi.available || !runtime.ready) return false;
      if (!checking) new DownloadConfigModal(plugin.app, host).open();
      return true;
    },
  });
}
