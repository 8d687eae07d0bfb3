// Settings → Integrations: the user's MCP servers, each with its state (connected, failed,
// needs reconnecting), a Reconnect and a Remove button, and a form to add one — a command
// (desktop only) or a URL with an optional Authorization header kept in secret storage.
import { Modal, Notice, SecretComponent, Setting, type App } from "obsidian";
import type { SettingsHost } from "./settings-host.ts";
import type { SavedMcpServer } from "./settings.ts";

const STATE_TEXT: Record<string, string> = {
  connected: "Connected",
  connecting: "Connecting…",
  failed: "Not connected",
  unauthorized: "Needs to be reconnected",
  unsupported: "Desktop only",
};

/** Splits lines of `KEY=value` into an object; blank lines are skipped. */
function parseEnv(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const i = line.indexOf("=");
    if (line.trim() && i > 0) env[line.slice(0, i).trim()] = line.slice(i + 1).trim();
  }
  return env;
}

class AddIntegrationModal extends Modal {
  private server: SavedMcpServer = { name: "" };
  private kind: "command" | "url";

  /** `programs`: whether this device can run a program (the core's answer, runtime.features). */
  constructor(
    app: App,
    private readonly programs: boolean,
    private readonly onSave: (server: SavedMcpServer) => Promise<boolean>,
  ) {
    super(app);
    this.kind = programs ? "command" : "url";
  }

  override onOpen(): void {
    this.setTitle("Add integration");
    this.render();
  }

  private render(): void {
    const el = this.contentEl;
    el.empty();
    new Setting(el).setName("Name").setDesc("Letters, digits, - and _; the agent refers to it by this name.").addText((t) =>
      t.setValue(this.server.name).onChange((v) => (this.server.name = v.trim())),
    );
    // Where no program can start (a phone), a URL is the only kind.
    if (this.programs) new Setting(el)
      .setName("Kind")
      .setDesc("A program on this computer (desktop only), or a server at a URL.")
      .addDropdown((d) =>
        d
          .addOption("command", "Program (stdio)")
          .addOption("url", "Remote server (HTTP)")
          .setValue(this.kind)
          .onChange((v) => {
            this.kind = v === "url" ? "url" : "command";
            this.render();
          }),
      );
    if (this.kind === "command") {
      new Setting(el).setName("Command").setDesc("The program to start, by its full path, for example /usr/local/bin/npx: Obsidian opened from the dock may not see the programs your terminal finds.").addText((t) =>
        t.setValue(this.server.command ?? "").onChange((v) => (this.server.command = v.trim())),
      );
      new Setting(el).setName("Arguments").setDesc("One per line.").addTextArea((t) =>
        t.setValue((this.server.args ?? []).join("\n")).onChange((v) => (this.server.args = v.split("\n").map((a) => a.trim()).filter(Boolean))),
      );
      new Setting(el).setName("Environment").setDesc("One variable per line, for example: token=abc123").addTextArea((t) =>
        t.onChange((v) => (this.server.env = parseEnv(v))),
      );
    } else {
      new Setting(el).setName("URL").setDesc("The address of the server's endpoint (HTTP).").addText((t) =>
        t.setValue(this.server.url ?? "").onChange((v) => (this.server.url = v.trim())),
      );
      new Setting(el)
        .setName("Authorization header")
        .setDesc("Optional, such as a bearer token. Kept in Obsidian's secret storage.")
        .addComponent((c) => new SecretComponent(this.app, c).onChange((id) => (this.server.authSecretId = id || undefined)));
    }
    new Setting(el).addButton((b) =>
      b
        .setButtonText("Add")
        .setCta()
        .onClick(async () => {
          const server = this.kind === "command" ? { ...this.server, url: undefined, authSecretId: undefined } : { ...this.server, command: undefined, args: undefined, env: undefined };
          if (await this.onSave(server)) this.close();
        }),
    );
  }

  override onClose(): void {
    this.contentEl.empty();
  }
}

/** The Integrations section of the settings tab. */
export function renderIntegrations(container: HTMLElement, app: App, plugin: SettingsHost): void {
  new Setting(container)
    .setName("Integrations")
    .setDesc("Tool servers the agent may use. Scheduled tasks check that the integrations they need are connected.")
    .setHeading();
  const list = container.createDiv();
  const saved = () => plugin.saved.mcpServers ?? [];
  const render = async () => {
    const states = await plugin.runtime.mcp.servers(plugin.runtime.processor.mcpConnectWaitMs());
    list.empty();
    if (saved().length === 0) list.createEl("p", { text: "No integrations yet.", cls: "setting-item-description" });
    for (const server of saved()) {
      const state = states.find((s) => s.name === server.name);
      const status = state ? `${STATE_TEXT[state.state] ?? state.state}${state.error ? `: ${state.error}` : ""}` : "";
      new Setting(list)
        .setName(server.name)
        .setDesc(`${server.command ? `${server.command} ${(server.args ?? []).join(" ")}` : server.url ?? ""} — ${status}`)
        .addButton((b) => b.setButtonText("Reconnect").onClick(() => {
          plugin.runtime.mcp.reconnect(server.name);
          void render();
        }))
        .addButton((b) =>
          b
            .setClass("mod-warning")
            .setButtonText("Remove").onClick(async () => {
            await plugin.changeSetting("mcpServers", saved().filter((s) => s.name !== server.name));
            void render();
          }),
        );
    }
  };
  new Setting(container).addButton((b) =>
    b.setButtonText("Add integration").onClick(() =>
      new AddIntegrationModal(app, plugin.runtime.features?.mcpStdio.available ?? false, async (server) => {
        const before = saved();
        await plugin.changeSetting("mcpServers", [...before, server]);
        if (saved().length === before.length) return false; // refused, with the reason in a notice
        new Notice(`Integration ${server.name} added.`);
        void render();
        return true;
      }).open(),
    ),
  );
  void render();
}
