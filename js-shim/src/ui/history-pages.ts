// A conversation's history read a page at a time and kept to a window (issue 19): the newest
// page is drawn when the conversation is shown and always stays (the live turn, its cards and
// anything newer are drawn after it); older pages are drawn above as the user scrolls up, and at
// most WINDOW_PAGES of them are kept: past that, the page farthest from the view is dropped, and
// drawn again when the user scrolls back to it. Scrolling down from far up draws the pages in
// between again; a page being drawn goes to a detached element first, so an answer streaming
// meanwhile stays at the end. The view stays on what the user was reading whatever is drawn or
// dropped above it. The core reads each page without parsing the rest of the history
// (conversationPage).
import type { HistoryLine } from "smarthole-core";
import type { CoreCalls } from "./panel-api.ts";

/** Turns in a page: enough to fill a tall panel, few enough to draw at once. */
const PAGE_TURNS = 40;
/** Older pages kept drawn (besides the newest): about 2,000 elements at most. */
export const WINDOW_PAGES = 4;
/** How near the top, or the newest page (px), scrolling asks for the next page. */
const NEAR = 400;

/** A page drawn: the cursor it was read with, its nodes and messages. */
interface Page {
  cursor: number | undefined;
  nodes: ChildNode[];
  ids: Set<string>;
}

export class HistoryPages {
  private id: string | null = null;
  /** The older pages drawn, oldest first (top to bottom), above the newest page. */
  private window: Page[] = [];
  /** The cursors of the pages between the window and the newest page, nearest the window last. */
  private below: (number | undefined)[] = [];
  /** The newest page's first node: older pages go before it. */
  private newestStart: ChildNode | null = null;
  /** The cursor of the page above the window (or above the newest page when none is drawn). */
  private above: number | undefined;
  /** The cursor of the page above the newest one. */
  private aboveNewest: number | undefined;
  private loading: Promise<boolean> | null = null;

  constructor(
    private readonly messages: HTMLElement,
    private readonly backend: Pick<CoreCalls, "conversationPage">,
    /** Draws lines into a (detached) element. */
    private readonly draw: (lines: HistoryLine[], into: HTMLElement) => Promise<void>,
    /** Messages no longer drawn: the panel lets go of their bubbles. */
    private readonly forget: (ids: Set<string>) => void,
  ) {
    messages.addEventListener("scroll", () => this.onScroll(), { passive: true });
  }

  /** Draws the newest page of a conversation, before anything already drawn (live messages). */
  async first(id: string): Promise<void> {
    this.reset();
    this.id = id;
    const page = await this.backend.conversationPage(id, undefined, PAGE_TURNS);
    if (this.id !== id) return;
    const staged = await this.stage(page.lines);
    if (this.id !== id) return;
    this.newestStart = staged.nodes[0] ?? null;
    this.messages.prepend(...staged.nodes);
    this.above = this.aboveNewest = page.before;
  }

  /** The panel was emptied (new chat, another conversation). */
  reset(): void {
    this.id = null;
    this.window = [];
    this.below = [];
    this.newestStart = null;
    this.above = this.aboveNewest = undefined;
  }

  /** Draws the page above the oldest one shown; false when there is none. */
  older(): Promise<boolean> {
    return this.load(() => this.drawOlder());
  }

  /** Draws the page between the window and the newest page nearest the window; false when none. */
  newer(): Promise<boolean> {
    return this.load(() => this.drawNewer());
  }

  /** One page drawn at a time; the list is marked busy meanwhile (for assistive technology, and
   *  for tests to know when the drawing has settled). */
  private load(draw: () => Promise<boolean>): Promise<boolean> {
    if (!this.loading) {
      this.messages.setAttribute("aria-busy", "true");
      this.loading = draw().finally(() => {
        this.loading = null;
        this.messages.removeAttribute("aria-busy");
      });
    }
    return this.loading;
  }

  private onScroll(): void {
    const box = this.messages;
    if (box.scrollTop < NEAR) {
      void this.older();
    } else if (this.below.length > 0 && this.newestStart?.isConnected) {
      const gap = (this.newestStart as Element).getBoundingClientRect().top - box.getBoundingClientRect().bottom;
      if (gap <= 0) this.rejoin();
      else if (gap < NEAR) void this.newer();
    }
  }

  /** The user is back at the newest page, past pages no longer drawn: the window above goes, so
   *  what is drawn runs on to the newest message again (scrolling up reads it again). */
  private rejoin(): void {
    const dropped = this.window;
    this.window = [];
    this.below = [];
    this.above = this.aboveNewest;
    this.keepView(() => dropped.forEach((page) => this.remove(page)));
  }

  private async drawOlder(): Promise<boolean> {
    const { id, above } = this;
    if (id === null || above === undefined) return false;
    const read = await this.backend.conversationPage(id, above, PAGE_TURNS);
    if (this.id !== id || this.above !== above) return false;
    const page = { ...(await this.stage(read.lines)), cursor: above };
    if (this.id !== id) return false;
    const top = this.window[0]?.nodes[0] ?? this.newestStart;
    const ref = top?.isConnected ? top : this.messages.firstChild;
    this.keepView(() => {
      for (const node of page.nodes) this.messages.insertBefore(node, ref);
    });
    this.window.unshift(page);
    this.above = read.before;
    // Too many: the page nearest the newest one (below the view) goes.
    if (this.window.length > WINDOW_PAGES) {
      const dropped = this.window.pop()!;
      this.remove(dropped);
      this.below.push(dropped.cursor);
    }
    return true;
  }

  private async drawNewer(): Promise<boolean> {
    const { id } = this;
    const cursor = this.below.at(-1);
    if (id === null || this.below.length === 0) return false;
    const read = await this.backend.conversationPage(id, cursor, PAGE_TURNS);
    if (this.id !== id || this.below.at(-1) !== cursor) return false;
    const page = { ...(await this.stage(read.lines)), cursor };
    if (this.id !== id) return false;
    this.below.pop();
    this.keepView(() => {
      for (const node of page.nodes) this.messages.insertBefore(node, this.newestStart?.isConnected ? this.newestStart : null);
    });
    this.window.push(page);
    // Too many: the page farthest above the view goes; the one above the window is read again.
    if (this.window.length > WINDOW_PAGES) {
      const dropped = this.window.shift()!;
      this.keepView(() => this.remove(dropped));
      // The page above the window is now the dropped one: read again with its own cursor.
      this.above = dropped.cursor;
    }
    return true;
  }

  /** Draws lines into a detached element; their nodes and messages. */
  private async stage(lines: HistoryLine[]): Promise<Omit<Page, "cursor">> {
    const staging = this.messages.createDiv();
    staging.remove();
    await this.draw(lines, staging);
    return { nodes: [...staging.childNodes], ids: new Set(lines.map((l) => l.messageId)) };
  }

  private remove(page: Page): void {
    for (const node of page.nodes) node.remove();
    this.forget(page.ids);
  }

  /** Changes the drawn history without moving what the user reads: the first element in view
   *  stays where it was on screen. */
  private keepView(change: () => void): void {
    const box = this.messages;
    const top = box.getBoundingClientRect().top;
    const anchor = Array.from(box.children).find((el) => el.getBoundingClientRect().bottom > top);
    const before = anchor?.getBoundingClientRect().top;
    change();
    if (anchor?.isConnected && before !== undefined) box.scrollTop += anchor.getBoundingClientRect().top - before;
  }
}
