// Settings → Usage and cost (issue 17): the day's and the month's tokens and estimated cost (the
// core's usage ledger, local time), and the price table the estimates use, one model per line.
import { Setting } from "obsidian";
import type { CoreSettings, ModelPrice, UsageTotals } from "smarthole-core";
import type { SettingsHost } from "./settings-host.ts";
import { costText, usageText } from "../ui/usage.ts";

/** "claude-sonnet-4-5 3 15 200000": model, $ per million input and output tokens, context window. */
export function priceLines(prices: ModelPrice[]): string {
  return prices.map((p) => `${p.model} ${p.inputPerMtok} ${p.outputPerMtok} ${p.contextWindow}`).join("\n");
}

/** The table read back; a line that does not read is kept as a model with no numbers, which the
 * core refuses with a message naming it. */
export function parsePriceLines(text: string): ModelPrice[] {
  return text
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .filter((words) => words[0])
    .map(([model = "", input, output, window]) => ({
      model,
      inputPerMtok: Number(input ?? NaN),
      outputPerMtok: Number(output ?? NaN),
      contextWindow: Number(window ?? 0) || 0,
    }));
}

function totalsText(label: string, u: UsageTotals["today"]): string {
  const calls = u.modelCalls ?? 0;
  if (calls === 0) return `${label}: no model calls yet.`;
  return `${label}: ${usageText({ ...u, contextTokens: 0 })}${costText(u) ? "" : " (no price for the model)"}, ${calls} model call${calls === 1 ? "" : "s"}.`;
}

export function renderUsage(container: HTMLElement, plugin: SettingsHost, defaults: Required<CoreSettings>): void {
  new Setting(container).setName("Usage and cost").setHeading();
  const totals = new Setting(container).setName("Today and this month").setDesc("Reading the usage ledger…");
  plugin.runtime.processor.usageTotals().then(
    (t) => totals.setDesc(`${totalsText("Today", t.today)} ${totalsText("This month", t.month)}`),
    (e: unknown) => totals.setDesc(`Could not read the usage ledger: ${String(e)}`),
  );
  const saved = plugin.saved.modelPrices;
  new Setting(container)
    .setName("Prices")
    .setDesc("One model per line: its name (or the start of it), dollars per million input tokens, per million output tokens, and its context window. Cache writes cost 1.25x input, reads 0.1x.")
    .addTextArea((t) =>
      t.setValue(priceLines(saved ?? defaults.modelPrices)).onChange((v) => void plugin.changeSetting("modelPrices", parsePriceLines(v))),
    );
}
