// Settings → Usage and cost (issue 17): the day's and the month's tokens and estimated cost (the
// core's usage ledger, local time), and the price table the estimates use, one model per line (its
// text printed and read by the core: priceTableText, parsePriceTable).
import { Notice, Setting } from "obsidian";
import type { CoreSettings, ModelPrice, UsageTotals } from "smarthole-core";
import type { SettingsHost } from "./settings-host.ts";
import { costText, usageText } from "../ui/usage.ts";

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
  const core = plugin.runtime.processor;
  /** The table as typed, when it reads (else the reason, in a notice; nothing is saved). */
  const read = (text: string): ModelPrice[] | null => {
    try {
      return core.parsePriceTable(text);
    } catch (error) {
      new Notice(error instanceof Error ? error.message : String(error));
      return null;
    }
  };
  new Setting(container)
    .setName("Prices")
    .setDesc("One model per line: its name (or the start of it), dollars per million input tokens, per million output tokens, and its context window. Cache writes cost 1.25x input, reads 0.1x.")
    .addTextArea((t) =>
      t.setValue(core.priceTableText(saved ?? defaults.modelPrices)).onChange((v) => {
        const prices = read(v);
        if (prices) void plugin.changeSetting("modelPrices", prices);
      }),
    );
}
