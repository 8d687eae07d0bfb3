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

/** One answer: "12k in, 94 % from cache · 512 out · context 7 % of 200k · ≈ $0.012". */
export function usageText(u: Usage): string {
  const parts = [`${count(inputOf(u))} in, ${percent(u.cacheReadInputTokens, inputOf(u))} from cache`, `${count(u.outputTokens)} out`];
  if (u.contextTokens && u.contextWindow) parts.push(`context ${percent(u.contextTokens, u.contextWindow)} of ${count(u.contextWindow)}`);
  const cost = costText(u);
  if (cost) parts.push(cost);
  return parts.join(" · ");
}

/** The sum of several turns' usage (the context filled is the newest one's). */
export function addUsage(total: Usage | null, u: Usage): Usage {
  if (!total) return { ...u };
  const cost = total.costUsd === undefined && u.costUsd === undefined ? undefined : (total.costUsd ?? 0) + (u.costUsd ?? 0);
  return {
    ...u,
    inputTokens: total.inputTokens + u.inputTokens,
    cacheCreationInputTokens: total.cacheCreationInputTokens + u.cacheCreationInputTokens,
    cacheReadInputTokens: total.cacheReadInputTokens + u.cacheReadInputTokens,
    outputTokens: total.outputTokens + u.outputTokens,
    costUsd: cost,
  };
}

/** The panel's line for the conversation shown, and each answer's own line. */
export class ConversationUsage {
  private readonly el: HTMLElement;
  private total: Usage | null = null;

  constructor(parent: HTMLElement) {
    this.el = parent.createDiv({ cls: "smarthole-usage-total smarthole-hidden" });
  }

  /** Another conversation is shown. */
  reset(): void {
    this.total = null;
    this.draw();
  }

  /** An answer drawn from the history: its own line only (the total is the core's). */
  line(bubble: AnswerBubble, usage: Usage | undefined): void {
    if (usage) bubble.usage.setText(usageText(usage));
  }

  /** The conversation's total as the core added it up from its whole history, however much of
   * it is drawn; answers finished afterwards add to it. */
  setTotal(total: Usage): void {
    this.total = inputOf(total) + total.outputTokens > 0 ? { ...total } : null;
    this.draw();
  }

  /** A turn finished in the view: its line under the answer, and the conversation's total. */
  turn(bubble: AnswerBubble, usage: Usage | undefined): void {
    if (!usage) return;
    this.line(bubble, usage);
    this.total = addUsage(this.total, usage);
    this.draw();
  }

  private draw(): void {
    this.el.setText(this.total ? `This conversation: ${usageText(this.total)}` : "");
    this.el.toggleClass("smarthole-hidden", !this.total);
  }
}
