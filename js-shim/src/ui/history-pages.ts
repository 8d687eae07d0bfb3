// A conversation's history read a page at a time (issue 19): the newest turns when it is shown,
// older ones when the user scrolls near the top, drawn above what is there with the scroll
// position kept on what the user was reading. The core reads each page without parsing the rest
// of the history (conversationPage); a backend without it gets the whole history at once.
import type { HistoryLine } from "smarthole-core";
import type { ChatBackend } from "./panel-api.ts";

/** Turns in a page: enough to fill a tall panel, few enough to draw at once. */
const PAGE_TURNS = 40;
/** How near the top (px) scrolling asks for the page before. */
const NEAR_TOP = 300;

export class HistoryPages {
  private id: string | null = null;
  private before: number | undefined;
  private loading: Promise<boolean> | null = null;

  constructor(
    private readonly messages: HTMLElement,
    private readonly backend: ChatBackend,
    private readonly draw: (lines: HistoryLine[]) => Promise<void>,
  ) {
    messages.addEventListener("scroll", () => void (messages.scrollTop < NEAR_TOP && this.older()), { passive: true });
  }

  /** Draws the newest page of a conversation; the rest waits for scrolling up. */
  async first(id: string): Promise<void> {
    this.id = id;
    this.before = undefined;
    if (!this.backend.conversationPage) return this.draw(await this.backend.conversationLines(id));
    const page = await this.backend.conversationPage(id, undefined, PAGE_TURNS);
    if (this.id !== id) return;
    this.before = page.before;
    await this.draw(page.lines);
  }

  /** The panel was emptied (new chat, another conversation). */
  reset(): void {
    this.id = null;
    this.before = undefined;
  }

  /** Draws the page before the oldest one shown above it; false when there is none. */
  older(): Promise<boolean> {
    this.loading ??= this.drawOlder().finally(() => (this.loading = null));
    return this.loading;
  }

  private async drawOlder(): Promise<boolean> {
    const { id, before } = this;
    if (id === null || before === undefined || !this.backend.conversationPage) return false;
    const page = await this.backend.conversationPage(id, before, PAGE_TURNS);
    if (this.id !== id || this.before !== before) return false;
    const box = this.messages;
    const [last, first, height, top] = [box.lastChild, box.firstChild, box.scrollHeight, box.scrollTop];
    await this.draw(page.lines);
    // The page was drawn at the end: it moves above what was shown.
    const added: ChildNode[] = [];
    for (let node = last ? last.nextSibling : box.firstChild; node; node = node.nextSibling) added.push(node);
    for (const node of added) box.insertBefore(node, first);
    box.scrollTop = top + (box.scrollHeight - height);
    this.before = page.before;
    return true;
  }
}
