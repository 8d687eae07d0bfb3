// SmartHole Agent for Obsidian: the plugin's lifecycle. `onload` only registers (the view, the
// commands, the settings tab, the status bar, error listeners); the core starts once the
// workspace is ready, through the runtime every host uses (core/runtime.ts); `onunload` stops
// everything (the request in flight, the hub socket, timers). The settings live in
// plugin-settings.ts, the status bar and notices in core-status.ts, the commands in commands.ts,
// edit in place (the editor extension, its command and menu item) in edit-command.ts.
import { Notice, Platform, Plugin, type TAbstractFile } from "obsidian";
import type { LogLevel } from "smarthole-core";
import { CoreRuntime } from "../core/runtime.ts";
import { stdioTransport } from "../core/mcp-stdio.ts";
import { ChatView, VIEW_TYPE } from "./chat-view.ts";
import { RELATED_VIEW_TYPE, RelatedNotesView } from "./related-view.ts";
import { ObsidianIO } from "./obsidian-io.ts";
import { ObsidianVault } from "./obsidian-vault.ts";
import { SmartHoleSettingTab } from "./settings-tab.ts";
import { PluginSettings } from "./plugin-settings.ts";
import { showCoreStatus } from "./core-status.ts";
import { addCommands } from "./commands.ts";
import { addEditInPlace } from "./edit-command.ts";
import { desktopInflate } from "./desktop-inflate.ts";
import { desktopAgentSystem, vaultFolder } from "./desktop-agent-system.ts";

export default class SmartHoleAgentPlugin extends Plugin {
  runtime!: CoreRuntime;
  userSettings!: PluginSettings;

  override async onload(): Promise<void> {
    this.runtime = new CoreRuntime({
      io: new ObsidianIO(this.app),
      // Its own check of real locations keeps out of the folders the core protects.
      vault: new ObsidianVault(this.app, () => this.runtime.processor.alwaysProtectedFolders(this.app.vault.configDir)),
      configFolder: this.app.vault.configDir,
      // What this device can do — not the desktop app (a phone or tablet), start programs, load
      // Node's http module — as facts: the core decides what follows (runtime.features).
      mobile: !Platform.isDesktopApp,
      mcpStdio: Platform.isDesktopApp ? stdioTransport((line) => this.log("debug", line)) : null,
      openSocket: (url) => new WebSocket(url),
      loadHttp: Platform.isDesktop ? () => import("node:http") : null,
      // The user's coding agent (ACP) is a program: the desktop app only.
      agentSystem: Platform.isDesktopApp ? desktopAgentSystem : null,
      inflate: desktopInflate(),
      vaultFolder: () => vaultFolder(this.app),
      // The search index follows the vault's changes (a rename is a change at both paths).
      watchVault: (changed) => this.watchVault(changed),
      settings: () => this.userSettings.forCore(),
      log: (level, message) => this.log(level, message),
      notify: (text) => new Notice(text),
    });
    this.userSettings = new PluginSettings(this, this.runtime, (text) => this.log("warn", text));
    await this.userSettings.load();
    this.registerView(VIEW_TYPE, (leaf) => new ChatView(leaf, this.runtime));
    this.registerView(RELATED_VIEW_TYPE, (leaf) => new RelatedNotesView(leaf, this.runtime));
    addCommands(this, this.userSettings, { openChat: () => this.openChat(), openRelated: () => this.openView(RELATED_VIEW_TYPE) });
    addEditInPlace(this, this.runtime);
    this.addSettingTab(new SmartHoleSettingTab(this.app, this, this.userSettings));
    showCoreStatus(this, this.runtime, {
      chatOpen: () => this.app.workspace.getLeavesOfType(VIEW_TYPE).length > 0,
      openChat: () => void this.openChat(),
    });
    // A trap inside the core's async work surfaces here: rebuild it.
    this.registerDomEvent(window, "error", (event) => this.runtime.reportError(event.error));
    this.registerDomEvent(window, "unhandledrejection", (event) => this.runtime.reportError(event.reason));
    this.app.workspace.onLayoutReady(() => void this.startCore());
  }

  override onunload(): void {
    this.runtime.dispose();
  }

  private log(level: LogLevel, message: string): void {
    if (level === "error" || level === "warn" || this.userSettings?.saved.verboseLogging) {
      const line = `SmartHole Agent: ${message}`;
      if (level === "error") console.error(line);
      else if (level === "warn") console.warn(line);
      else console.debug(line);
    }
  }

  /** The vault's changes, for as long as the plugin is loaded. */
  private watchVault(changed: (path: string, kind: string) => void): void {
    const on = (kind: string) => (file: TAbstractFile) => changed(file.path, kind);
    this.registerEvent(this.app.vault.on("create", on("create")));
    this.registerEvent(this.app.vault.on("modify", on("modify")));
    this.registerEvent(this.app.vault.on("delete", on("delete")));
    this.registerEvent(
      this.app.vault.on("rename", (file, oldPath) => {
        changed(oldPath, "rename");
        changed(file.path, "rename");
      }),
    );
  }

  private async startCore(): Promise<void> {
    try {
      await this.runtime.start();
      this.userSettings.checked();
    } catch (error) {
      new Notice(`SmartHole Agent could not start: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** Shows the chat (opened in the right sidebar when it is not open yet). */
  async openChat(): Promise<ChatView | null> {
    const view = await this.openView(VIEW_TYPE);
    return view instanceof ChatView ? view : null;
  }

  /** Shows one of the plugin's views: in the right sidebar (a phone's right drawer) when it is
   *  not open yet. */
  private async openView(type: string): Promise<unknown> {
    const { workspace } = this.app;
    let leaf = workspace.getLeavesOfType(type)[0];
    if (!leaf) {
      const right = workspace.getRightLeaf(false);
      if (!right) return null;
      await right.setViewState({ type, active: true });
      leaf = right;
    }
    await workspace.revealLeaf(leaf);
    return leaf.view;
  }
}
