// Settings → Background model (issue 24): another model — and, if the user wants, another server,
// such as a local one — for the work nobody waits on: titles and summaries, retrospection and
// scheduled runs (a job the agent schedules may name its own). Display and input only: the core
// decides which calls go where, and never sends the chat's key to the background server.
import { SecretComponent, Setting, type App } from "obsidian";
import type { CoreSettings } from "smarthole-core";
import type { SettingsHost } from "./settings-host.ts";
import { DEFAULT_BACKGROUND_SECRET_ID, savedOr } from "./settings.ts";

type Defaults = Required<CoreSettings>;
/** The server choice meaning "the chat's server". */
const SAME = "same";

export function renderBackgroundModel(container: HTMLElement, app: App, plugin: SettingsHost, defaults: Defaults): void {
  const box = container.createDiv({ cls: "smarthole-background-model" });
  const draw = (): void => {
    box.empty();
    drawSettings(box, app, plugin, defaults, draw);
  };
  draw();
}

function drawSettings(container: HTMLElement, app: App, plugin: SettingsHost, defaults: Defaults, redraw: () => void): void {
  new Setting(container)
    .setName("Background model")
    .setDesc("For titles, summaries, retrospection and scheduled runs, such as a cheaper or a local model. Empty: the chat's model.")
    .addText((t) =>
      t
        .setPlaceholder(savedOr(plugin.saved, defaults, "model"))
        .setValue(savedOr(plugin.saved, defaults, "backgroundModel"))
        .onChange((v) => void plugin.changeSetting("backgroundModel", v.trim())),
    );
  const base = savedOr(plugin.saved, defaults, "backgroundBaseUrl");
  const presets = plugin.runtime.presets.filter((p) => p.baseUrl !== "");
  const chosen = base === "" ? SAME : (presets.find((p) => p.baseUrl === base)?.id ?? "custom");
  new Setting(container)
    .setName("Background server")
    .setDesc("Where the background model runs. The chat's API key is never sent to another server.")
    .addDropdown((d) => {
      d.addOption(SAME, "The chat's server");
      for (const p of presets) d.addOption(p.id, p.name);
      if (chosen === "custom") d.addOption("custom", "Custom");
      d.setValue(chosen).onChange(async (id) => {
        const preset = presets.find((p) => p.id === id);
        await plugin.changeSetting("backgroundBaseUrl", preset?.baseUrl ?? "");
        if (preset) {
          await plugin.changeSetting("backgroundApiFormat", preset.apiFormat);
          await plugin.changeSetting("backgroundAuthStyle", preset.authStyle);
        }
        redraw();
      });
    });
  if (base === "") return;
  new Setting(container)
    .setName("Background base URL")
    .addText((t) => t.setValue(base).onChange((v) => void plugin.changeSetting("backgroundBaseUrl", v.trim())));
  new Setting(container).setName("Background format").addDropdown((d) =>
    d
      .addOption("anthropic", "Anthropic messages")
      .addOption("openai", "OpenAI chat completions")
      .setValue(savedOr(plugin.saved, defaults, "backgroundApiFormat"))
      .onChange((v) => void plugin.changeSetting("backgroundApiFormat", v)),
  );
  new Setting(container).setName("Background key sent as").addDropdown((d) =>
    d
      .addOption("x-api-key", "Anthropic's header")
      .addOption("bearer", "Bearer token")
      .addOption("none", "No key")
      .setValue(savedOr(plugin.saved, defaults, "backgroundAuthStyle"))
      .onChange((v) => void plugin.changeSetting("backgroundAuthStyle", v)),
  );
  new Setting(container)
    .setName("Background API key")
    .setDesc("Kept in Obsidian's secret storage. Leave empty for a local server.")
    .addComponent((el) =>
      new SecretComponent(app, el)
        .setValue(plugin.saved.backgroundApiKeySecretId ?? DEFAULT_BACKGROUND_SECRET_ID)
        .onChange((id) => void plugin.changeSetting("backgroundApiKeySecretId", id)),
    );
}
