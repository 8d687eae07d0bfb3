// Settings → Agent API (desktop only): serve it or not, its port and state, the access token
// (kept in secret storage, shown, copied, regenerated), the verification timeout, the
// instruction contexts, and "Download config". The core checks every change.
import { Modal, Notice, Setting, type App } from "obsidian";
import type { AgentContext } from "smarthole-core";
import type { SettingsHost } from "./settings-host.ts";
import { API_TOKEN_SECRET_ID } from "./settings.ts";

/** The access token, made (and kept in secret storage) the first time it is needed. */
export function ensureApiToken(app: App, plugin: SettingsHost): string {
  const existing = app.secretStorage.getSecret(API_TOKEN_SECRET_ID);
  if (existing) return existing;
  const token = plugin.runtime.processor.newApiToken();
  app.secretStorage.setSecret(API_TOKEN_SECRET_ID, token);
  return token;
}

/** Asks whether the token goes in the file, then saves `/config` where the user chooses. */
export class DownloadConfigModal extends Modal {
  private includeToken = false;

  constructor(
    app: App,
    private readonly plugin: SettingsHost,
  ) {
    super(app);
  }

  override onOpen(): void {
    this.setTitle("Download agent API config");
    this.contentEl.createEl("p", {
      text: "A JSON file that tells an AI agent on this computer how to reach this vault's agent API: ports, endpoints, formats and the verification workflow.",
    });
    new Setting(this.contentEl)
      .setName("Include the access token")
      .setDesc("Anyone who reads the file can then call the API. Leave off to give the token to the agent another way.")
      .addToggle((t) => t.setValue(this.includeToken).onChange((v) => (this.includeToken = v)));
    new Setting(this.contentEl)
      .addButton((b) => b.setButtonText("Copy").onClick(() => void this.copy()))
      .addButton((b) => b.setCta().setButtonText("Save…").onClick(() => this.save()));
  }

  private text(): string {
    return JSON.stringify(this.plugin.runtime.processor.agentApiConfig(this.includeToken), null, 2) + "\n";
  }

  private async copy(): Promise<void> {
    await navigator.clipboard.writeText(this.text());
    new Notice("Agent API config copied.");
    this.close();
  }

  /** The desktop app asks where to save a download. */
  private save(): void {
    const url = URL.createObjectURL(new Blob([this.text()], { type: "application/json" }));
    const link = this.contentEl.createEl("a", { href: url, attr: { download: "smarthole-agent-api.json" } });
    link.click();
    link.remove();
    window.setTimeout(() => URL.revokeObjectURL(url), 60_000);
    this.close();
  }

  override onClose(): void {
    this.contentEl.empty();
  }
}

function lines(text: string): string[] {
  return text.split("\n").map((l) => l.trim()).filter((l) => l !== "");
}

/** What each part of the section works with. */
interface ApiSection {
  container: HTMLElement;
  app: App;
  plugin: SettingsHost;
  defaults: { agentContexts: AgentContext[] };
  /** Asks the runtime to (re)open the listeners, then shows how they stand. */
  refresh: () => Promise<void>;
  /** Draws the whole section again (after a change of its shape). */
  redraw: () => void;
  /** The contexts as saved, or the core's default. */
  contexts: () => AgentContext[];
}

/** The Agent API section of the settings tab, in its own element (it redraws itself). */
export function renderAgentApi(container: HTMLElement, app: App, plugin: SettingsHost, defaults: { agentContexts: AgentContext[] }): void {
  new Setting(container)
    .setName("Agent API")
    .setDesc("Lets AI agents on this computer (a coding agent, a script) read instructions, send messages and ask you to approve actions. Only programs on this computer can reach it.")
    .setHeading();
  const showStatus = renderStatus(container, app, plugin);
  const section: ApiSection = {
    container,
    app,
    plugin,
    defaults,
    refresh: async () => {
      await plugin.runtime.configureApi();
      showStatus();
    },
    redraw: () => {
      container.empty();
      renderAgentApi(container, app, plugin, defaults);
    },
    contexts: () => plugin.saved.agentContexts ?? defaults.agentContexts,
  };
  renderServing(section);
  renderToken(section);
  renderTimeoutAndDownload(section);
  section.contexts().forEach((context, i) => renderContext(section, context, i));
  renderAddContext(section);
}

/** The listeners' state line; returns the function that updates it. */
function renderStatus(container: HTMLElement, app: App, plugin: SettingsHost): () => void {
  const status = container.createEl("p", { cls: "setting-item-description" });
  const showStatus = () => {
    const states = plugin.runtime.apiStates;
    const tokenMissing = (plugin.saved.agentApiEnabled ?? false) && !app.secretStorage.getSecret(API_TOKEN_SECRET_ID);
    status.setText(
      tokenMissing
        ? "Not serving: there is no access token on this device. Press Regenerate, and give agents the new token."
        : states.length === 0
        ? "Not serving."
        : states.map((s) => (s.listening ? `Listening on http://127.0.0.1:${s.port}` : s.error ?? `Port ${s.port}: not listening`)).join(" · "),
    );
  };
  showStatus();
  return showStatus;
}

/** Serve it or not, and on which port. */
function renderServing({ container, app, plugin, refresh }: ApiSection): void {
  const saved = plugin.saved;
  new Setting(container)
    .setName("Serve the agent API")
    .setDesc("Off unless you turn it on.")
    .addToggle((t) =>
      t.setValue(saved.agentApiEnabled ?? false).onChange(async (on) => {
        if (on) ensureApiToken(app, plugin);
        await plugin.changeSetting("agentApiEnabled", on);
        await refresh();
      }),
    );
  new Setting(container)
    .setName("Port")
    .setDesc("On 127.0.0.1; 1024 to 65535.")
    .addText((t) =>
      t.setValue(String(saved.agentApiPort ?? 8090)).onChange(async (v) => {
        const n = Number(v);
        if (!Number.isInteger(n)) return;
        await plugin.changeSetting("agentApiPort", n);
        await refresh();
      }),
    );
}

/** The access token: shown, copied, regenerated. */
function renderToken({ container, app, plugin, redraw }: ApiSection): void {
  new Setting(container)
    .setName("Access token")
    .setDesc("Every request must send it as: Authorization: Bearer <token>. Kept in Obsidian's secret storage.")
    .addText((t) => {
      t.setValue(app.secretStorage.getSecret(API_TOKEN_SECRET_ID) ?? "(none yet)").setDisabled(true);
      t.inputEl.addClass("smarthole-token");
    })
    .addButton((b) =>
      b.setButtonText("Copy").onClick(async () => {
        await navigator.clipboard.writeText(ensureApiToken(app, plugin));
        new Notice("Access token copied.");
      }),
    )
    .addButton((b) =>
      b
        .setClass("mod-warning")
        .setButtonText("Regenerate")
        .onClick(async () => {
          app.secretStorage.setSecret(API_TOKEN_SECRET_ID, plugin.runtime.processor.newApiToken());
          plugin.runtime.updateSettings();
          new Notice("New access token made; agents using the old one are refused from now on.");
          redraw();
        }),
    );
}

/** The verification timeout, and "Download config". */
function renderTimeoutAndDownload({ container, app, plugin }: ApiSection): void {
  new Setting(container)
    .setName("Verification timeout")
    .setDesc("Seconds a request for your approval waits before it is rejected with the reason \"timeout\".")
    .addText((t) =>
      t.setValue(String(plugin.saved.verificationTimeoutSeconds ?? 300)).onChange((v) => {
        const n = Number(v);
        if (Number.isInteger(n)) void plugin.changeSetting("verificationTimeoutSeconds", n);
      }),
    );
  new Setting(container)
    .setName("Download config")
    .setDesc("A file that tells an agent how to use this API.")
    .addButton((b) => b.setButtonText("Download config…").onClick(() => new DownloadConfigModal(app, plugin).open()));
}

/** One instruction context: its texts, allowed actions, verification, and (not the first) its own port. */
function renderContext({ container, plugin, refresh, redraw, contexts }: ApiSection, context: AgentContext, i: number): void {
  const change = async (patch: Partial<AgentContext>) => {
    const next = contexts().map((c, j) => (j === i ? { ...c, ...patch } : c));
    await plugin.changeSetting("agentContexts", next);
  };
  new Setting(container).setName(`Context: ${context.name}`).setDesc(i === 0 ? "The default context." : `GET /context/${context.name}`).setHeading();
  new Setting(container).setName("System").addText((t) => t.setValue(context.system).onChange((v) => void change({ system: v })));
  new Setting(container).setName("Role").addTextArea((t) => t.setValue(context.role).onChange((v) => void change({ role: v })));
  new Setting(container)
    .setName("Base instruction")
    .addTextArea((t) => t.setValue(context.baseInstruction).onChange((v) => void change({ baseInstruction: v })));
  new Setting(container)
    .setName("Allowed actions")
    .setDesc("One per line. Asking to verify anything else is rejected at once.")
    .addTextArea((t) => t.setValue(context.allowedActions.join("\n")).onChange((v) => void change({ allowedActions: lines(v) })));
  new Setting(container)
    .setName("Verification required")
    .setDesc("When off, allowed actions are approved without asking you.")
    .addToggle((t) => t.setValue(context.verificationRequired).onChange((v) => void change({ verificationRequired: v })));
  if (i === 0) return;
  new Setting(container)
    .setName("Own port")
    .setDesc("Optional: a port where /context and /verify mean this context.")
    .addText((t) =>
      t.setValue(context.port ? String(context.port) : "").onChange(async (v) => {
        const port = v.trim() === "" ? undefined : Number(v);
        if (port !== undefined && !Number.isInteger(port)) return;
        await change({ port });
        await refresh();
      }),
    )
    .addButton((b) =>
      b
        .setClass("mod-warning")
        .setButtonText("Remove context")
        .onClick(async () => {
          await plugin.changeSetting("agentContexts", contexts().filter((_, j) => j !== i));
          await refresh();
          redraw();
        }),
    );
}

/** A new context, a copy of the first under a new name. */
function renderAddContext({ container, plugin, defaults, redraw, contexts }: ApiSection): void {
  let newName = "";
  new Setting(container)
    .setName("Add a context")
    .setDesc("Letters, digits, - and _.")
    .addText((t) => t.setPlaceholder("Reviewer").onChange((v) => (newName = v.trim())))
    .addButton((b) =>
      b.setButtonText("Add").onClick(async () => {
        const before = contexts().length;
        const base = contexts()[0] ?? defaults.agentContexts[0];
        await plugin.changeSetting("agentContexts", [...contexts(), { ...base, name: newName, port: undefined }]);
        if (contexts().length === before) return; // refused, with the reason in a notice
        redraw();
      }),
    );
}
