// The settings tab, sentence case. Values the user has not changed show the core's defaults;
// every change is checked by the core before it is saved.
import { Modal, Notice, PluginSettingTab, SecretComponent, Setting, type App, type Plugin } from "obsidian";
import type { CoreSettings } from "smarthole-core";
import type { SettingsHost } from "./settings-host.ts";
import { DEFAULT_SECRET_ID, savedOr, type SavedSettings } from "./settings.ts";
import { renderIntegrations } from "./integrations-setting.ts";
import { renderAgentApi } from "./agent-api-setting.ts";
import { renderUsage } from "./usage-setting.ts";
import { renderConnection } from "./model-setting.ts";
import { renderBackgroundModel } from "./background-setting.ts";
import { renderAgent } from "./agent-setting.ts";
import { renderMeaningSearch } from "./meaning-setting.ts";

type Key = keyof SavedSettings;
/** The settings with a plain value (text, number, switch). */
type ScalarKey = {
  [K in keyof Required<CoreSettings>]: Required<CoreSettings>[K] extends string | number | boolean ? K : never;
}[keyof CoreSettings] &
  Key;

/** Asks before deleting every conversation. */
class ConfirmClearModal extends Modal {
  constructor(
    app: App,
    private readonly onConfirm: () => void,
  ) {
    super(app);
  }

  override onOpen(): void {
    this.setTitle("Clear history");
    this.contentEl.createEl("p", {
      text: "Delete every conversation the agent has kept in this vault, with the copies of the notes, images and PDFs attached to them and the records that undo their changes to your notes? Messages still waiting to be answered are kept. This cannot be undone.",
    });
    new Setting(this.contentEl)
      .addButton((b) => b.setButtonText("Cancel").onClick(() => this.close()))
      .addButton((b) =>
        b
          .setButtonText("Delete all conversations")
          .onClick(() => {
            this.close();
            this.onConfirm();
          }),
      );
  }

  override onClose(): void {
    this.contentEl.empty();
  }
}

export class SmartHoleSettingTab extends PluginSettingTab {
  constructor(
    app: App,
    plugin: Plugin,
    private readonly host: SettingsHost,
  ) {
    super(app, plugin);
  }

  private value<K extends keyof CoreSettings>(key: K, defaults: Required<CoreSettings>): Required<CoreSettings>[K] {
    return savedOr(this.host.saved, defaults, key);
  }

  private text(container: HTMLElement, defaults: Required<CoreSettings>, key: ScalarKey, name: string, desc: string): void {
    new Setting(container)
      .setName(name)
      .setDesc(desc)
      .addText((t) => t.setValue(String(this.value(key, defaults))).onChange((v) => void this.host.changeSetting(key, v.trim())));
  }

  /**
   * A text setting applied when typing pauses (1 s) or the field loses focus: the hub's name and
   * description make the core register again, which must not happen on every keystroke.
   */
  private paused(container: HTMLElement, defaults: Required<CoreSettings>, key: ScalarKey, name: string, desc: string, area: boolean): void {
    let timer: number | undefined;
    let typed: string | undefined;
    const apply = () => {
      window.clearTimeout(timer);
      if (typed === undefined) return;
      const value = area ? typed : typed.trim();
      typed = undefined;
      void this.host.changeSetting(key, value);
    };
    const onChange = (v: string) => {
      typed = v;
      window.clearTimeout(timer);
      timer = window.setTimeout(apply, 1000);
    };
    const setting = new Setting(container).setName(name).setDesc(desc);
    if (area) setting.addTextArea((t) => (t.setValue(String(this.value(key, defaults))).onChange(onChange), t.inputEl.addEventListener("blur", apply)));
    else setting.addText((t) => (t.setValue(String(this.value(key, defaults))).onChange(onChange), t.inputEl.addEventListener("blur", apply)));
  }

  private area(container: HTMLElement, defaults: Required<CoreSettings>, key: ScalarKey, name: string, desc: string): void {
    new Setting(container)
      .setName(name)
      .setDesc(desc)
      .addTextArea((t) => t.setValue(String(this.value(key, defaults))).onChange((v) => void this.host.changeSetting(key, v)));
  }

  private number(container: HTMLElement, defaults: Required<CoreSettings>, key: ScalarKey, name: string, desc: string): void {
    new Setting(container)
      .setName(name)
      .setDesc(desc)
      .addText((t) =>
        t.setValue(String(this.value(key, defaults))).onChange((v) => {
          const n = Number(v);
          if (v.trim() !== "" && Number.isInteger(n)) void this.host.changeSetting(key, n);
        }),
      );
  }

  private toggle(container: HTMLElement, defaults: Required<CoreSettings>, key: ScalarKey, name: string, desc: string): void {
    new Setting(container)
      .setName(name)
      .setDesc(desc)
      .addToggle((t) => t.setValue(Boolean(this.value(key, defaults))).onChange((v) => void this.host.changeSetting(key, v)));
  }

  override display(): void {
    const { containerEl } = this;
    containerEl.empty();
    const defaults = this.host.runtime.defaults;
    if (!defaults) {
      containerEl.createEl("p", { text: "The agent is starting; reopen this tab in a moment." });
      return;
    }
    renderAgent(containerEl, this.host, defaults);
    new Setting(containerEl).setName("Model").setHeading();
    new Setting(containerEl)
      .setName("API key")
      .setDesc("Kept in Obsidian's secret storage, never in the plugin's data. Leave empty for a local model that needs none.")
      .addComponent((el) =>
        new SecretComponent(this.app, el)
          .setValue(this.host.saved.apiKeySecretId ?? DEFAULT_SECRET_ID)
          .onChange((id) => void this.host.changeSetting("apiKeySecretId", id)),
      );
    renderConnection(containerEl, this.host, defaults);
    renderBackgroundModel(containerEl, this.app, this.host, defaults);
    this.number(containerEl, defaults, "maxTokens", "Max tokens", "The longest answer, in tokens.");
    this.toggle(containerEl, defaults, "streaming", "Stream answers", "Show the answer as it is written.");

    renderUsage(containerEl, this.host, defaults);

    new Setting(containerEl).setName("Conversations").setHeading();
    this.number(containerEl, defaults, "conversationIdleTimeoutMinutes", "Idle timeout", "Minutes of silence after which a new conversation starts.");
    this.number(containerEl, defaults, "conversationStateTimeoutMinutes", "Question timeout", "Minutes after which an unanswered question from the agent is dropped.");
    this.toggle(containerEl, defaults, "markdownCopies", "Markdown copies", "Keep each conversation as a note too, added to after every answer. The agent's own record stays in .smarthole/; editing a copy changes nothing there.");
    this.text(containerEl, defaults, "markdownCopiesFolder", "Folder for Markdown copies", "Where the copies go, and where the export command writes.");
    this.toggle(containerEl, defaults, "enableConversationRetrospection", "Retrospection", "After each conversation, reflect on it into .smarthole/retrospection.md.");
    this.area(containerEl, defaults, "retrospectionPrompt", "Retrospection prompt", "What the reflection asks.");
    this.area(containerEl, defaults, "informationArchitecture", "Information architecture", "Your folders and what goes where, for the agent to follow.");

    new Setting(containerEl).setName("Notes").setHeading();
    new Setting(containerEl)
      .setName("Protected folders")
      .setDesc("One folder per line that the agent may neither read nor change. The configuration, trash, Git and agent folders are always protected.")
      .addTextArea((t) =>
        t.setValue(this.value("protectedFolders", defaults).join("\n")).onChange((v) => {
          const folders = v.split("\n").map((line) => line.trim()).filter((line) => line !== "");
          void this.host.changeSetting("protectedFolders", folders);
        }),
      );
    this.toggle(
      containerEl,
      defaults,
      "followLinkedFolders",
      "Read folders linked from outside",
      "Let the agent read, list and search folders linked into the vault from elsewhere on this computer (symbolic links, desktop only). It never writes there. Off: they are skipped.",
    );
    // The tools that ask before they act, as the core lists them.
    for (const { tool, name, description } of this.host.runtime.processor.approvalTools()) {
      new Setting(containerEl)
        .setName(name)
        .setDesc(description)
        .addToggle((t) =>
          t.setValue(this.value("autoApproveTools", defaults).includes(tool)).onChange((on) => {
            const others = this.value("autoApproveTools", defaults).filter((x) => x !== tool);
            void this.host.changeSetting("autoApproveTools", on ? [...others, tool] : others);
          }),
        );
    }

    renderMeaningSearch(containerEl, this.app, this.host, defaults);
    renderIntegrations(containerEl, this.app, this.host);
    // What this device offers is the core's answer (runtime.features): the sections it has, and
    // its line saying why the others are missing.
    const features = this.host.runtime.features;
    if (features?.agentApi.available) renderAgentApi(containerEl.createDiv(), this.app, this.host, defaults);
    if (features?.missing) new Setting(containerEl).setName("Desktop only").setDesc(features.missing).setClass("smarthole-desktop-only");
    if (features?.hub.available) this.hub(containerEl, defaults);
    this.advanced(containerEl, defaults);
  }

  private hub(containerEl: HTMLElement, defaults: Required<CoreSettings>): void {
    new Setting(containerEl).setName("SmartHole hub").setHeading();
    this.toggle(containerEl, defaults, "hubEnabled", "Connect to the hub", "Take the messages the SmartHole desktop hub routes here.");
    this.text(containerEl, defaults, "hubUrl", "Hub URL", "The hub's WebSocket address.");
    this.paused(containerEl, defaults, "hubClientName", "Client name", "How the hub knows this vault: letters, digits, - and _, starting with a letter.", false);
    this.paused(
      containerEl,
      defaults,
      "hubDescription",
      "Routing description",
      "What the hub's router reads to decide what to send here (1 to 1024 characters, counted as the hub counts them: most emoji count as two). Applied when you pause typing.",
      true,
    );
  }

  private advanced(containerEl: HTMLElement, defaults: Required<CoreSettings>): void {
    new Setting(containerEl).setName("Advanced").setHeading();
    this.toggle(containerEl, defaults, "verboseLogging", "Verbose logging", "Write the agent's debug lines to the developer console.");
    new Setting(containerEl)
      .setName("Clear history")
      .setDesc("Delete every conversation kept in this vault.")
      .addButton((b) =>
        b
          .setButtonText("Clear history")
          .onClick(() =>
            new ConfirmClearModal(this.app, () => {
              void this.host.runtime.processor.clearHistory().then(
                (n) => new Notice(`Deleted ${n} conversation${n === 1 ? "" : "s"}.`),
                (e: unknown) => new Notice(`Could not clear the history: ${String(e)}`),
              );
            }).open(),
          ),
      );
  }
}
