// The plugin's settings as they live: read from data.json, split once the core is loaded into the
// fields used and those set aside as the core decides (splitPluginData: unknown, misspelled or
// wrong-typed fields — named in a notice, written back untouched on every save), given to the core with the secrets from secret
// storage, and changed one at a time (the core checks a change before it is saved). The settings
// sections reach it through SettingsHost.
import { Notice, type Plugin } from "obsidian";
import type { CoreSettings } from "smarthole-core";
import type { CoreRuntime } from "../core/runtime.ts";
import type { SettingsHost } from "./settings-host.ts";
import { coreSettings, type SavedSettings } from "./settings.ts";

export class PluginSettings implements SettingsHost {
  saved: SavedSettings = {};
  /** What data.json holds that the plugin does not use (unknown or wrong-typed fields): written
   * back on every save, never dropped. */
  private aside: Record<string, unknown> = {};

  constructor(
    private readonly plugin: Plugin,
    readonly runtime: CoreRuntime,
    private readonly warn: (text: string) => void,
  ) {}

  get app(): Plugin["app"] {
    return this.plugin.app;
  }

  /** data.json as it is (split once the core is loaded: `checked`). */
  async load(): Promise<void> {
    this.saved = ((await this.plugin.loadData()) as SavedSettings) ?? {};
  }

  /**
   * The settings the core runs with: only the fields it can use (a wrong-typed or unknown one in
   * data.json never stops the start), the secrets from secret storage. (On a phone the core
   * keeps the hub off itself: runtime.features.)
   */
  forCore(): CoreSettings {
    const saved = this.runtime.core ? (this.runtime.processor.splitPluginData(this.saved).used as SavedSettings) : this.saved;
    return coreSettings(this.app, saved);
  }

  /** The core is loaded: data.json is split, and the fields it does not use are named. */
  checked(): void {
    if (!this.runtime.core) return;
    const { used, aside, problems } = this.runtime.processor.splitPluginData(this.saved);
    this.saved = used;
    this.aside = aside;
    if (problems.length === 0) return;
    const text = `SmartHole Agent: ${problems.join("; ")}. They are kept in data.json but not used.`;
    this.warn(text);
    new Notice(text, 0);
  }

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
    await this.plugin.saveData({ ...this.aside, ...this.saved });
  }
}
