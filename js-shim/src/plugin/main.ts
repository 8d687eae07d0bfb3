// SmartHole Agent for Obsidian. `onload` only registers; the core starts once the workspace is
// ready; `onunload` stops everything (the request in flight, the hub socket, timers).
import { Notice, Platform, Plugin, type Editor, type TAbstractFile } from "obsidian";
import type { CoreSettings, HubStatus, LogLevel } from "smarthole-core";
import { CoreRuntime } from "../core/runtime.ts";
import { stdioTransport } from "../core/mcp-stdio.ts";
import { ChatView, VIEW_TYPE } from "./chat-view.ts";
import { ObsidianIO } from "./obsidian-io.ts";
import { ObsidianVault } from "./obsidian-vault.ts";
import { SmartHoleSettingTab } from "./settings-tab.ts";
import { searchIndexLine } from "../ui/chat-text.ts";
import { DownloadConfigModal } from "./agent-api-setting.ts";
import { cleanSaved, coreSettings, SECRET_IDS, type SavedSettings } from "./settings.ts";
import { addExportCommand } from "./export-command.ts";

const STATUS_TEXT: Record<HubStatus, string> = {
  disabled: "SmartHole: off",
  disconnected: "SmartHole: disconnected",
  connecting: "SmartHole: connecting…",
  connected: "SmartHole: connected",
  error: "SmartHole: error",
};

export default class SmartHoleAgentPlugin extends Plugin {
  saved: SavedSettings = {};
  /** What data.json holds that the plugin does not use (unknown or wrong-typed fields): written
   * back on every save, never dropped. */
  private aside: Record<string, unknown> = {};
  runtime!: CoreRuntime;
  private statusEl: HTMLElement | null = null;
  private indexEl: HTMLElement | null = null;
  /** Notices for approvals asked while the chat was closed, by request id. */
  private readonly approvalNotices = new Map<string, Notice>();

  override async onload(): Promise<void> {
    this.saved = (await this.loadData()) as SavedSettings ?? {};
    this.runtime = new CoreRuntime({
      io: new ObsidianIO(this.app),
      vault: new ObsidianVault(this.app),
      // Command-line MCP servers need a process: the desktop app only.
      mcpStdio: Platform.isDesktopApp ? stdioTransport((line) => this.log("debug", line)) : null,
      openSocket: (url) => new WebSocket(url),
      // The agent API listens on the desktop app only, where Node's http module exists.
      loadHttp: Platform.isDesktop ? () => import("node:http") : null,
      // Only the fields it can use: a wrong-typed or unknown one in data.json never stops the start.
      // The hub is a program on the user's computer: on a phone or tablet there is none to reach.
      settings: () => {
        const settings = coreSettings(this.app, this.runtime.defaults ? cleanSaved(this.saved, this.runtime.defaults).saved : this.saved);
        return Platform.isDesktopApp ? settings : { ...settings, hubEnabled: false };
      },
      log: (level, message) => this.log(level, message),
      notify: (text) => new Notice(text),
    });
    this.registerView(VIEW_TYPE, (leaf) => new ChatView(leaf, this.runtime));
    this.addRibbonIcon("message-square", "Open SmartHole chat", () => void this.openChat());
    this.addCommand({ id: "open-chat", name: "Open chat", callback: () => void this.openChat() });
    this.addCommand({ id: "stop-answer", name: "Stop the current answer", callback: () => this.runtime.cancel() });
    addExportCommand(this);
    this.addCommand({
      id: "ask-about-selection",
      name: "Ask the agent about the selection",
      editorCheckCallback: (checking, editor, ctx) => {
        if (!editor.somethingSelected() || !ctx.file) return false;
        if (!checking) void this.askAboutSelection(editor, ctx.file.path);
        return true;
      },
    });
    this.registerEvent(
      this.app.workspace.on("editor-menu", (menu, editor, info) => {
        const file = info.file;
        if (!editor.somethingSelected() || !file) return;
        menu.addItem((item) => item.setTitle("Ask the agent about the selection").setIcon("message-square").onClick(() => void this.askAboutSelection(editor, file.path)));
      }),
    );
    this.addCommand({
      id: "download-agent-api-config",
      name: "Download agent API config",
      checkCallback: (checking) => {
        if (!Platform.isDesktopApp || !this.runtime.ready) return false;
        if (!checking) new DownloadConfigModal(this.app, this).open();
        return true;
      },
    });
    this.addSettingTab(new SmartHoleSettingTab(this.app, this));
    this.statusEl = this.addStatusBarItem();
    this.statusEl.setText(STATUS_TEXT.disconnected);
    this.register(
      this.runtime.subscribe((event) => {
        if (event.type === "search_index") {
          // One line while the index builds; nothing once it is ready.
          this.indexEl ??= this.addStatusBarItem();
          this.indexEl.setText(event.state === "building" ? searchIndexLine(event) : "");
        } else if (event.type === "hub_status") {
          this.statusEl?.setText(STATUS_TEXT[event.status]);
          this.statusEl?.setAttribute("aria-label", event.detail ?? STATUS_TEXT[event.status]);
        } else if (event.type === "approval_requested" && this.app.workspace.getLeavesOfType(VIEW_TYPE).length === 0) {
          // The card is in the chat; a notice that stays points to it.
          const notice = new Notice(`SmartHole Agent needs your approval: ${event.request.summary}. Click to open the chat.`, 0);
          notice.messageEl.addEventListener("click", () => void this.openChat());
          this.approvalNotices.set(event.request.id, notice);
        } else if (event.type === "scheduled_run" && this.app.workspace.getLeavesOfType(VIEW_TYPE).length === 0) {
          // With the chat open, the run shows there.
          new Notice(event.text, event.ok ? 8_000 : 0);
        } else if (event.type === "approval_resolved") {
          this.approvalNotices.get(event.request.id)?.hide();
          this.approvalNotices.delete(event.request.id);
        }
      }),
    );
    // A trap inside the core's async work surfaces here: rebuild it.
    this.registerDomEvent(window, "error", (event) => this.runtime.reportError(event.error));
    this.registerDomEvent(window, "unhandledrejection", (event) => this.runtime.reportError(event.reason));
    this.app.workspace.onLayoutReady(() => void this.startCore());
    // The search index follows the vault's changes (a rename is a change at both paths).
    const changed = (kind: string) => (file: TAbstractFile) => this.runtime.vaultChanged(file.path, kind);
    this.registerEvent(this.app.vault.on("create", changed("create")));
    this.registerEvent(this.app.vault.on("modify", changed("modify")));
    this.registerEvent(this.app.vault.on("delete", changed("delete")));
    this.registerEvent(
      this.app.vault.on("rename", (file, oldPath) => {
        this.runtime.vaultChanged(oldPath, "rename");
        this.runtime.vaultChanged(file.path, "rename");
      }),
    );
  }

  override onunload(): void {
    this.runtime.dispose();
  }

  private log(level: LogLevel, message: string): void {
    if (level === "error" || level === "warn" || this.saved.verboseLogging) {
      const line = `SmartHole Agent: ${message}`;
      if (level === "error") console.error(line);
      else if (level === "warn") console.warn(line);
      else console.debug(line);
    }
  }

  private async startCore(): Promise<void> {
    try {
      await this.runtime.start();
      const raw: unknown = this.saved;
      ({ saved: this.saved, aside: this.aside } = cleanSaved(raw, this.runtime.defaults!));
      this.reportUnknownFields(raw);
    } catch (error) {
      new Notice(`SmartHole Agent could not start: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** Says which fields of data.json are not used (a misspelling, a newer version's setting). */
  private reportUnknownFields(raw: unknown): void {
    const unknown = this.runtime.unknownSettingsFields(raw, "pluginData", "data.json").map((u) => u.message);
    const wrongType = Object.keys(this.aside)
      .filter((key) => SECRET_IDS.includes(key) || (this.runtime.defaults !== null && key in this.runtime.defaults))
      .map((key) => `field \`${key}\` in data.json has a value of the wrong type`);
    const problems = [...unknown, ...wrongType];
    if (problems.length === 0) return;
    const text = `SmartHole Agent: ${problems.join("; ")}. They are kept in data.json but not used.`;
    this.log("warn", text);
    new Notice(text, 0);
  }

  /** Changes one setting: the core checks it first; an invalid value is refused with its reason. */
  async changeSetting(key: keyof SavedSettings, value: unknown): Promise<void> {
    const before = this.saved;
    this.saved = { ...this.saved, [key]: value };
    try {
      this.runtime.updateSettings();
    } catch (error) {
      this.saved = before;
      new Notice(error instanceof Error ? error.message : String(error));
      return;
    }
    await this.saveData({ ...this.aside, ...this.saved });
  }

  /** Settings as the core takes them (tests and the settings tab). */
  coreSettings(): CoreSettings {
    return coreSettings(this.app, this.saved);
  }

  private async openChat(): Promise<ChatView | null> {
    const { workspace } = this.app;
    let leaf = workspace.getLeavesOfType(VIEW_TYPE)[0];
    if (!leaf) {
      const right = workspace.getRightLeaf(false);
      if (!right) return null;
      await right.setViewState({ type: VIEW_TYPE, active: true });
      leaf = right;
    }
    await workspace.revealLeaf(leaf);
    return leaf.view instanceof ChatView ? leaf.view : null;
  }

  /** The selected lines, quoted under their note and line range, in the chat's input. */
  private async askAboutSelection(editor: Editor, path: string): Promise<void> {
    const from = editor.getCursor("from").line + 1;
    const to = editor.getCursor("to").line + 1;
    const quote = this.runtime.selectionQuote(path, from, to, editor.getSelection());
    (await this.openChat())?.quote(quote);
  }
}
