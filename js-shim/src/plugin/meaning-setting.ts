// Settings → Search by meaning (issue 35): the embedding presets (the core's list, each saying
// what it is good at and where it is weak), the embedding server's base URL, model, format and
// key (in Obsidian's secret storage, as embeddingsApiKeySecretId), and the meaning index's memory
// ceiling with the core's sentence on how many notes it covers. Display and input only: the
// presets, the ceiling's reach and when a change means a rebuild are the core's.
import { SecretComponent, Setting, type App } from "obsidian";
import type { CoreSettings, EmbeddingPreset } from "smarthole-core";
import type { SettingsHost } from "./settings-host.ts";
import { DEFAULT_EMBEDDINGS_SECRET_ID, savedOr } from "./settings.ts";

type Defaults = Required<CoreSettings>;
/** The offline model's dimensions: the ceiling's reach is said for it. */
const DIMS = 384;

export function renderMeaningSearch(container: HTMLElement, app: App, plugin: SettingsHost, defaults: Defaults): void {
  new Setting(container).setName("Search by meaning").setHeading();
  const box = container.createDiv({ cls: "smarthole-meaning-search" });
  // "Custom" chosen with no base URL yet: its fields show until one is typed.
  let custom = false;
  const draw = (): void => {
    box.empty();
    drawSettings(box, app, plugin, defaults, custom, (choseCustom) => {
      custom = choseCustom;
      draw();
    });
  };
  draw();
}

/** The preset the saved settings match: off without a base URL, else the one with that server. */
function chosenPreset(presets: EmbeddingPreset[], base: string, format: string, custom: boolean): string {
  if (custom) return "custom";
  if (base === "") return "off";
  return presets.find((p) => p.baseUrl !== "" && p.baseUrl === base && p.format === format)?.id ?? "custom";
}

function drawSettings(container: HTMLElement, app: App, plugin: SettingsHost, defaults: Defaults, custom: boolean, redraw: (custom: boolean) => void): void {
  const presets = plugin.runtime.processor.embeddingPresets();
  const base = savedOr(plugin.saved, defaults, "embeddingsBaseUrl");
  const format = savedOr(plugin.saved, defaults, "embeddingsFormat");
  const chosen = chosenPreset(presets, base, format, custom);
  new Setting(container)
    .setName("Embedding server")
    .setDesc(presets.find((p) => p.id === chosen)?.note ?? "")
    .addDropdown((d) => {
      for (const p of presets) d.addOption(p.id, p.name);
      d.setValue(chosen).onChange(async (id) => {
        const preset = presets.find((p) => p.id === id);
        if (id === "off") await plugin.changeSetting("embeddingsBaseUrl", "");
        else if (preset && preset.baseUrl !== "") {
          await plugin.changeSetting("embeddingsBaseUrl", preset.baseUrl);
          await plugin.changeSetting("embeddingsFormat", preset.format);
          if (preset.model !== "") await plugin.changeSetting("embeddingsModel", preset.model);
        }
        redraw(id === "custom");
      });
    });
  if (chosen === "off") return;
  new Setting(container)
    .setName("Embeddings base URL")
    .setDesc("Where the embedding server is (with or without /v1).")
    .addText((t) => t.setValue(base).onChange((v) => void plugin.changeSetting("embeddingsBaseUrl", v.trim())));
  new Setting(container)
    .setName("Embeddings model")
    .setDesc("The embedding model's name, as the server names it.")
    .addText((t) => t.setValue(savedOr(plugin.saved, defaults, "embeddingsModel")).onChange((v) => void plugin.changeSetting("embeddingsModel", v.trim())));
  new Setting(container)
    .setName("Embeddings format")
    .setDesc("The API the server speaks; most servers take the OpenAI format.")
    .addDropdown((d) =>
      d
        .addOption("openai", "OpenAI embeddings")
        .addOption("ollama", "Ollama embed")
        .setValue(format)
        .onChange((v) => void plugin.changeSetting("embeddingsFormat", v)),
    );
  new Setting(container)
    .setName("Embeddings API key")
    .setDesc("Kept in Obsidian's secret storage, never in the plugin's data. Leave empty for a local server.")
    .addComponent((el) =>
      new SecretComponent(app, el)
        .setValue(plugin.saved.embeddingsApiKeySecretId ?? DEFAULT_EMBEDDINGS_SECRET_ID)
        .onChange((id) => void plugin.changeSetting("embeddingsApiKeySecretId", id)),
    );
  new Setting(container)
    .setName("Changing the model rebuilds the index")
    .setDesc("Another model or server means every passage of every note is embedded again, in the background; the log says so when it starts. Until then, search works by words.")
    .setClass("smarthole-meaning-rebuild");
  const ceiling = new Setting(container).setName("Meaning index memory");
  const reach = (mb: number) => ceiling.setDesc(`In megabytes. ${plugin.runtime.processor.meaningCeilingCovers(mb, DIMS).text}`);
  reach(savedOr(plugin.saved, defaults, "meaningIndexMaxMb"));
  ceiling.addText((t) =>
    t.setValue(String(savedOr(plugin.saved, defaults, "meaningIndexMaxMb"))).onChange((v) => {
      const n = Number(v);
      if (v.trim() === "" || !Number.isInteger(n) || n < 0) return;
      reach(n);
      void plugin.changeSetting("meaningIndexMaxMb", n);
    }),
  );
}
