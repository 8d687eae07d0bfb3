// Settings → Agent (issue 34): which agent answers — the built-in one (any provider) or the
// user's own coding agent over ACP (Claude Code, Codex, Gemini CLI, opencode, a custom command)
// — its command, and the advanced switch letting it use its own tools. Drawn from what the core
// says: the choices, each preset's program, install hint and login command (`agentPresets`), and
// whether this device can start an agent at all (`features.ownAgent`; a phone shows why not).
import { Setting } from "obsidian";
import type { AgentPreset, CoreSettings } from "smarthole-core";
import type { SettingsHost } from "./settings-host.ts";
import { savedOr } from "./settings.ts";

type Defaults = Required<CoreSettings>;

/** The Agent section, redrawn in place when the choice changes. */
export function renderAgent(container: HTMLElement, host: SettingsHost, defaults: Defaults): void {
  const box = container.createDiv({ cls: "smarthole-agent-setting" });
  // A custom command chosen but not typed yet: the core refuses "acp" without one, so the choice
  // is saved with the command.
  const state = { customPending: false };
  const draw = (): void => {
    box.empty();
    drawAgent(box, host, defaults, state, draw);
  };
  draw();
}

/** What the settings say of a preset: the program it starts, how to install it, how to sign in. */
export function presetText(preset: AgentPreset): string {
  if (!preset.program && !preset.desktopOnly) return "The plugin's own agent, with the model and provider set below.";
  const parts: string[] = [];
  if (preset.program) parts.push(`Starts ${[preset.program, ...preset.args].join(" ")} (found on your PATH).`);
  else parts.push("Starts the command you give below; it must speak the Agent Client Protocol.");
  if (preset.install && preset.program) parts.push(`Not installed? ${preset.install}.`);
  if (preset.login) parts.push(`Sign in once in a terminal with ${preset.login}: the plugin never sees your login.`);
  return parts.join(" ");
}

function drawAgent(box: HTMLElement, host: SettingsHost, defaults: Defaults, state: { customPending: boolean }, redraw: () => void): void {
  new Setting(box).setName("Agent").setHeading();
  const ownAgent = host.runtime.features?.ownAgent;
  if (ownAgent && !ownAgent.available) {
    new Setting(box)
      .setName("Answered by")
      .setDesc(`${ownAgent.whyNot ?? "This device cannot start your own agent."} The built-in agent answers here.`)
      .setClass("smarthole-agent-why-not");
    return;
  }
  const presets = host.runtime.agents;
  const chosen = state.customPending ? "acp" : savedOr(host.saved, defaults, "agent");
  const preset = presets.find((p) => p.id === chosen) ?? presets[0];
  new Setting(box)
    .setName("Answered by")
    .setDesc(preset ? presetText(preset) : "")
    .addDropdown((d) => {
      for (const p of presets) d.addOption(p.id, p.name);
      d.setValue(chosen).onChange(async (id) => {
        state.customPending = id === "acp";
        if (id !== "acp") {
          // Another agent: a command typed for the one before is not its override.
          await host.changeSetting("agent", id);
          if (savedOr(host.saved, defaults, "agentCommand") !== "") await host.changeSetting("agentCommand", "");
        }
        redraw();
      });
    });
  if (!preset || chosen === "builtin") return;
  const custom = chosen === "acp";
  new Setting(box)
    .setName(custom ? "Agent command" : "Agent command override")
    .setDesc(
      custom
        ? "The command that starts the agent, with its arguments (quotes work as in a shell; no pipes or variables)."
        : `Only if ${preset.label}'s program is not on your PATH: the whole command to start it instead.`,
    )
    .addText((t) =>
      t
        .setPlaceholder(preset.program ? [preset.program, ...preset.args].join(" ") : "my-agent --acp")
        .setValue(savedOr(host.saved, defaults, "agentCommand"))
        .onChange(async (v) => {
          await host.changeSetting("agentCommand", v.trim());
          if (custom && v.trim() !== "" && savedOr(host.saved, defaults, "agent") !== "acp") await host.changeSetting("agent", "acp");
        }),
    );
  new Setting(box)
    .setName("Let the agent use its own tools")
    .setDesc(
      "Advanced. Off: the agent's own tools that write files and run commands are switched off, and it changes notes only through the plugin's tools (each change a diff you review and can undo). On: it may also use its own tools; each use waits for your yes on an approval card, and a command it runs can do anything your account can.",
    )
    .setClass("smarthole-agent-own-tools")
    .addToggle((t) => t.setValue(savedOr(host.saved, defaults, "agentOwnTools")).onChange((v) => void host.changeSetting("agentOwnTools", v)));
}
