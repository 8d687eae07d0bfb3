// Settings → Model: the provider presets (the core's list), the server's base URL, wire format
// and auth style, the model with the server's models as suggestions, and "Check connection"
// with the core's report line by line (issue 24). Display and input only: the presets, the check
// and what each failure means come from the core.
import { Setting, type DropdownComponent, type TextComponent } from "obsidian";
import type { ConnectionCheck, CoreSettings } from "smarthole-core";
import type { SettingsHost } from "./settings-host.ts";
import { savedOr } from "./settings.ts";

type Defaults = Required<CoreSettings>;

/** The report under the button: one line per step, ✓ or ✗. */
function showReport(el: HTMLElement, report: ConnectionCheck): void {
  el.empty();
  for (const line of report.lines) {
    const [cls, mark] = line.ok ? ["is-ok", "✓"] : line.optional ? ["is-optional", "–"] : ["is-failed", "✗"];
    el.createDiv({ cls: `smarthole-check-line ${cls}`, text: `${mark} ${line.text}` });
  }
}

export function renderConnection(container: HTMLElement, plugin: SettingsHost, defaults: Defaults): void {
  const presets = plugin.runtime.presets;
  const base = savedOr(plugin.saved, defaults, "baseUrl");
  const format = savedOr(plugin.saved, defaults, "apiFormat");
  const auth = savedOr(plugin.saved, defaults, "authStyle");
  const chosen = presets.find((p) => p.baseUrl === base && p.apiFormat === format && p.authStyle === auth) ?? presets.find((p) => p.id === "custom");
  const provider = new Setting(container).setName("Provider").setDesc(chosen?.note ?? "");
  let baseInput: TextComponent | undefined;
  let formatInput: DropdownComponent | undefined;
  let authInput: DropdownComponent | undefined;
  provider.addDropdown((d) => {
    for (const p of presets) d.addOption(p.id, p.name);
    d.setValue(chosen?.id ?? "custom").onChange(async (id) => {
      const preset = presets.find((p) => p.id === id);
      provider.setDesc(preset?.note ?? "");
      if (!preset?.baseUrl) return;
      await plugin.changeSetting("baseUrl", preset.baseUrl);
      await plugin.changeSetting("apiFormat", preset.apiFormat);
      await plugin.changeSetting("authStyle", preset.authStyle);
      baseInput?.setValue(preset.baseUrl);
      formatInput?.setValue(preset.apiFormat);
      authInput?.setValue(preset.authStyle);
    });
  });
  new Setting(container)
    .setName("Base URL")
    .setDesc("Where the model server is.")
    .addText((t) => (baseInput = t).setValue(base).onChange((v) => void plugin.changeSetting("baseUrl", v.trim())));
  new Setting(container)
    .setName("Format")
    .setDesc("The API the server speaks. Chat completions have no prompt caching and no PDFs.")
    .addDropdown((d) =>
      (formatInput = d)
        .addOption("anthropic", "Anthropic messages")
        .addOption("openai", "OpenAI chat completions")
        .setValue(format)
        .onChange((v) => void plugin.changeSetting("apiFormat", v)),
    );
  new Setting(container)
    .setName("Send the key as")
    .setDesc("Anthropic takes the key in its own header; most other hosted servers as a bearer token; local servers need none.")
    .addDropdown((d) =>
      (authInput = d)
        .addOption("x-api-key", "Anthropic's header")
        .addOption("bearer", "Bearer token")
        .addOption("none", "No key")
        .setValue(auth)
        .onChange((v) => void plugin.changeSetting("authStyle", v)),
    );
  const models = container.createEl("datalist", { attr: { id: "smarthole-models" } });
  new Setting(container)
    .setName("Model")
    .setDesc("The model's name; after a check, the server's models are offered.")
    .addText((t) => {
      t.inputEl.setAttribute("list", "smarthole-models");
      t.setValue(savedOr(plugin.saved, defaults, "model")).onChange((v) => void plugin.changeSetting("model", v.trim()));
    });
  const check = new Setting(container).setName("Check connection").setDesc("Small real requests: reachable, key, model, streaming, tools, images, and the embedding server when search by meaning is on.");
  const report = container.createDiv({ cls: "smarthole-check-report" });
  check.addButton((b) =>
    b.setButtonText("Check connection").onClick(async () => {
      b.setDisabled(true);
      report.setText("Checking…");
      try {
        const result = await plugin.runtime.processor.checkConnection();
        showReport(report, result);
        models.empty();
        for (const m of result.models) models.createEl("option", { attr: { value: m } });
      } catch (error) {
        report.setText(`The check could not run: ${String(error)}`);
      } finally {
        b.setDisabled(false);
      }
    }),
  );
}
