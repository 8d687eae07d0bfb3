// What the settings sections (settings-tab.ts and the *-setting.ts files) and the plugin's
// commands need of the plugin, as a narrow interface: the settings as saved, a way to change one,
// and the core's runtime. PluginSettings implements it; the sections depend on it, not on the
// plugin, so the plugin and its settings do not import each other (obsidian-tasks breaks its
// plugin ↔ settings loop the same way).
import type { App } from "obsidian";
import type { CoreRuntime } from "../core/runtime.ts";
import type { SavedSettings } from "./settings.ts";

/** The runtime as the settings use it: its facts (defaults, presets, what this device offers,
 * the agent API's listeners, the MCP servers), its processor, and the settings applied again. */
export type SettingsRuntime = Pick<CoreRuntime, "ready" | "started" | "defaults" | "presets" | "agents" | "features" | "processor" | "mcp" | "apiStates" | "configureApi" | "updateSettings">;

export interface SettingsHost {
  readonly app: App;
  /** The user's choices, as data.json keeps them. */
  readonly saved: SavedSettings;
  /** Changes one setting: the core checks it first; an invalid value is refused with its reason. */
  changeSetting(key: keyof SavedSettings, value: unknown): Promise<void>;
  readonly runtime: SettingsRuntime;
}
