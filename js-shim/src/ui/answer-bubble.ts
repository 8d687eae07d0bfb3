// One answer as it is built in the chat panel: the text each model call streams (plain while
// streaming, Markdown once finished), tool chips with their results, a status line (retrying,
// stopped, a notice), and a copy button.
import type {} from "obsidian";
import type { PanelOptions } from "./panel-api.ts";

/** One answer being built: text streamed by each model call, tool chips, status. */
export class AnswerBubble {
  readonly el: HTMLElement;
  private readonly body: HTMLElement;
  private readonly tools: HTMLElement;
  private readonly status: HTMLElement;
  /** Where the turn's usage line goes (ui/usage.ts). */
  readonly usage: HTMLElement;
  private committed = "";
  private live = "";
  private readonly liveNode: Text;
  private readonly chips = new Map<string, HTMLElement>();
  finished = false;

  constructor(parent: HTMLElement, messageId: string) {
    this.el = parent.createDiv({ cls: "smarthole-msg smarthole-msg-assistant", attr: { "data-message-id": messageId } });
    this.tools = this.el.createDiv({ cls: "smarthole-tools" });
    this.body = this.el.createDiv({ cls: "smarthole-body smarthole-streaming" });
    this.liveNode = this.body.ownerDocument.createTextNode("");
    this.body.appendChild(this.liveNode);
    this.status = this.el.createDiv({ cls: "smarthole-status" });
    this.usage = this.el.createDiv({ cls: "smarthole-usage" });
  }

  /** Everything streamed so far. */
  get text(): string {
    return this.committed + this.live;
  }

  append(text: string): void {
    this.live += text;
    this.liveNode.appendData(text);
    this.status.setText("");
  }

  /** A new model call starts: what the previous one streamed stays. */
  commit(): void {
    if (this.live) this.committed += (this.committed ? "\n\n" : "") + this.live;
    this.live = "";
    this.liveNode.data = this.committed;
  }

  /** The call failed and is retried: its partial text is void. */
  retrying(text: string): void {
    this.live = "";
    this.liveNode.data = this.committed;
    this.status.setText(text);
  }

  toolStarted(id: string, name: string, input: unknown): void {
    const chip = this.tools.createEl("details", { cls: "smarthole-tool" });
    chip.createEl("summary", { text: name, cls: "smarthole-tool-name" });
    chip.createEl("pre", { text: JSON.stringify(input, null, 2), cls: "smarthole-tool-input" });
    chip.createDiv({ cls: "smarthole-tool-result", text: "Running…" });
    this.chips.set(id, chip);
  }

  toolFinished(id: string, isError: boolean, output: string): void {
    const chip = this.chips.get(id);
    if (!chip) return;
    chip.toggleClass("smarthole-tool-error", isError);
    chip.querySelector(".smarthole-tool-result")?.setText(output);
  }

  setStatus(text: string): void {
    this.status.setText(text);
  }

  /** The partial answer stays, marked as stopped. */
  stopped(): void {
    this.finished = true;
    this.el.addClass("smarthole-stopped");
    this.body.removeClass("smarthole-streaming");
    this.status.setText("Stopped");
  }

  /** The final text, rendered as Markdown, with a copy button. */
  async finish(markdown: string, notice: string | undefined, options: PanelOptions): Promise<void> {
    this.finished = true;
    this.body.removeClass("smarthole-streaming");
    this.status.setText(notice ?? "");
    if (!markdown.trim()) {
      if (!this.text.trim() && this.chips.size === 0) this.el.addClass("smarthole-empty");
      return;
    }
    this.body.empty();
    await options.renderMarkdown(markdown, this.body);
    const copy = this.el.createEl("button", { cls: "smarthole-copy", text: "Copy", attr: { "aria-label": "Copy the answer" } });
    copy.addEventListener("click", () => void options.copy(markdown));
  }
}
