// What an answer and a conversation cost (issue 17): the tokens, the share read from the prompt
// cache, the context window filled and the estimated cost, as the core reported them with each
// turn (`usage` on the result and on the history line that ends the turn). Display only: the
// counts and the cost are the core's.
import type { Usage } from "smarthole-core";
import type { AnswerBubble } from "./answer-bubble.ts";

const count = (n: number): string => (n >= 10_000 ? `${Math.round(n / 1000)}k` : n.toLocaleString("en-US"));
const percent = (part: number, whole: number): string => `${whole > 0 ? Math.round((100 * part) / whole) : 0} %`;

/** Input tokens of every kind: fresh, written to the cache, read from it. */
export const inputOf = (u: Usage): number => u.inputTokens + u.cacheCreationInputTokens + u.cacheReadInputTokens;

/** "≈ $0.012", or "" when the price table does not know the model. */
export function costText(u: Usage): string {
  if (u.costUsd === undefined) return "";
  return `≈ $${u.costUsd < 0.01 ? u.costUsd.toFixed(4) : u.costUsd.toFixed(2)}`;
}

/** One answer: "12k in, 94 % from cache · 512 out · context 7 % of 200k · ≈ $0.012". An ACP
 * agent reports no tokens, only its context and cost (`usage_update`): "context 1 % of 200k · ≈ $0.012". */
export function usageText(u: Usage): string {
  const tokens = inputOf(u) + u.outputTokens > 0 || !(u.contextTokens && u.contextWindow);
  const parts = tokens ? [`${count(inputOf(u))} in, ${percent(u.cacheReadInputTokens, inputOf(u))} from cache`, `${count(u.outputTokens)} out`] : [];
  if (u.contextTokens && u.contextWindow) parts.push(`context ${percent(u.contextTokens, u.contextWindow)} of ${count(u.contextWindow)}`);
  const cost = costText(u);
  if (cost) parts.push(cost);
  return parts.join(" · ");
}

/** The panel's line for the conversation shown, and each answer's own line. */
export class ConversationUsage {
  private readonly el: HTMLElement;
  /** Totals asked of the core so far: only the newest one's answer is drawn. */
  private asked = 0;

  constructor(parent: HTMLElement) {
    this.el = parent.createDiv({ cls: "smarthole-usage-total smarthole-hidden" });
  }

  /** Another conversation is shown: a total still on its way is for the one before. */
  reset(): void {
    this.asked++;
    this.draw(null);
  }

  /** An answer's own line. */
  line(bubble: AnswerBubble, usage: Usage | undefined): void {
    if (usage) bubble.usage.setText(usageText(usage));
  }

  /** The conversation's total as the core adds it up from its whole history, however much of it
   * is drawn: asked when it is shown and after each answer. The core keeps the sum in step with
   * each turn it records, so asking again is cheap, and each answer holds every turn recorded
   * before it was asked: an older read that comes back late is not drawn over a newer one. */
  async refresh(read: () => Promise<Usage | null>): Promise<void> {
    const asked = ++this.asked;
    const total = await read().catch(() => null);
    if (total && asked === this.asked) this.draw(total);
  }

  private draw(total: Usage | null): void {
    const shown = total && inputOf(total) + total.outputTokens > 0 ? total : null;
    this.el.setText(shown ? `This conversation: ${usageText(shown)}` : "");
    this.el.toggleClass("smarthole-hidden", !shown);
  }
}
